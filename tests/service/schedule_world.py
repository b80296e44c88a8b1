"""A dicepost app on a temporary SQLite file with a FakeClock, driven through its HTTP API,
for the schedule and GM tests (no sleeping: time moves only by `world.advance`)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from service import create_app
from service.clock import FakeClock
from service.db import session_scope
from service.models import AuditLog, Game, Outbox, Round, Step
from tests.conftest import TEST_DOMAINS, empty_tables, migrated_sqlite

START = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


DATABASES = ["sqlite", "postgres"]  # fixtures take params=DATABASES and call database()


def database(request: pytest.FixtureRequest, tmp_path: Any) -> str:
    """The URL for a test parametrized over DATABASES: a fresh SQLite file, or the suite's PostgreSQL."""
    if request.param == "sqlite":
        return migrated_sqlite(Path(tmp_path) / "schedule.sqlite3")
    return str(request.getfixturevalue("pg_url"))


class World:
    def __init__(self, where: Any, start: datetime = START) -> None:
        """where: a migrated database's URL (`database`), or a directory for a fresh SQLite file."""
        url = (str(where) if str(where).startswith(("sqlite", "postgresql"))
               else migrated_sqlite(Path(where) / "schedule.sqlite3"))
        self.clock = FakeClock(start)
        self.app = create_app({"DATABASE_URL": url, "TESTING": True,
                               "WTF_CSRF_ENABLED": False, "CLOCK": self.clock, "SECRET_KEY": "test",
                               "BASE_URL": "http://dicepost.test", "CONFIRMED_DOMAINS": TEST_DOMAINS})
        if url.startswith("postgresql"):
            empty_tables(self.app)  # the session's database is migrated once
        self.client = self.app.test_client()
        self.game_id = ""
        self.gm_token = ""
        self.tokens: dict[str, str] = {}

    # --- setting up -------------------------------------------------------------------
    def start(self, policy: dict[str, Any] | None = None, seats: tuple[str, ...] = ("red", "blue"),
              ruleset: str = "universal", options: dict[str, Any] | None = None,
              public: bool = True) -> World:
        r = self.client.post("/api/games", json={
            "ruleset": ruleset, "options": options or {}, "public": public,
            "seats": [{"name": s, "email": f"{s}@example.org"} for s in seats]})
        assert r.status_code == 201, r.json
        self.game_id, self.gm_token = r.json["id"], r.json["gm_token"]
        if policy is not None:
            assert self.gm("PUT", "policy", policy).status_code == 200
        for seat in r.json["seats"]:
            j = self.client.post(f"/api/games/{self.game_id}/join", json={"invite_token": seat["invite_token"]})
            assert j.status_code == 200, j.json
            self.tokens[seat["name"]] = j.json["player_token"]
        return self

    # --- acting -----------------------------------------------------------------------
    def gm(self, method: str, path: str, body: dict[str, Any] | None = None, token: str | None = None) -> Any:
        url = f"/api/games/{self.game_id}/gm" + (f"/{path}" if path else "")
        headers = {"Authorization": f"Bearer {token or self.gm_token}"}
        return self.client.open(url, method=method, json=body, headers=headers)

    def submit(self, seat: str, text: str = "", number: int | None = None) -> Any:
        return self.client.put(f"/api/games/{self.game_id}/orders",
                               json={"round": number or self.round_number(), "orders": text},
                               headers={"Authorization": f"Bearer {self.tokens[seat]}"})

    def settings(self, seat: str, body: dict[str, Any] | None = None) -> Any:
        url = f"/api/games/{self.game_id}/settings"
        headers = {"Authorization": f"Bearer {self.tokens[seat]}"}
        if body is None:
            return self.client.get(url, headers=headers)
        return self.client.put(url, json=body, headers=headers)

    def advance(self, **kwargs: float) -> datetime:
        return self.clock.advance(timedelta(**kwargs))

    def sweep(self) -> dict[str, int]:
        from service.sweeper import sweep_and_ring

        with self.app.app_context():
            return sweep_and_ring()

    # --- reading ----------------------------------------------------------------------
    def game(self) -> Game:
        with session_scope(self.app) as s:
            game = s.get(Game, self.game_id)
            assert game is not None
            s.expunge(game)
            return game

    def round_number(self) -> int:
        return self.game().current_round

    def round(self, number: int | None = None) -> Round:
        with session_scope(self.app) as s:
            rnd = s.scalars(select(Round).where(Round.game_id == self.game_id,
                                                Round.number == (number or self.round_number()))).one()
            s.expunge(rnd)
            return rnd

    def deadline(self) -> datetime | None:
        return self.round().closes_at

    def steps(self) -> int:
        with session_scope(self.app) as s:
            return len(list(s.scalars(select(Step.id).where(Step.game_id == self.game_id))))

    def step_inputs(self, t: int) -> dict[str, Any]:
        with session_scope(self.app) as s:
            return s.scalars(select(Step.inputs).where(Step.game_id == self.game_id, Step.t == t)).one()

    def audit(self, action: str | None = None) -> list[AuditLog]:
        with session_scope(self.app) as s:
            q = select(AuditLog).where(AuditLog.game_id == self.game_id).order_by(AuditLog.id)
            if action:
                q = q.where(AuditLog.action == action)
            rows = list(s.scalars(q))
            s.expunge_all()
            return rows

    def outbox(self, kind: str) -> list[Outbox]:
        with session_scope(self.app) as s:
            rows = list(s.scalars(select(Outbox).where(Outbox.game_id == self.game_id, Outbox.kind == kind)
                                  .order_by(Outbox.id)))
            s.expunge_all()
            return rows

    def legal_order(self, seat: str) -> str:
        """One legal order line for the seat now (so a submission is visible in the step's inputs)."""
        from engine import find_ruleset

        with session_scope(self.app) as s:
            state = s.scalars(select(Step.state).where(Step.game_id == self.game_id)
                              .order_by(Step.t.desc()).limit(1)).one()
        ruleset = find_ruleset(self.game().ruleset)
        choices = ruleset.legal_orders(ruleset.load(state), seat)
        unit = sorted(choices)[0]
        return sorted(o.format() for o in choices[unit])[0]

    def sweep_twice_at_once(self) -> list[dict[str, int]]:
        """Two sweepers started together (threads released by a barrier), as beat and a
        second worker, or two embedded servers, would."""
        import threading

        barrier = threading.Barrier(2)
        results: list[dict[str, int]] = []

        def run() -> None:
            barrier.wait()
            results.append(self.sweep())

        threads = [threading.Thread(target=run) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(results) == 2, "a sweeper failed"
        return results
