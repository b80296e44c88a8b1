"""Hypothesis state machine over the game lifecycle, through the JSON API (embedded mode).

Rules: create games, join seats (with good and bad invitations), submit orders (a bot's,
"pass", garbage, for a stale round, with a wrong token), the GM's resolve-now and
end-as-a-draw, the sweeper. A model keeps every acknowledged submission. Invariants
after every step: no 5xx; each game's steps run 1..n; an active game's open round follows
its latest step; every resolved round's inputs are, for each seat, the last order text
acknowledged to it in that round (or nothing / the bot's, for a seat with no order);
a refused request changed nothing.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    consumes,
    invariant,
    rule,
    run_state_machine_as_test,
)
from sqlalchemy import select

from engine import bot_orders, find_ruleset
from service import create_app
from service.db import engine_of, session_scope
from service.fairdice import input_text
from service.models import Game, Round, Seat, Step, Submission
from service.sweeper import sweep_and_ring
from tests.conftest import base_config, migrated_sqlite
from tests.service.play import counts

STATS = {"rounds checked": 0}


@dataclass
class GameModel:  # what the API told the test
    id: str
    gm_token: str
    invites: dict[str, str]
    tokens: dict[str, str] = field(default_factory=dict)
    acked: dict[int, dict[str, str]] = field(default_factory=dict)  # round -> seat -> accepted text
    checked: set[int] = field(default_factory=set)  # rounds whose inputs were checked


class Lifecycle(RuleBasedStateMachine):
    games = Bundle("games")

    def __init__(self) -> None:
        super().__init__()
        self.dir = tempfile.TemporaryDirectory(prefix="dicepost_machine_")
        self.app = create_app(base_config(migrated_sqlite(Path(self.dir.name) / "m.sqlite3"),
                                          PROPAGATE_EXCEPTIONS=False))
        self.client = self.app.test_client()
        self.models: dict[str, GameModel] = {}

    def teardown(self) -> None:
        engine_of(self.app).dispose()
        self.dir.cleanup()

    def _status(self, game: GameModel) -> dict[str, Any]:
        r = self.client.get(f"/api/games/{game.id}")
        assert r.status_code == 200, r.data
        return r.json  # type: ignore[no-any-return]

    @rule(target=games, seats=st.integers(2, 3), max_rounds=st.integers(1, 4), started=st.booleans())
    def create(self, seats: int, max_rounds: int, started: bool) -> GameModel:
        names = ["alice", "bob", "carol"][:seats]
        r = self.client.post("/api/games", json={"ruleset": "universal", "title": "machine",
                                                 "seats": [{"name": n} for n in names],
                                                 "options": {"max_rounds": max_rounds}})
        assert r.status_code == 201, r.json
        game = GameModel(r.json["id"], r.json["gm_token"], {s["name"]: s["invite_token"] for s in r.json["seats"]})
        self.models[game.id] = game
        if started:
            self.join_all(game)
        return game

    @rule(game=games, which=st.integers(0, 2), forged=st.booleans())
    def join(self, game: GameModel, which: int, forged: bool) -> None:
        names = list(game.invites)
        name = names[which % len(names)]
        before = counts(self.app)
        invite = game.invites[name] + ("x" if forged else "")
        r = self.client.post(f"/api/games/{game.id}/join", json={"invite_token": invite})
        if forged:
            assert r.status_code in (401, 404, 409, 422), r.json
            assert counts(self.app) == before
        elif name in game.tokens:
            assert r.status_code in (401, 409), r.json  # a seat is taken once
        else:
            assert r.status_code == 200, r.json
            game.tokens[name] = r.json["player_token"]

    def _expected_text(self, game: GameModel, seat: str) -> str:
        with session_scope(self.app) as s, s.begin():
            step = s.scalars(select(Step).where(Step.game_id == game.id).order_by(Step.t.desc()).limit(1)).one()
            state = step.state
        ruleset = find_ruleset("universal")
        return bot_orders(ruleset, ruleset.load(state), seat, "machine")

    @rule(game=games)
    def join_all(self, game: GameModel) -> None:
        for which in range(len(game.invites)):
            if list(game.invites)[which] not in game.tokens:
                self.join(game, which, False)

    @rule(game=games, which=st.integers(0, 2),
          kind=st.sampled_from(["bot", "pass", "garbage", "stale", "wrong_token"]))
    def submit(self, game: GameModel, which: int, kind: str) -> None:
        if not game.tokens:
            return
        names = sorted(game.tokens)
        seat = names[which % len(names)]
        status = self._status(game)
        number = status["round"] or 1
        text = {"bot": None, "pass": "pass", "garbage": "zz9 fly to the moon", "stale": "pass",
                "wrong_token": "pass"}[kind]
        if text is None:
            text = self._expected_text(game, seat) if status["status"] == "active" else "pass"
        token = game.tokens[seat] + ("x" if kind == "wrong_token" else "")
        before = counts(self.app)
        r = self.client.put(f"/api/games/{game.id}/orders", headers={"Authorization": f"Bearer {token}"},
                            json={"round": number - 1 if kind == "stale" else number, "orders": text})
        if r.status_code == 200:
            assert kind in ("bot", "pass") and status["status"] == "active" and seat in status["expected"]
            lines = r.json["accepted"]
            game.acked.setdefault(r.json["round"], {})[seat] = "\n".join(lines) if lines else "pass"
            return
        assert r.status_code < 500, r.data
        expected = {"wrong_token": 401, "garbage": 422, "stale": 409}.get(kind)
        if status["status"] != "active" or seat not in status["expected"]:
            assert r.status_code in (409, expected or 409), (kind, r.json)
        else:
            assert r.status_code == expected, (kind, status, r.json)
        assert counts(self.app) == before, "a refused submission changes nothing"

    @rule(game=games)
    def gm_resolve_now(self, game: GameModel) -> None:
        r = self.client.post(f"/api/games/{game.id}/gm/resolve",
                             headers={"Authorization": f"Bearer {game.gm_token}"})
        assert r.status_code in (200, 409), r.json

    @rule(game=consumes(games), draw=st.booleans())
    def gm_end_or_forget(self, game: GameModel, draw: bool) -> None:
        if draw:
            r = self.client.post(f"/api/games/{game.id}/gm/end",
                                 headers={"Authorization": f"Bearer {game.gm_token}"})
            assert r.status_code in (200, 409), r.json

    @rule()
    def sweep(self) -> None:
        with self.app.app_context():
            sweep_and_ring()

    @invariant()
    def steps_rounds_and_inputs_agree(self) -> None:
        for game in self.models.values():
            status = self._status(game)
            with session_scope(self.app) as s, s.begin():
                steps = {st_.t: st_ for st_ in s.scalars(select(Step).where(Step.game_id == game.id))}
                rounds = {r.number: r.status for r in s.scalars(select(Round).where(Round.game_id == game.id))}
                bots = {(n, name): acc for n, name, acc in s.execute(
                    select(Round.number, Seat.name, Submission.accepted).join(Submission, Submission.round_id == Round.id)
                    .join(Seat, Seat.id == Submission.seat_id)
                    .where(Round.game_id == game.id, Submission.source == "bot"))}
                assert sorted(steps) == list(range(1, len(steps) + 1)), sorted(steps)
                if status["status"] == "active":
                    assert status["round"] == max(steps) and rounds[status["round"]] in ("open", "ready")
                for number, round_status in rounds.items():
                    if round_status != "resolved" or number in game.checked:
                        continue
                    inputs = steps[number + 1].inputs
                    for seat, text in inputs.items():
                        acked = game.acked.get(number, {}).get(seat)
                        if acked is not None:  # as the game's dice profile writes it ("pass" is "")
                            assert text == input_text(s.get_one(Game, game.id), acked), (number, seat, text, acked)
                        else:
                            assert text in ("", bots.get((number, seat), "")), (number, seat, text)
                    game.checked.add(number)
                    STATS["rounds checked"] += 1


def test_lifecycle() -> None:
    STATS["rounds checked"] = 0
    run_state_machine_as_test(Lifecycle, settings=settings(
        max_examples=20, stateful_step_count=30, deadline=None, derandomize=True,
        suppress_health_check=list(HealthCheck)))
    print(f"\nFIGURES lifecycle machine: {STATS['rounds checked']} resolved rounds checked")
    assert STATS["rounds checked"] >= 10, "the machine resolved rounds and checked their inputs"
