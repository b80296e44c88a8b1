"""Corrupt or partial stored data (service.integrity), on SQLite and PostgreSQL.

A step whose state no longer loads, a game with a step missing: each operation that
needs the state answers 503 with an error naming the step and the problem, changes
nothing, and marks the game for its GM (once, however often it fails); the other
games, the sweeper and the worker go on; once the rows are repaired the game resumes.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import delete, select, update

from service import clock, resolution
from service.db import engine_of, session_scope
from service.models import Round, Step
from service.sweeper import sweep_and_ring
from tests.faults.conftest import ready_without_doorbell
from tests.service.play import Table, counts, start


def _break_state(app: Flask, game_id: str, t: int) -> dict[str, Any]:
    with session_scope(app) as s, s.begin():
        step = s.scalars(select(Step).where(Step.game_id == game_id, Step.t == t)).one()
        good = dict(step.state)
        s.execute(update(Step).where(Step.id == step.id).values(state={"units": "not a list", "round": "x"}))
    return good


def _repair_state(app: Flask, game_id: str, t: int, state: dict[str, Any]) -> None:
    with session_scope(app) as s, s.begin():
        s.execute(update(Step).where(Step.game_id == game_id, Step.t == t).values(state=state))


def _gm(table: Table) -> dict[str, Any]:
    r = table.client.get(f"/api/games/{table.id}/gm",
                         headers={"Authorization": f"Bearer {table.created['gm_token']}"})
    assert r.status_code == 200, r.json
    return r.json  # type: ignore[no-any-return]


def _round_status(app: Flask, game_id: str, number: int) -> str:
    with session_scope(app) as s, s.begin():
        return str(s.scalar(select(Round.status).where(Round.game_id == game_id, Round.number == number)))


def test_a_state_that_fails_to_load(app: Flask, client: Any) -> None:
    app.config["PROPAGATE_EXCEPTIONS"] = False  # what production answers, not the test's traceback
    broken, healthy = start(client), start(client)
    good = _break_state(app, broken.id, 1)
    before = counts(app)
    r = broken.put("alice", "pass")
    assert r.status_code == 503
    assert "step 1" in r.json["error"] and "does not load" in r.json["error"] and "GM" in r.json["error"]
    assert {k: v for k, v in counts(app).items() if k != "audit_log"} == \
           {k: v for k, v in before.items() if k != "audit_log"}, "nothing but the mark was written"
    r = client.get(f"/api/games/{broken.id}/orders", headers=broken.auth("bob"))
    assert r.status_code == 503 and "step 1" in r.json["error"]
    page = client.get(f"/games/{broken.id}")
    assert page.status_code == 503 and b"does not load" in page.data and b"<!doctype html>" in page.data.lower()
    assert client.get(f"/api/games/{broken.id}").status_code == 200, "the status needs no state"
    damaged = _gm(broken)["damaged"]
    assert len(damaged) == 1, damaged  # three failures, one mark
    assert "step 1" in damaged[0]["problem"]
    assert b"Damaged stored data" in client.get(f"/games/{broken.id}/gm/{broken.created['gm_token']}").data
    # The rest of the service is unaffected.
    for seat in ("alice", "bob"):
        assert healthy.put(seat, "pass").status_code == 200
    assert healthy.status()["round"] == 2 and _gm(healthy)["damaged"] == []
    assert client.get(f"/games/{healthy.id}").status_code == 200
    # Repaired, the game goes on.
    _repair_state(app, broken.id, 1, good)
    assert broken.put("alice", "pass").status_code == 200


def test_a_ready_round_with_a_damaged_state(app: Flask, client: Any) -> None:
    """The worker's resolution refuses and marks; the sweeper still serves the other games."""
    broken, healthy = start(client), start(client)
    ready_without_doorbell(broken)
    ready_without_doorbell(healthy)
    good = _break_state(app, broken.id, 1)
    with app.app_context(), session_scope(app) as s:
        assert resolution.resolve_round(s, broken.id, 1) is False
    assert _round_status(app, broken.id, 1) == "ready"
    with app.app_context():
        assert sweep_and_ring()["rounds"] == 2  # both rung; the healthy one resolves (eager tasks)
    assert _round_status(app, healthy.id, 1) == "resolved" and healthy.status()["round"] == 2
    assert _round_status(app, broken.id, 1) == "ready"
    assert len(_gm(broken)["damaged"]) == 1
    _repair_state(app, broken.id, 1, good)
    with app.app_context():
        assert sweep_and_ring()["rounds"] == 1
    assert _round_status(app, broken.id, 1) == "resolved" and broken.status()["round"] == 2


def test_a_damaged_round_is_passed_over_by_a_task_taking_rounds_along(app: Flask, client: Any) -> None:
    """A task taking ready rounds along (PostgreSQL) marks a damaged one once, leaves it
    ready and goes on to the next; that process does not take it along again."""
    broken, healthy = start(client), start(client)
    ready_without_doorbell(broken)
    ready_without_doorbell(healthy)
    good = _break_state(app, broken.id, 1)
    postgres = engine_of(app).dialect.name == "postgresql"
    try:
        with app.app_context(), session_scope(app) as s:
            # its own round (7) does not exist: the broken round is older, so it is tried first
            assert resolution.resolve_ready(s, healthy.id, 7, seconds=60) == (False, int(postgres))
            assert resolution.resolve_ready(s, healthy.id, 7, seconds=60) == (False, 0)
        assert _round_status(app, healthy.id, 1) == ("resolved" if postgres else "ready")
        assert _round_status(app, broken.id, 1) == "ready"
        assert len(_gm(broken)["damaged"]) == int(postgres)
        _repair_state(app, broken.id, 1, good)
        with app.app_context(), session_scope(app) as s:
            assert resolution.resolve_round(s, broken.id, 1) is True
    finally:
        resolution._damaged_extras.clear()


def test_a_missing_step(app: Flask, client: Any) -> None:
    app.config["PROPAGATE_EXCEPTIONS"] = False
    gap, tail, healthy = start(client), start(client), start(client)
    for table in (gap, tail):
        for seat in ("alice", "bob"):
            assert table.put(seat, "pass").status_code == 200
    with session_scope(app) as s, s.begin():
        s.execute(delete(Step).where(Step.game_id == gap.id, Step.t == 1))
        s.execute(delete(Step).where(Step.game_id == tail.id, Step.t == 2))
    r = client.get(f"/api/games/{gap.id}/record")
    assert r.status_code == 503 and "step 1 is missing" in r.json["error"]
    r = gap.put("alice", "pass")
    assert r.status_code == 503 and "step 1 is missing" in r.json["error"]
    r = tail.put("alice", "pass")
    assert r.status_code == 503 and "step 2 is missing" in r.json["error"]
    assert "step 1 is missing" in _gm(gap)["damaged"][0]["problem"]
    assert "step 2 is missing" in _gm(tail)["damaged"][0]["problem"]
    assert client.get(f"/api/games/{healthy.id}/record").status_code == 200
    for seat in ("alice", "bob"):
        assert healthy.put(seat, "pass").status_code == 200
    assert healthy.status()["round"] == 2


@pytest.mark.parametrize("damaged_first", [True, False])
def test_a_damaged_game_with_a_due_deadline_does_not_stop_the_sweep(app: Flask, client: Any,
                                                                    damaged_first: bool) -> None:
    """Both rounds close at their deadline (the missed seats hold, the bot plays them from
    the next round): the damaged game's round cannot resolve from its stored state, is left
    ready and marked for its GM, and the sweep goes on to resolve the healthy game's round."""
    policy = {"kind": "duration", "duration": "PT1H", "missed_turns": {"after": 1, "action": "bot"}}
    first, second = (start(client, deadline_policy=policy) for _ in range(2))
    broken, healthy = (first, second) if damaged_first else (second, first)
    _break_state(app, broken.id, 1)
    with session_scope(app) as s, s.begin():
        s.execute(update(Round).where(Round.game_id.in_([broken.id, healthy.id]))
                  .values(closes_at=clock.now() - timedelta(minutes=1)))
    with app.app_context():
        sweep_and_ring()
    assert _round_status(app, healthy.id, 1) == "resolved" and healthy.status()["round"] == 2
    assert _round_status(app, broken.id, 1) == "ready"
    assert "does not load" in _gm(broken)["damaged"][0]["problem"]
