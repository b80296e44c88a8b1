"""`dicepost db upgrade`: apply the packaged migrations to DATABASE_URL (or the SQLite file)."""

from __future__ import annotations

import click

from service.commands import make_app, migrate_app, require_seal
from service.db import engine_of
from service.migrate import current


@click.group("db", help="Database migrations.")
def command() -> None:
    pass


@command.command("upgrade", help="Apply every migration up to REVISION (default head; idempotent).")
@click.argument("revision", default="head")
def run_upgrade(revision: str) -> int:
    app = make_app()
    migrate_app(app, revision)
    require_seal(app)
    click.echo(f"database at {current(engine_of(app))}: {engine_of(app).url.render_as_string()}")
    return 0


@command.command("current", help="Print the applied revision.")
def run_current() -> int:
    click.echo(current(engine_of(make_app())) or "empty")
    return 0
