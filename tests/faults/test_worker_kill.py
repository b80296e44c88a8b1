"""SIGKILL a worker in the middle of resolving a round, then restart it.

The pause point "resolve" (service.faults) holds the task after the step, the next
round and the outbox rows were written, before COMMIT. What must hold afterwards:
the round resolves once (one step 2, one 'resolved' audit row), round 2 opens once,
and each player gets one results mail for round 1, delivered once.
"""

from __future__ import annotations

import os
import re
import signal
import time

import pytest
from sqlalchemy import select

from service.db import session_scope
from service.models import Round
from service.sweeper import sweep_and_ring
from tests.faults.conftest import Faults, FaultWorld, wait_for
from tests.service.play import Table, start

pytestmark = pytest.mark.slow


def _ready_and_paused(world: FaultWorld, faults: Faults) -> tuple[Table, int]:
    """A game whose round 1 a worker is resolving, held at the pause point; the pid holding it."""
    table = start(world.app.test_client())
    faults.arm("resolve")
    for seat in ("alice", "bob"):
        assert table.put(seat, "pass").status_code == 200
    [pid] = faults.wait_paused("resolve")
    faults.disarm("resolve")  # the task that comes back must run through
    return table, pid


def _round_status(world: FaultWorld, game_id: str) -> dict[int, str]:
    """round number -> status; a round stored twice would fail here."""
    with session_scope(world.app) as s, s.begin():
        rows = [(r.number, r.status) for r in s.scalars(select(Round).where(Round.game_id == game_id))]
    assert len({n for n, _ in rows}) == len(rows), f"a round opened twice: {rows}"
    return dict(rows)


def assert_resolved_once(world: FaultWorld, table: Table) -> None:
    wait_for(lambda: world.steps(table.id) == [1, 2], "round 1 to be resolved", 60)
    assert world.resolved_audits(table.id) == 1
    assert _round_status(world, table.id) == {1: "resolved", 2: "open"}
    assert table.status()["round"] == 2
    mail = world.results_mail(table.id, 1)
    assert len(mail) == 2 and all(len(rows) == 1 for rows in mail.values()), mail
    wait_for(lambda: len(world.stored_results(table.id, 1)) == 2, "each player's results mail to be delivered", 60)
    with world.app.app_context():
        assert sweep_and_ring()["rounds"] == 0  # nothing left for the sweeper
    assert world.steps(table.id) == [1, 2]
    assert list(world.stored_results(table.id, 1).values()) == [1, 1], "one results mail per player, once"


def test_pool_child_killed_mid_resolution(fault_world: FaultWorld, faults: Faults) -> None:
    worker = fault_world.start_worker()
    table, pid = _ready_and_paused(fault_world, faults)
    assert pid != worker.proc.pid, "the task runs in a pool child"
    os.kill(pid, signal.SIGKILL)
    # task_reject_on_worker_lost: the main process puts the message back; another child takes it.
    assert_resolved_once(fault_world, table)
    log = worker.log.read_text()
    assert re.search(r"WorkerLostError|Worker exited prematurely|signal 9", log), log[-3000:]
    assert worker.proc.poll() is None, "the main process survives its child"


def test_main_process_killed_mid_resolution(fault_world: FaultWorld, faults: Faults) -> None:
    first = fault_world.start_worker()
    table, _pid = _ready_and_paused(fault_world, faults)
    fault_world.kill(first)  # the main process and its pool, as when the host dies
    # The open transaction died with its connection: nothing of the resolution was kept.
    wait_for(lambda: _round_status(fault_world, table.id) == {1: "ready"}, "the round to stay ready", 30)
    assert fault_world.steps(table.id) == [1] and fault_world.resolved_audits(table.id) == 0
    fault_world.start_worker()
    # The message the dead worker held comes back only after the visibility timeout (an
    # hour); the sweeper (beat) finds the ready round and rings again.
    with fault_world.app.app_context():
        assert sweep_and_ring()["rounds"] == 1
    assert_resolved_once(fault_world, table)


@pytest.fixture
def short_visibility_world(pg_url: str, redis_env: dict[str, str], faults: Faults, tmp_path) -> FaultWorld:
    from service.db import engine_of
    from tests.conftest import empty_tables
    from tests.faults.conftest import make_world, world_env

    env = world_env(pg_url, redis_env["REDIS_URL"], faults, DICEPOST_VISIBILITY_TIMEOUT="2")
    world = make_world(pg_url, env, tmp_path)
    empty_tables(world.app)
    yield world
    faults.release("resolve")
    for proc in world.workers:
        proc.stop()
    engine_of(world.app).dispose()


def test_a_task_outliving_the_visibility_timeout(short_visibility_world: FaultWorld, faults: Faults) -> None:
    """Redis hands the unacknowledged task to a second pool child while the first still runs."""
    world = short_visibility_world
    worker = world.start_worker(concurrency=2)
    table = start(world.app.test_client())
    faults.arm("resolve")
    for seat in ("alice", "bob"):
        assert table.put(seat, "pass").status_code == 200
    faults.wait_paused("resolve")

    def received_twice() -> bool:
        ids = re.findall(r"Task worker\.tasks\.resolve_round\[([0-9a-f-]+)\] received", worker.log.read_text())
        return len(ids) >= 2 and len(set(ids)) == 1

    wait_for(received_twice, "Redis to deliver the same task again after its visibility timeout", 45)
    assert world.steps(table.id) == [1], "the second delivery waits on the round lock"
    faults.release("resolve")
    wait_for(lambda: len(re.findall(r"resolve_round\[[0-9a-f-]+\] succeeded in [0-9.e-]+s: (True|False)",
                                    worker.log.read_text())) == 2, "both deliveries to finish", 60)
    results = re.findall(r"resolve_round\[[0-9a-f-]+\] succeeded in [0-9.e-]+s: (True|False)",
                         worker.log.read_text())
    assert sorted(results) == ["False", "True"]
    assert_resolved_once(world, table)


def test_the_celery_process_killed_alone_is_started_again(fault_world: FaultWorld) -> None:
    """`dicepost worker` watches the Celery worker it runs: killed on its own (as an
    unrecoverable error would end it), the worker is started again and takes the next
    round, without a restart from outside."""
    worker = fault_world.start_worker()

    def nodes() -> list[int]:
        return [int(pid) for pid in re.findall(r"dicepost-(\d+)@\S+ ready\.", worker.log.read_text())]

    [celery_pid] = nodes()
    os.kill(celery_pid, signal.SIGKILL)
    killed = time.monotonic()
    wait_for(lambda: len(nodes()) == 2, "the worker to be started again", 60)
    print(f"\nFIGURES Celery worker killed alone: ready again {time.monotonic() - killed:.1f} s later")
    assert worker.proc.poll() is None, "dicepost worker is still running"
    assert "exited with status -9; starting it again" in worker.log.read_text()
    table = start(fault_world.app.test_client())
    for seat in ("alice", "bob"):
        assert table.put(seat, "pass").status_code == 200
    assert_resolved_once(fault_world, table)
    worker.stop()
    assert worker.proc.returncode == 0, "a stop asked for ends the supervisor cleanly"
    assert all(not _alive(pid) for pid in nodes()), "no Celery process left behind"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
