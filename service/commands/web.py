"""`dicepost web`: the production web server (the image's and compose's command).

granian's WSGI interface, WORKERS processes of THREADS threads each serving the app, with
the access log of service.logs.AccessLog. Before it binds, service.webserver's refusals:
the embedded default on a public address (without DICEPOST_PUBLIC_EMBEDDED=1), a seal key
that does not open the database's chain tips; each is one line and exit status 1.
"""

from __future__ import annotations

import os
from pathlib import Path

import click

from service import webserver


def _bind(_ctx: click.Context, _param: click.Parameter, value: str) -> tuple[str, int] | Path:
    try:
        return webserver.parse_bind(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


@click.command("web", help="Serve the web app and API in production (granian, several processes).")
@click.option("--bind", "where", default="127.0.0.1:8000", show_default=True, callback=_bind,
              help="HOST:PORT, [IPv6]:PORT or unix:PATH to listen on")
@click.option("--workers", type=click.IntRange(1, 64), default=2, show_default=True,
              help="processes serving the app")
@click.option("--threads", type=click.IntRange(1, 256), default=4, show_default=True,
              help="threads per process running requests")
def command(where: tuple[str, int] | Path, workers: int, threads: int) -> int:
    bind = webserver.bind_text(where)
    problem = webserver.refusal([bind], os.environ) or webserver.seal_refusal()
    if problem:
        raise SystemExit(problem)  # the message on stderr, status 1
    taken = webserver.port_problem(where)
    if taken:
        raise click.ClickException(f"cannot listen on {bind}: {taken}")
    try:
        webserver.server(webserver.PRODUCTION_TARGET, where, workers, threads).serve()
    except RuntimeError as exc:
        reason = webserver.listen_error(exc)
        if reason is None:
            raise
        raise click.ClickException(f"cannot listen on {bind}: {reason}") from None
    return 0
