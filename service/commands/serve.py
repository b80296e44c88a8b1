"""`dicepost serve`: the web app on Werkzeug's threaded server (`dicepost web` in production).

In embedded mode it also starts the sweeper thread (every DICEPOST_SWEEP_SECONDS) and
runs the tasks a request committed after its answer is sent (service.tasks). It
refuses to start on a database whose schema is not at the packaged migrations' head:
every request would fail, so it says which command brings the schema up to date.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

import click
from alembic.script import ScriptDirectory
from flask import Flask

from service.commands import make_app, require_seal
from service.db import engine_of
from service.migrate import MIGRATIONS, current
from service.web.mailbox import mailbox_link

F = TypeVar("F", bound=Callable[..., Any])


def address_options(func: F) -> F:
    func = click.option("--port", type=click.IntRange(1, 65535), default=5000, show_default=True,
                        help="TCP port to listen on")(func)
    return click.option("--host", default="127.0.0.1", show_default=True,
                        help="address to listen on")(func)


def schema_problem(app: Flask) -> str | None:
    """Why the database's schema is not at head and what to do, or None when it is."""
    scripts = ScriptDirectory(str(MIGRATIONS))
    head = scripts.get_current_head()
    revision = current(engine_of(app))
    if revision == head:
        return None
    where = engine_of(app).url.render_as_string(hide_password=True)
    if revision is None:
        return f"the database {where} has no tables yet: run `dicepost db upgrade` first"
    if revision not in {script.revision for script in scripts.walk_revisions()}:
        return (f"the database {where} is at revision {revision}, which this version of "
                "dicepost does not know: run the version that migrated it")
    return (f"the database {where} is at revision {revision}, not the latest ({head}): "
            "run `dicepost db upgrade` first")


def require_schema(app: Flask) -> None:
    problem = schema_problem(app)
    if problem:
        raise click.ClickException(problem)


def closed_when_sent(wsgi_app: Callable[..., Any]) -> Callable[..., Any]:
    """Werkzeug's server calls an answer's close() (which runs the work a view left for after
    the answer: `call_on_close`, the embedded default's tasks) only if reading what is left
    of the request does not fail; a browser that resets the connection once it has a
    redirect makes it fail, and that work was then left for the sweeper. Here close() runs
    as soon as the last byte has been handed to the server, or when the server drops the
    answer unfinished (the generator is closed with it)."""

    def sent(answer: Iterable[bytes]) -> Iterator[bytes]:
        try:
            for chunk in answer:  # noqa: UP028 (`yield from` would close `answer` a second time)
                yield chunk
        finally:
            close = getattr(answer, "close", None)
            if close is not None:
                close()

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterator[bytes]:
        return sent(wsgi_app(environ, start_response))

    return app


def serve(app: Flask, host: str, port: int) -> None:
    # Werkzeug's server without run_simple's banner: its red "development server" warning
    # read as an error on every `make run`; this command says what it serves instead.
    from werkzeug.serving import make_server

    require_schema(app)
    require_seal(app)
    try:
        server = make_server(host, port, closed_when_sent(app), threaded=True)
    except OSError as exc:  # the address is taken or not this machine's
        raise click.ClickException(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    click.echo(f"Serving on http://{host}:{port}/ (Ctrl-C stops)")
    if app.config["EMBEDDED"]:
        from service.sweeper import start_thread

        # The answer first: a round's resolution and mail run in-process after it is sent.
        app.config["TASKS_AFTER_RESPONSE"] = True
        start_thread(app)
        # The mailbox shows every player's mail, so it opens only with its key.
        link = mailbox_link(app, app.config.get("BASE_URL") or f"http://{host}:{port}")
        click.echo(f"Mailbox (the mail this server keeps, for this machine's own user): {link}")
    server.serve_forever()  # until Ctrl-C; it closes the socket then


@click.command("serve", help="Serve the web app and API.")
@address_options
def command(host: str, port: int) -> int:
    serve(make_app(), host, port)
    return 0
