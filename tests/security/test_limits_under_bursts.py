"""Every limit holds when its requests come at once (SQLite and PostgreSQL).

Before, each limit counted rows and then inserted, so requests at once all counted the
same number and all passed: the probe got 4-8 follow mails for a limit of 3 (with 500s
from two inserts of one follower), 8-13 invitations for 5 or 10, 34 messages for 30 and
4 sign-in links for 3. Now each count is held (service.limit_lock) until its insert
commits; every request past a limit is 429, none is 500.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import func, select

from service.db import session_scope
from service.models import LoginLink, Outbox, TableMessage
from tests.service.play import start

AT_ONCE = 10


@pytest.fixture
def paused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Where the pause point lives (service.faults); `at_once` arms it: a request that holds
    a limit's count waits there until released, so without the hold every request would
    count before any inserted."""
    monkeypatch.setenv("DICEPOST_FAULT_DIR", str(tmp_path))
    yield tmp_path


def at_once(app: Flask, paused: Path, request: Callable[[Any, int], Any]) -> list[int]:
    """AT_ONCE requests released together, each from a client of its own, the first ones
    held at the pause point for a moment: their statuses."""
    gate = threading.Barrier(AT_ONCE + 1)
    (paused / "pause-limit-held").touch()  # armed only now: the game was made without it

    def one(i: int) -> int:
        client = app.test_client()
        gate.wait()
        response = request(client, i)
        response.close()  # work handed off after the answer runs now, as a server does
        return int(response.status_code)

    with ThreadPoolExecutor(AT_ONCE) as pool:
        answers = pool.map(one, range(AT_ONCE))
        gate.wait()
        time.sleep(1.0)  # every request is at the point or waiting for the one there
        (paused / "release-limit-held").touch()
        return sorted(answers)


def _count(app: Flask, query: Any) -> int:
    with session_scope(app) as s, s.begin():
        return int(s.scalar(query) or 0)


def test_follow_asks_at_once_stop_at_three_mails_and_never_fail(app: Flask, paused: Path) -> None:
    table = start(app.test_client())
    statuses = at_once(app, paused, lambda c, i: c.post(f"/games/{table.id}/follow", data={"email": "Victim@example.org"}))
    assert statuses == [303] * 3 + [429] * (AT_ONCE - 3)
    assert _count(app, select(func.count()).select_from(Outbox).where(
        Outbox.kind == "follow", Outbox.to_address == "victim@example.org")) == 3


def test_invitations_at_once_stop_at_the_limit(app: Flask, paused: Path) -> None:
    app.config.update(INVITATIONS_PER_ADDRESS=5)
    statuses = at_once(app, paused, lambda c, i: c.post("/api/games", json={"ruleset": "universal", "seats": [
        {"name": "a", "email": "victim@example.org"}, {"name": "b", "email": f"b{i}@example.org"}]}))
    assert statuses == [201] * 5 + [429] * (AT_ONCE - 5)
    assert _count(app, select(func.count()).select_from(Outbox).where(
        Outbox.kind == "invitation", Outbox.to_address == "victim@example.org")) == 5


def test_messages_at_once_stop_at_the_hourly_limit(app: Flask, paused: Path) -> None:
    app.config.update(MESSAGES_PER_HOUR=4)
    table = start(app.test_client())
    statuses = at_once(app, paused, lambda c, i: c.post(f"/api/games/{table.id}/messages", headers=table.auth("alice"),
                                                 json={"to": "all", "text": f"message {i}"}))
    assert statuses == [201] * 4 + [429] * (AT_ONCE - 4)
    assert _count(app, select(func.count()).select_from(TableMessage)) == 4


def test_sign_in_links_asked_at_once_stop_at_three(app: Flask, paused: Path) -> None:
    start(app.test_client())
    statuses = at_once(app, paused, lambda c, i: c.post("/signin", data={"email": "alice@example.org"}))
    assert statuses == [303] * AT_ONCE  # the form says the same whatever happens
    assert _count(app, select(func.count()).select_from(LoginLink)) == 3
    assert _count(app, select(func.count()).select_from(Outbox).where(Outbox.kind == "login")) == 3
