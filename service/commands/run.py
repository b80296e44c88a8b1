"""`dicepost run` (what `make run` calls): migrate, make a demo game once, print its links, serve.

The demo game's player links hold player tokens; they are written once to
instance/demo-game.txt (mode 600) so a second `make run` can print them again.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

import click
from alembic.util import CommandError
from flask import Flask
from sqlalchemy import func, select

from service import games
from service.commands import make_app, migrate_app, require_seal
from service.commands.serve import address_options, schema_problem, serve
from service.db import session_scope
from service.models import Game
from service.urls import game_url, join_url, player_url

DEMO_FILE = "demo-game.txt"


def demo_game(app: Flask) -> str:
    """Create and start a two-player universal game; return the text of its links."""
    with app.app_context(), session_scope() as session:
        created = games.create_game(session, "universal", "Demo game",
                                    [games.SeatSpec("alice", "alice@example.org"),
                                     games.SeatSpec("bob", "bob@example.org")], {}, True,
                                    join_url)
        lines = [f"Demo game {created.id}: {game_url(created.id)}"]
        for name, invite in created.invites:
            joined = games.join(session, created.id, invite)
            lines.append(f"  {name}'s player page: {player_url(created.id, joined.player_token)}")
        return "\n".join(lines) + "\n"


def saved_demo(app: Flask, path: Path) -> str | None:
    """The saved links, if they name a game in this database (the file may come from
    another DATABASE_URL, whose links would answer 404 here)."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        return None
    match = re.match(r"Demo game (\S+):", text)
    if not match:
        return None
    with session_scope(app) as session, session.begin():
        return text if session.get(Game, match.group(1)) is not None else None


def ensure_demo(app: Flask) -> str:
    path = Path(app.instance_path) / DEMO_FILE
    saved = saved_demo(app, path)
    if saved:
        return saved
    with session_scope(app) as session, session.begin():
        count = session.scalar(select(func.count()).select_from(Game)) or 0
    if count:
        return "Games exist already; see the home page.\n"
    text = demo_game(app)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o600)
    return text


@click.command("run", help="Migrate, create a demo game if there is none, serve.")
@address_options
@click.option("--no-serve", is_flag=True, help="stop after printing the links")
def command(host: str, port: int, no_serve: bool) -> int:
    configured = bool(os.environ.get("DICEPOST_BASE_URL"))
    app = make_app(None if configured else {"BASE_URL": f"http://{host}:{port}"})
    if app.config["EMBEDDED"]:
        # The tasks run in this process: Celery's line for every task that succeeded (each
        # mail delivered) would bury the links this command prints; failures still show.
        logging.getLogger("celery.app.trace").setLevel(logging.WARNING)
    try:
        migrate_app(app)
    except CommandError as exc:  # a revision this version does not know, say
        raise click.ClickException(schema_problem(app) or f"database migration: {exc}") from None
    require_seal(app)
    click.echo(ensure_demo(app), nl=False)
    if no_serve:
        click.echo(f"Not serving (--no-serve); `dicepost serve --host {host} --port {port}` "
                   "serves these links.")
        return 0
    serve(app, host, port)
    return 0
