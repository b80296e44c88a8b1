"""Redis restarted empty (no persistence) with work queued, on a private redis-server.

What must hold afterwards: orders taken while Redis was down were acknowledged and kept;
the queued doorbells that vanished with Redis cost nothing, because the sweeper rings
again from the database; a worker that was running reconnects by itself; every round
resolves once and every mail is delivered once.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

import pytest

from service.config import celery_config
from service.db import engine_of
from service.models import Outbox
from service.sweeper import sweep_and_ring
from tests.conftest import empty_tables
from tests.faults.conftest import Faults, FaultWorld, PrivateRedis, make_world, wait_for, world_env
from tests.faults.test_doorbells import _all_mail_delivered_once, _backdate_mail
from tests.faults.test_worker_kill import assert_resolved_once
from tests.service.play import Table, start

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


GAMES = 24


def test_redis_shut_down_while_tasks_are_acknowledged(redis_world: FaultWorld, private_redis: PrivateRedis) -> None:
    """Redis goes away (SHUTDOWN NOSAVE, back empty 8 s later) while two workers are busy:
    tasks finish on a connection the worker has already closed, and their acknowledgement
    must not take the worker down. Every round resolves once, every mail goes out once."""
    world = redis_world
    client = world.app.test_client()
    tables = [start(client) for _ in range(GAMES)]  # invitations and start mail queued, no worker yet
    for table in tables:
        for seat in ("alice", "bob"):
            assert table.put(seat, "pass").status_code == 200  # every round 1 ready, doorbells queued
    queued = world.count(Outbox)
    workers = world.start_workers(2, concurrency=4)
    wait_for(lambda: world.count(Outbox, Outbox.status == "sent") >= queued // 4, "the workers to be busy", 120)
    stop = threading.Event()
    more: list[Table] = []

    def players() -> None:  # players keep playing throughout: new games, orders, mail
        own = world.app.test_client()
        while not stop.is_set():
            table = start(own)
            more.append(table)
            for seat in ("alice", "bob"):
                table.put(seat, "pass")

    load = threading.Thread(target=players, daemon=True)
    load.start()
    time.sleep(1.0)
    done_before = world.count(Outbox, Outbox.status == "sent")
    private_redis.shutdown()
    time.sleep(8)
    private_redis.start()  # empty: whatever was queued or unacknowledged is gone
    time.sleep(2.0)
    stop.set()
    load.join(60)
    tables += more
    print(f"\nFIGURES redis shutdown under load: {done_before} of {queued} mails sent when Redis stopped")
    ids = [t.id for t in tables]
    _sweep_until(world, lambda: all(world.steps(i) == [1, 2] for i in ids), "every round to resolve", 180)
    exits = [w.proc.poll() for w in workers]
    assert exits == [None, None], f"workers exited with {exits}:\n" + "\n".join(
        w.log.read_text()[-3000:] for w in workers if w.proc.poll() is not None)
    for w in workers:  # survived, not started again by dicepost worker's supervisor
        assert "Unrecoverable error" not in w.log.read_text(), w.log.read_text()[-3000:]
    for table in tables:
        assert world.resolved_audits(table.id) == 1, "each round resolved once"
    _sweep_until(world, lambda: world.count(Outbox, Outbox.status != "sent") == 0, "every mail", 180)
    _all_mail_delivered_once(world, ids)


@pytest.mark.parametrize("transport", ["redis", "service.broker:Transport"])
def test_acknowledging_on_a_closed_broker_connection(private_redis: PrivateRedis, transport: str) -> None:
    """What the worker does when it loses Redis: it closes the connection while a task taken
    on it is still running, then the task's late acknowledgement arrives. It must fail as a
    connection error (kombu logs "Couldn't ack"; Celery keeps its new connection), not as
    the AttributeError that Celery takes for unrecoverable and ends the worker on."""
    import redis
    from kombu import Connection, Queue

    config = celery_config(private_redis.url, "t_", "dicepost_b:", 30)
    assert config["broker_transport"] == "service.broker:Transport"
    connection = Connection(private_redis.url, transport=transport,
                            transport_options=config["broker_transport_options"])
    queue = Queue("t_resolve")
    with connection.Producer() as producer:
        producer.publish({"round": 1}, routing_key=queue.name, declare=[queue])
    taken: list = []
    connection.Consumer([queue], callbacks=[lambda body, message: taken.append(message)]).consume()
    connection.drain_events(timeout=5)
    [message] = taken
    connection_errors = connection.connection_errors
    connection.close()
    # The state of the reported traceback: the channel's Redis pools dropped (the first
    # thing its close() does) and none built again, so the acknowledgement has to build one.
    message.channel._disconnect_pools()
    if transport == "redis":
        with pytest.raises(AttributeError):
            message.ack_log_error(logging.getLogger(__name__), connection_errors)
        return
    with pytest.raises(redis.ConnectionError):
        message.ack()
    assert redis.ConnectionError in connection_errors
    message.ack_log_error(logging.getLogger(__name__), connection_errors)  # logged, not raised
