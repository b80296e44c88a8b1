"""Webhooks in full mode: PostgreSQL, Redis and a real `dicepost worker` post the game's
news, each piece exactly once however many doorbells ring for the hook at once."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import select, update

from service import create_app
from service.db import engine_of, session_scope
from service.models import Webhook, WebhookEvent
from service.sweeper import sweep_and_ring
from tests.conftest import empty_tables, full_config
from tests.notify.receiver import Receiver, receiving
from tests.service.play import create

pytestmark = pytest.mark.slow


@pytest.fixture
def full_app(pg_url: str, redis_env: dict[str, str], worker: Any) -> Iterator[Flask]:
    app = create_app(full_config(pg_url, redis_env, WEBHOOKS_LOOPBACK=True))
    assert not app.config["EMBEDDED"]
    empty_tables(app)
    yield app
    engine_of(app).dispose()


def _wait(predicate: Any, what: str, timeout: float = 60.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def _finished(worker: Any, ids: set[str]) -> int:
    done = re.findall(r"deliver_webhook\[([0-9a-f-]+)\] succeeded", worker.log.read_text())
    return len(ids & set(done))


def _ring_at_once(app: Flask, worker: Any, hook_id: int, times: int = 4) -> None:
    """Several doorbells for the hook at once, and the sweeper's; wait for them all."""
    from worker.tasks import deliver_webhook

    queue = app.config["QUEUES"]["mail"]
    with app.app_context():
        ids = {deliver_webhook.apply_async((hook_id,), queue=queue).id for _ in range(times)}
        sweep_and_ring()
    _wait(lambda: _finished(worker, ids) == times, "the deliveries to finish")


def test_each_piece_of_news_is_posted_once(full_app: Flask, worker: Any) -> None:
    with receiving() as receiver:
        _play(full_app, worker, receiver)


def _play(app: Flask, worker: Any, receiver: Receiver) -> None:
    client = app.test_client()
    table = create(client, seats=("alice", "bob"))
    r = client.post(f"/api/games/{table.id}/webhooks", json={"url": f"{receiver.url}/json", "kind": "json"},
                    headers={"Authorization": f"Bearer {table.created['gm_token']}"})
    assert r.status_code == 201, r.json
    hook_id = r.json["id"]
    for seat in table.created["seats"]:
        j = client.post(f"/api/games/{table.id}/join", json={"invite_token": seat["invite_token"]})
        assert j.status_code == 200, j.json
        table.tokens[seat["name"]] = j.json["player_token"]
    _wait(lambda: len(receiver.requests) == 1, "the worker's first post")
    _ring_at_once(app, worker, hook_id)
    assert [e["type"] for e in receiver.requests[0].json()["data"]["events"]] == ["game_started", "round_opened"]

    for seat in ("alice", "bob"):
        assert table.put(seat, table.bot(app, seat)).status_code == 200
    _wait(lambda: _queued(app, hook_id) == 2, "the round's news to be queued")
    with session_scope(app) as s, s.begin():  # the hook's minute is over
        s.execute(update(Webhook).where(Webhook.id == hook_id).values(next_post_at=None))
    _ring_at_once(app, worker, hook_id)
    _ring_at_once(app, worker, hook_id)
    assert len(receiver.requests) == 2
    ids = [r.headers["webhook-id"] for r in receiver.requests]
    assert len(set(ids)) == 2
    assert [e["type"] for e in receiver.requests[1].json()["data"]["events"]] == ["round_resolved", "round_opened"]
    with session_scope(app) as s, s.begin():
        assert {e.status for e in s.scalars(select(WebhookEvent))} == {"sent"}


def _queued(app: Flask, hook_id: int) -> int:
    with session_scope(app) as s, s.begin():
        return len(list(s.scalars(select(WebhookEvent.id).where(WebhookEvent.webhook_id == hook_id,
                                                               WebhookEvent.status == "pending"))))
