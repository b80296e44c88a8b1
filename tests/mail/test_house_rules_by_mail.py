"""A universal game with its own unit types and terrain, played by mail."""

from __future__ import annotations

from flask import Flask

from tests.mail.conftest import start_game
from tests.mail.mail_world import text_of
from tests.mail.test_inbound import _mail

TYPES = [{"name": "berserker", "cost": 1, "effects": {"power_counterattacking": 2}}]


def test_orders_by_mail_meet_the_walls_and_the_mail_draws_them(sqlite_app: Flask) -> None:
    """On 8 x 8 `ruins` has walls on c4, c5, f4, f5 and rough squares on d4, d5, e4, e5."""
    game = start_game(sqlite_app, unit_types=TYPES, terrain="ruins")
    out = game.send(_mail(game.reply_to("alice"), "A1 move c4"))
    assert out.status == "processed" and "orders refused" in out.detail
    refused = text_of(game.players["alice"].latest("Orders NOT stored for round 1"))
    assert "c4 is impassable" in refused
    out = game.send(_mail(game.reply_to("alice"), "pass", mid="<m2@client.example.org>"))
    assert out.status == "processed" and "orders stored for round 1" in out.detail
    started = text_of(game.players["bob"].latest("The game has started"))
    assert "wall: cannot be entered" in started and "rough: costs 1.5 squares to enter" in started
