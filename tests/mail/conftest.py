"""Fixtures of the mail tests: an embedded app with a started two-player game."""

from __future__ import annotations

from dataclasses import dataclass
from email.message import EmailMessage
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import select

from service.db import session_scope
from service.inbound.receive import Outcome, receive
from service.models import Seat
from tests.mail.mail_world import MailPlayer, stored_mail


@dataclass
class MailGame:
    app: Flask
    id: str
    players: dict[str, MailPlayer]
    tokens: dict[str, str]  # player tokens, for the web/API side of a test
    gm_token: str = ""

    def send(self, raw: bytes) -> Outcome:
        with self.app.app_context():
            return receive(raw)

    def seat(self, name: str) -> Seat:
        with session_scope(self.app) as s:
            seat = s.scalars(select(Seat).where(Seat.game_id == self.id, Seat.name == name)).one()
            s.expunge(seat)
            return seat

    def reply_to(self, name: str) -> str:
        return str(self.start_mail(name)["Reply-To"].addresses[0].addr_spec)

    def start_mail(self, name: str) -> EmailMessage:
        return self.players[name].latest("The game has started")


def start_game(app: Flask, title: str = "Mail duel", policy: dict[str, Any] | None = None,
               **options: Any) -> MailGame:
    client = app.test_client()
    r = client.post("/api/games", json={
        "ruleset": "universal", "title": title,
        "seats": [{"name": n, "email": f"{n}@example.org"} for n in ("alice", "bob")],
        "options": {"width": 8, "height": 8, **options},
        **({"deadline_policy": policy} if policy else {})})
    assert r.status_code == 201, r.json
    game_id = r.json["id"]
    tokens = {}
    for seat in r.json["seats"]:
        j = client.post(f"/api/games/{game_id}/join", json={"invite_token": seat["invite_token"]})
        assert j.status_code == 200, j.json
        tokens[seat["name"]] = j.json["player_token"]
    game = MailGame(app, game_id, {}, tokens, r.json["gm_token"])
    read = stored_mail(app)
    game.players = {n: MailPlayer(f"{n}@example.org", read, game.send) for n in ("alice", "bob")}
    return game


@pytest.fixture
def mail_game(sqlite_app: Flask) -> MailGame:
    return start_game(sqlite_app)


@pytest.fixture
def db_mail_game(app: Flask) -> MailGame:
    """The same game on SQLite and on PostgreSQL (the shared `app` fixture's two databases)."""
    return start_game(app)
