"""Redis restarted empty (no persistence) with work queued, on a private redis-server.

What must hold afterwards: orders taken while Redis was down were acknowledged and kept;
the queued doorbells that vanished with Redis cost nothing, because the sweeper rings
again from the database; a worker that was running reconnects by itself; every round
resolves once and every mail is delivered once.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from service.db import engine_of
from service.sweeper import sweep_and_ring
from tests.conftest import empty_tables
from tests.faults.conftest import Faults, FaultWorld, PrivateRedis, make_world, wait_for, world_env
from tests.faults.test_doorbells import _all_mail_delivered_once, _backdate_mail
from tests.faults.test_worker_kill import assert_resolved_once
from tests.service.play import start

pytestmark = pytest.mark.slow


@pytest.fixture
def redis_world(pg_url: str, private_redis: PrivateRedis, faults: Faults, tmp_path: Path):
    world = make_world(pg_url, world_env(pg_url, private_redis.url, faults), tmp_path)
    empty_tables(world.app)
    yield world
    for proc in world.workers:
        proc.stop()
    engine_of(world.app).dispose()


def _sweep_until(world: FaultWorld, predicate, what: str, timeout: float = 90) -> None:
    """What beat does: sweep every few seconds until the work is done."""
    def swept() -> bool:
        if predicate():
            return True
        _backdate_mail(world)
        with world.app.app_context():
            sweep_and_ring()
        time.sleep(1.0)
        return bool(predicate())

    wait_for(swept, what, timeout)


def test_redis_restarted_empty_with_work_queued(redis_world: FaultWorld, private_redis: PrivateRedis) -> None:
    world = redis_world
    client = world.app.test_client()
    table = start(client)  # invitations and start mail queued in Redis: no worker yet
    for seat in ("alice", "bob"):
        assert table.put(seat, "pass").status_code == 200  # round 1 ready, its doorbell queued
    private_redis.kill()
    private_redis.start()  # empty: the queued tasks are gone
    world.start_worker()
    assert world.steps(table.id) == [1], "the doorbells vanished with Redis"
    with world.app.app_context():
        assert sweep_and_ring()["rounds"] == 1
    assert_resolved_once(world, table)
    _sweep_until(world, lambda: world.stored_results(table.id, 1), "mail to be delivered again")
    _backdate_mail(world)
    with world.app.app_context():
        sweep_and_ring()
    _all_mail_delivered_once(world, [table.id])


def test_redis_down_while_players_submit(redis_world: FaultWorld, private_redis: PrivateRedis) -> None:
    """A running worker outlives a Redis restart; orders taken meanwhile are kept and resolved."""
    world = redis_world
    worker = world.start_worker()
    table = start(world.app.test_client())
    private_redis.kill()
    began = time.monotonic()
    for seat in ("alice", "bob"):
        r = table.put(seat, "pass")
        assert r.status_code == 200, "an order is acknowledged once it is committed, broker or not"
    took = time.monotonic() - began
    print(f"\nFIGURES redis down: two order submissions acknowledged in {took:.2f}s")
    assert took < 30, "a dead broker must not hold a request for long"
    private_redis.start()
    _sweep_until(world, lambda: world.steps(table.id) == [1, 2], "the worker to reconnect and resolve")
    assert worker.proc.poll() is None, "the worker reconnected instead of exiting"
    assert_resolved_once(world, table)
    _sweep_until(world, lambda: len(world.stored_results(table.id, 1)) == 2, "results mail")
    _all_mail_delivered_once(world, [table.id])
