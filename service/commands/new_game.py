"""`dicepost new-game`: create a game from the command line and print its links (shown once)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from service import create_app, games
from service.db import session_scope
from service.errors import ServiceError
from service.urls import game_url, join_url


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("new-game", help="create a game and print its invitation links")
    parser.add_argument("--ruleset", required=True)
    parser.add_argument("--title", default="")
    parser.add_argument("--seat", action="append", required=True, metavar="NAME[:EMAIL]",
                        help="one per seat, in seat order")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="a game option (value as JSON, else text)")
    parser.add_argument("--private", action="store_true", help="not listed on the home page")
    parser.set_defaults(func=run)


def parse_option(text: str) -> tuple[str, Any]:
    name, sep, value = text.partition("=")
    if not sep:
        raise SystemExit(f"--option {text!r}: write NAME=VALUE")
    try:
        return name.strip(), json.loads(value)
    except json.JSONDecodeError:
        return name.strip(), value


def run(args: argparse.Namespace) -> int:
    seats = []
    for text in args.seat:
        name, _, email = text.partition(":")
        seats.append(games.SeatSpec(name, email or None))
    options = dict(parse_option(o) for o in args.option)
    app = create_app()
    with app.app_context(), session_scope() as session:
        try:
            created = games.create_game(session, args.ruleset, args.title, seats, options,
                                        not args.private, join_url)
        except ServiceError as exc:
            print(f"error: {exc.message}" + (f" ({exc.field})" if exc.field else ""))
            return 2
        print(f"game {created.id}: {game_url(created.id)}")
        print(f"commitment S_0: {created.commitment}")
        print(f"gm token (shown once): {created.gm_token}")
        for name, token in created.invites:
            print(f"  {name}: {join_url(created.id, token)}")
    return 0
