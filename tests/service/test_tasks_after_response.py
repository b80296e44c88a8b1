"""The embedded default served by `dicepost serve`: the request that completes a round is
answered before the round is resolved and its mail composed; they run once the answer is sent."""

from __future__ import annotations

from typing import Any

from flask import Flask
from sqlalchemy import select

from service.db import session_scope
from service.models import Outbox, Round
from tests.service.play import start


def _round_status(app: Flask, game_id: str) -> str:
    with session_scope(app) as s, s.begin():
        return str(s.scalar(select(Round.status).where(Round.game_id == game_id, Round.number == 1)))


def _mail(app: Flask, game_id: str) -> list[tuple[str, str]]:
    with session_scope(app) as s, s.begin():
        return sorted((str(k), str(st)) for k, st in s.execute(
            select(Outbox.kind, Outbox.status).where(Outbox.game_id == game_id)))


def test_the_last_order_is_answered_first_and_the_round_resolved_when_the_answer_closes(
        app: Flask, client: Any) -> None:
    app.config["TASKS_AFTER_RESPONSE"] = True  # as `dicepost serve` sets it in embedded mode
    table = start(client)
    assert table.put("alice", table.bot(app, "alice")).status_code == 200
    answer = table.put("bob", table.bot(app, "bob"))
    assert answer.status_code == 200
    # The answer is complete, but the server has not closed it yet: nothing ran. (The test
    # client closes no answer by itself, so no mail of this test is sent before that.)
    assert answer.json["version"] == 1
    assert _round_status(app, table.id) == "ready"
    assert ("results", "sent") not in _mail(app, table.id)
    assert ("confirmation", "sent") not in _mail(app, table.id)
    answer.close()  # what the WSGI server does once the answer is sent
    assert _round_status(app, table.id) == "resolved"
    sent = [kind for kind, status in _mail(app, table.id) if status == "sent"]
    assert sent == ["confirmation", "results", "results"]  # bob's, and round 1's results for both
    assert table.status()["round"] == 2


def test_without_the_setting_the_round_is_resolved_before_the_answer(app: Flask, client: Any) -> None:
    table = start(client)
    table.put("alice", table.bot(app, "alice"))
    assert table.put("bob", table.bot(app, "bob")).status_code == 200
    assert _round_status(app, table.id) == "resolved"
