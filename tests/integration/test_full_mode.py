"""Full mode on this machine's PostgreSQL and Redis with a real `dicepost worker` process.

The web app runs in this process (doorbells go to Redis); rounds are resolved only by
the worker subprocess, on queues private to this test session.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import func, select

from engine import replay
from service import create_app
from service.db import engine_of, session_scope
from service.demo import play
from service.models import AuditLog, Step
from service.sweeper import sweep_and_ring
from tests.conftest import LiveServer, empty_tables, full_config
from tests.service.play import start, submit_without_doorbell

pytestmark = pytest.mark.slow


@pytest.fixture
def full_app(pg_url: str, redis_env: dict[str, str], worker: Any) -> Iterator[Flask]:
    app = create_app(full_config(pg_url, redis_env))
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


def _step_count(app: Flask, game_id: str) -> int:
    with session_scope(app) as s, s.begin():
        return int(s.scalar(select(func.count()).select_from(Step).where(Step.game_id == game_id)) or 0)


def test_whole_game_resolved_by_the_worker(full_app: Flask) -> None:
    server = LiveServer(full_app)
    try:
        result = play(server.url, "universal", seed="full-mode", players=2, max_rounds=100,
                      wait_seconds=60, progress=None)
    finally:
        server.stop()
    assert result.outcome is not None and len(result.outcome["winners"]) == 1
    assert replay(result.record).ok


def _resolve_results(worker: Any, ids: set[str] | None = None) -> dict[str, str]:
    """task id → what the worker logged it returned, for resolve_round tasks."""
    found = {}
    for m in re.finditer(r"resolve_round\[([0-9a-f-]+)\] succeeded in [0-9.e-]+s: (\w+)",
                         worker.log.read_text()):
        if ids is None or m.group(1) in ids:
            found[m.group(1)] = m.group(2)
    return found


def test_two_tasks_for_one_round_resolve_it_once(full_app: Flask, worker: Any) -> None:
    from worker.tasks import resolve_round

    client = full_app.test_client()
    table = start(client)
    submit_without_doorbell(table, {seat: table.bot(full_app, seat) for seat in ("alice", "bob")})
    assert _step_count(full_app, table.id) == 1
    queue = full_app.config["QUEUES"]["resolve"]
    before = _resolve_results(worker)
    with full_app.app_context():
        ids = {resolve_round.apply_async((table.id, 1), queue=queue).id for _ in range(2)}
    _wait(lambda: len(_resolve_results(worker, ids)) == 2, "both tasks to finish")
    assert sorted(_resolve_results(worker, ids).values()) == ["False", "True"]
    assert len(_resolve_results(worker)) == len(before) + 2
    assert _step_count(full_app, table.id) == 2
    with session_scope(full_app) as s, s.begin():
        resolved = s.scalars(select(AuditLog).where(AuditLog.game_id == table.id,
                                                    AuditLog.action == "resolved")).all()
        assert len(resolved) == 1


def test_lost_doorbell_rung_again_by_the_sweeper(full_app: Flask) -> None:
    client = full_app.test_client()
    table = start(client)
    submit_without_doorbell(table, {"alice": "pass", "bob": "pass"})
    time.sleep(1.0)
    assert _step_count(full_app, table.id) == 1, "no doorbell, no resolution"
    with full_app.app_context():
        assert sweep_and_ring()["rounds"] >= 1
    _wait(lambda: _step_count(full_app, table.id) == 2, "the sweeper's doorbell to be answered")
    assert table.status()["round"] == 2


def test_beat_rings_the_sweeper_by_itself(full_app: Flask, pg_url: str, redis_env: dict[str, str],
                                          tmp_path: Any) -> None:
    """`dicepost beat` (as docker-compose runs it) sweeps every DICEPOST_SWEEP_SECONDS."""
    import os
    import signal
    import subprocess

    from tests.conftest import ROOT, dicepost_command, full_env

    client = full_app.test_client()
    table = start(client)
    submit_without_doorbell(table, {"alice": "pass", "bob": "pass"})
    env = {**full_env(pg_url, redis_env), "DICEPOST_SWEEP_SECONDS": "1"}
    log = (tmp_path / "beat.log").open("wb")
    beat = subprocess.Popen([*dicepost_command(), "beat", "--schedule-file", str(tmp_path / "schedule")],
                            env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        _wait(lambda: _step_count(full_app, table.id) == 2, "beat's sweep to get the round resolved")
    finally:
        os.killpg(beat.pid, signal.SIGTERM)
        beat.wait(20)
        log.close()
    assert table.status()["round"] == 2
