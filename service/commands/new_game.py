"""`dicepost new-game`: create a game from the command line and print its links (shown once)."""

from __future__ import annotations

import json
from typing import Any

import click

from service import games
from service.commands import Refused, sealed_app
from service.db import session_scope
from service.errors import ServiceError
from service.urls import game_url, join_url


def parse_option(text: str) -> tuple[str, Any]:
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise click.BadParameter(f"{text!r}: write NAME=VALUE", param_hint="--option")
    try:
        return name.strip(), json.loads(value)
    except json.JSONDecodeError:
        return name.strip(), value


@click.command("new-game", help="Create a game and print its invitation links.")
@click.option("--ruleset", required=True)
@click.option("--title", default="")
@click.option("--seat", "seat_texts", multiple=True, required=True, metavar="NAME[:EMAIL]",
              help="one per seat, in seat order")
@click.option("--option", "option_texts", multiple=True, metavar="NAME=VALUE",
              help="a game option (value as JSON, else text)")
@click.option("--private", is_flag=True, help="not listed on the home page")
def command(ruleset: str, title: str, seat_texts: tuple[str, ...], option_texts: tuple[str, ...],
            private: bool) -> int:
    seats = []
    for text in seat_texts:
        name, _, email = text.partition(":")
        seats.append(games.SeatSpec(name, email or None))
    options = dict(parse_option(o) for o in option_texts)
    app = sealed_app()
    with app.app_context(), session_scope() as session:
        try:
            created = games.create_game(session, ruleset, title, seats, options, not private,
                                        join_url)
        except ServiceError as exc:
            raise Refused(exc.message + (f" ({exc.field})" if exc.field else "")) from None
        click.echo(f"game {created.id}: {game_url(created.id)}")
        click.echo(f"commitment S_0: {created.commitment}")
        click.echo(f"gm token (shown once): {created.gm_token}")
        for name, token in created.invites:
            click.echo(f"  {name}: {join_url(created.id, token)}")
    return 0
