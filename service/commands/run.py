"""`dicepost run` (what `make run` calls): migrate, make a demo game once, print its links, serve.

The demo game's player links hold player tokens; they are written once to
instance/demo-game.txt (mode 600) so a second `make run` can print them again.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from flask import Flask
from sqlalchemy import func, select

from service import create_app, games
from service.commands.serve import add_address, serve
from service.db import engine_of, session_scope
from service.migrate import upgrade
from service.models import Game
from service.urls import game_url, join_url, player_url

DEMO_FILE = "demo-game.txt"


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("run", help="migrate, create a demo game if there is none, serve")
    add_address(parser)
    parser.add_argument("--no-serve", action="store_true", help="stop after printing the links")
    parser.set_defaults(func=run)


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


def ensure_demo(app: Flask) -> str:
    path = Path(app.instance_path) / DEMO_FILE
    with session_scope(app) as session, session.begin():
        count = session.scalar(select(func.count()).select_from(Game)) or 0
    if count and path.exists():
        return path.read_text()
    if count:
        return "Games exist already; see the home page.\n"
    text = demo_game(app)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o600)
    return text


def run(args: argparse.Namespace) -> int:
    app = create_app({"BASE_URL": f"http://{args.host}:{args.port}"} if not _configured() else None)
    upgrade(engine_of(app))
    print(ensure_demo(app), end="")
    print(f"Serving on http://{args.host}:{args.port}/ (Ctrl-C stops)")
    if not args.no_serve:
        serve(app, args.host, args.port)
    return 0


def _configured() -> bool:
    import os

    return bool(os.environ.get("DICEPOST_BASE_URL"))
