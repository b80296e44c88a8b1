"""A whole game played only through mail, in the embedded default (mail kept in stored_mail)."""

from __future__ import annotations

import re
from typing import Any

from flask import Flask

from engine import find_ruleset
from engine.bots import bot_orders
from engine.dice import NEW_GAME_PROFILE, H
from service.db import session_scope
from service.inbound.receive import receive
from service.models import Game
from service.views import latest_step
from tests.mail.mail_world import MailPlayer, html_of, stored_mail, text_of

SEATS = ("alice", "bob")


def create(app: Flask, **options: Any) -> str:
    r = app.test_client().post("/api/games", json={
        "ruleset": "universal", "title": "Mail duel",
        "seats": [{"name": n, "email": f"{n}@example.org"} for n in SEATS],
        "options": {"width": 8, "height": 8, **options}})
    assert r.status_code == 201, r.json
    return str(r.json["id"])


def game_row(app: Flask, game_id: str) -> Game:
    with session_scope(app) as s:
        game = s.get(Game, game_id)
        assert game is not None
        s.expunge(game)
        return game


def bot(app: Flask, game_id: str, player: str) -> str:
    with session_scope(app) as s:
        game = s.get(Game, game_id)
        step = latest_step(s, game_id)
        assert game is not None and step is not None
        ruleset = find_ruleset(game.ruleset)
        return bot_orders(ruleset, ruleset.load(step.state), player, "mail-test") or "pass"


def check_chain_in(text: str) -> None:
    """The revealed key hashes to the previous link, as the mail says: check it ourselves."""
    found = re.search(r"Revealed chain key S_(\d+) = ([0-9a-f]{64})", text)
    t, key = int(found.group(1)), found.group(2)
    prev = re.search(rf"S_{t - 1} = ([0-9a-f]{{64}})", text).group(1)
    assert H(NEW_GAME_PROFILE, "chain", bytes.fromhex(key)).hex() == prev
    assert "it does." in text


def play(app: Flask, players: dict[str, MailPlayer], game_id: str) -> dict[str, Any]:
    seen: dict[str, Any] = {"rounds": 0, "mails": 0}
    for p in players.values():
        invitation = p.latest("Invitation")
        assert game_row(app, game_id).commitment in text_of(invitation)
        out = p.reply(invitation, "JOIN")
        assert out.status == "processed", out
    commitment = game_row(app, game_id).commitment
    subject = "The game has started"
    for number in range(1, 60):
        game = game_row(app, game_id)
        if game.status == "finished":
            break
        for name, p in players.items():
            mail = p.latest(subject)
            text = text_of(mail)
            assert commitment in text and commitment in html_of(mail)
            check_chain_in(text)
            assert "ROLL LOG" in text and "/verify?record=" in text
            if "It needs your orders" in text:
                out = p.reply(mail, bot(app, game_id, name))
                assert out.status == "processed", out
                assert "orders stored" in out.detail
        seen["rounds"] = number
        subject = f"Round {number} results"
    seen["mails"] = sum(len(p.inbox()) for p in players.values())
    return seen


def mail_players(app: Flask) -> dict[str, MailPlayer]:
    """The seats' mail clients, reading the embedded mailbox and sending to `receive`."""

    def send(raw: bytes) -> Any:
        with app.app_context():
            return receive(raw)

    read = stored_mail(app)
    return {n: MailPlayer(f"{n}@example.org", read, send) for n in SEATS}


def test_whole_game_by_mail_embedded(sqlite_app):
    app = sqlite_app
    players = mail_players(app)
    game_id = create(app, max_rounds=6)
    seen = play(app, players, game_id)
    game = game_row(app, game_id)
    assert game.status == "finished", seen
    for p in players.values():
        over = p.latest("Game over")
        text = text_of(over)
        assert "THE FINAL GRID" in text and "/api/games/" in text and "record" in text
        # Every mail the player got has both parts and the game's commitment.
        for mail in p.inbox():
            assert game.commitment in text_of(mail) and game.commitment in html_of(mail)
