"""Public pages: home (public games, create-game form), game page, round pages."""

from __future__ import annotations

import json
from typing import Any

from flask import render_template, request

from service import games
from service import jsonlimits as limited_json
from service.catalog import rulesets_json
from service.db import get_session
from service.errors import Invalid, ServiceError
from service.render.svg import board_svg
from service.urls import join_url, record_url
from service.views import public_games_json
from service.web import bp
from service.web.data import game_page, round_page


def _public_games() -> list[dict[str, Any]]:
    return public_games_json(get_session())


@bp.get("/")
def home() -> str:
    return render_template("web/home.html", games=_public_games(), rulesets=rulesets_json(),
                           form={}, error=None)


def parse_seat_lines(text: str) -> list[games.SeatSpec]:
    """`name [email]` a line."""
    specs = []
    for number, line in enumerate(text.splitlines(), start=1):
        words = line.split()
        if not words:
            continue
        if len(words) > 2:
            raise Invalid(f"seats line {number}: write a name and, optionally, an e-mail address",
                          "seats")
        specs.append(games.SeatSpec(words[0], words[1] if len(words) == 2 else None))
    return specs


def parse_option_lines(text: str) -> dict[str, Any]:
    """`name = value` a line; values are JSON (numbers, true/false) or plain text."""
    options: dict[str, Any] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        name, sep, value = line.partition("=")
        if not sep or not name.strip():
            raise Invalid(f"options line {number}: write name = value", "options")
        try:
            options[name.strip()] = limited_json.loads(value.strip())
        except json.JSONDecodeError:
            options[name.strip()] = value.strip()
    return options


@bp.post("/games")
def create() -> tuple[str, int, dict[str, str]]:
    form = request.form
    try:
        created = games.create_game(
            get_session(), form.get("ruleset", ""), form.get("title", ""),
            parse_seat_lines(form.get("seats", "")), parse_option_lines(form.get("options", "")),
            form.get("public") == "on", join_url)
    except ServiceError as exc:
        return render_template("web/home.html", games=_public_games(), rulesets=rulesets_json(),
                               form=form, error=exc), exc.status, exc.headers
    invites = [(name, join_url(created.id, token)) for name, token in created.invites]
    return render_template("web/created.html", created=created, invites=invites), 201, {}


@bp.get("/games/<game_id>")
def game(game_id: str) -> str:
    page = game_page(get_session(), game_id)
    svg = board_svg(page.board, f"the grid of {page.game.title}") if page.board else None
    return render_template("web/game.html", page=page, svg=svg, record_url=record_url(game_id))


@bp.get("/games/<game_id>/rounds/<int:number>")
def round_(game_id: str, number: int) -> str:
    page = round_page(get_session(), game_id, number)
    svg = board_svg(page.board, f"the grid after round {number}") if page.board else None
    return render_template("web/round.html", page=page, svg=svg, record_url=record_url(game_id))
