"""Full mode: the mail a web process's requests commit is rung together (service.tasks.MailBell),
one deliver_mails message per window instead of one per request; a request that closes a
round still sends its mail, and what waits, before the round's doorbell."""

from __future__ import annotations

import time
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import select

from service import tasks
from service.config import DEFAULT_MAIL_BELL_SECONDS, mail_bell_seconds
from service.db import session_scope
from service.models import Outbox
from tests.conftest import wait_for
from tests.service.play import start


def _sent_to_broker(app: Flask, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Any]]:
    sent: list[tuple[str, Any]] = []
    monkeypatch.setitem(app.config, "EMBEDDED", False)  # sent to the broker, not run here
    monkeypatch.setattr(app.extensions["celery"], "send_task",
                        lambda name, args, queue: sent.append((name, args)))
    return sent


def _confirmations(app: Flask, game_id: str) -> list[int]:
    with session_scope(app) as s, s.begin():
        return list(s.scalars(select(Outbox.id).where(Outbox.game_id == game_id,
                                                      Outbox.kind == "confirmation").order_by(Outbox.id)))


def test_the_mail_of_several_requests_is_rung_in_one_message(sqlite_app: Flask,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    client = sqlite_app.test_client()
    tables = [start(client) for _ in range(3)]
    sent = _sent_to_broker(sqlite_app, monkeypatch)
    began = time.monotonic()
    for table in tables:
        assert table.put("alice", "pass").status_code == 200
    if time.monotonic() - began < DEFAULT_MAIL_BELL_SECONDS:
        assert sent == [], "each answer went out without a publish of its own"
    wait_for(lambda: bool(sent), "the bell to ring", 10)
    ids = [i for t in tables for i in _confirmations(sqlite_app, t.id)]
    assert len(ids) == 3
    published = [i for name, (batch,) in sent for i in batch]
    assert {name for name, _args in sent} == {tasks.DELIVER_MAILS} and sorted(published) == ids
    assert len(sent) < 3


def test_a_request_that_closes_a_round_sends_the_waiting_mail_and_its_own_before_the_round(
        sqlite_app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    client = sqlite_app.test_client()
    other, table = start(client), start(client)
    monkeypatch.setattr(tasks.mail_bell(sqlite_app), "window", 30.0)  # rings only when closed
    sent = _sent_to_broker(sqlite_app, monkeypatch)
    assert other.put("alice", "pass").status_code == 200
    assert table.put("alice", "pass").status_code == 200
    assert sent == []
    assert table.put("bob", "pass").status_code == 200  # the round is ready: its doorbell rings
    mail = [*_confirmations(sqlite_app, other.id), *_confirmations(sqlite_app, table.id)]
    assert sent == [(tasks.DELIVER_MAILS, (mail,)), (tasks.RESOLVE_ROUND, (table.id, 1))]


def test_outside_a_request_and_in_the_embedded_default_the_mail_is_sent_at_once(
        sqlite_app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
    sent = _sent_to_broker(sqlite_app, monkeypatch)
    tasks.send(sqlite_app, tasks.Outgoing(mail=[4, 5]))  # a worker's or the sweeper's send
    assert sent == [(tasks.DELIVER_MAILS, ([4, 5],))]
    monkeypatch.setitem(sqlite_app.config, "EMBEDDED", True)
    ran: list[Any] = []
    monkeypatch.setattr(tasks, "send_mail", lambda app, ids, together=False: ran.append(list(ids)))
    with sqlite_app.test_request_context():
        tasks.send(sqlite_app, tasks.Outgoing(mail=[6]))
    assert ran == [[6]]


def test_the_window_setting() -> None:
    assert mail_bell_seconds(None) == mail_bell_seconds("") == DEFAULT_MAIL_BELL_SECONDS
    assert mail_bell_seconds("0") == 0.0 and mail_bell_seconds("0.25") == 0.25
    for bad in ("soon", "-1", "60", "nan"):
        with pytest.raises(ValueError, match="DICEPOST_MAIL_BELL_SECONDS"):
            mail_bell_seconds(bad)
