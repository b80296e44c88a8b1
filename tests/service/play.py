"""Helpers that drive the JSON API with Flask's test client, like a player would."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from flask import Flask
from sqlalchemy import func, select

from engine import Order, bot_orders, find_ruleset
from engine.dice import Dice
from engine.steps import run_setup, setup_inputs
from service.db import session_scope
from service.models import Base


@dataclass
class Table:
    """One game seen from the API: ids and the tokens handed out."""

    client: Any
    id: str = ""
    created: dict[str, Any] = field(default_factory=dict)
    tokens: dict[str, str] = field(default_factory=dict)

    def auth(self, seat: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[seat]}"}

    def status(self) -> dict[str, Any]:
        r = self.client.get(f"/api/games/{self.id}")
        assert r.status_code == 200, r.json
        return r.json  # type: ignore[no-any-return]

    def put(self, seat: str, orders: str, number: int | None = None) -> Any:
        return self.client.put(f"/api/games/{self.id}/orders", headers=self.auth(seat),
                               json={"round": self.status()["round"] if number is None else number, "orders": orders})

    def state(self, app: Flask) -> dict[str, Any]:
        from service.views import latest_step

        with session_scope(app) as s, s.begin():
            step = latest_step(s, self.id)
            assert step is not None
            return step.state

    def bot(self, app: Flask, seat: str, seed: str = "t") -> str:
        ruleset = find_ruleset(self.created["ruleset"], self.status()["revision"])
        return bot_orders(ruleset, ruleset.load(self.state(app)), seat, seed)


def create(client: Any, ruleset: str = "universal", seats: tuple[str, ...] = ("alice", "bob"),
           emails: bool = True, **extra: Any) -> Table:
    body = {"ruleset": ruleset, "title": "Test game",
            "seats": [{"name": s, **({"email": f"{s}@example.org"} if emails else {})} for s in seats],
            **extra}
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.json
    return Table(client, r.json["id"], {**r.json, "ruleset": ruleset})


def start(client: Any, ruleset: str = "universal", seats: tuple[str, ...] = ("alice", "bob"),
          **extra: Any) -> Table:
    table = create(client, ruleset, seats, **extra)
    for seat in table.created["seats"]:
        r = client.post(f"/api/games/{table.id}/join", json={"invite_token": seat["invite_token"]})
        assert r.status_code == 200, r.json
        table.tokens[seat["name"]] = r.json["player_token"]
    return table


def counts(app: Flask) -> dict[str, int]:
    """Rows in every table: to show that a refused request changed nothing."""
    with session_scope(app) as s, s.begin():
        return {t.name: int(s.scalar(select(func.count()).select_from(t)) or 0)
                for t in Base.metadata.sorted_tables}


@contextmanager
def doorbells_lost() -> Iterator[None]:
    """Work is recorded as usual but no task is sent: a lost doorbell, for the sweeper."""
    from service import tasks

    original = tasks.send
    tasks.send = lambda app, work: None
    try:
        yield
    finally:
        tasks.send = original


def submit_without_doorbell(table: Table, texts: dict[str, str]) -> None:
    with doorbells_lost():
        for seat, text in texts.items():
            r = table.put(seat, text)
            assert r.status_code == 200, r.json


def opening(ruleset_id: str) -> tuple[dict[str, list[Order]], dict[str, str], list[str]]:
    """A ruleset's opening with every seat's default force (seeded dice): red's legal
    orders, each piece's square, the ruleset's verbs."""
    rules = find_ruleset(ruleset_id)
    options = rules.options({})
    players = ["red", "blue"]
    inputs = setup_inputs(ruleset_id, {}, players,
                          {p: rules.default_force(i, options) for i, p in enumerate(players)},
                          rules.revision)
    state = rules.load(run_setup(inputs, Dice(b"\1" * 32, 1)).state)
    squares = {p.id: p.square for p in rules.board(state).pieces}
    return rules.legal_orders(state, "red"), squares, [v.name for v in rules.verbs]


def without_nonce(page: str | bytes) -> str:
    """A page's text with its Content-Security-Policy nonce taken out (each answer has its
    own), to compare two answers of one page."""
    text = page.decode() if isinstance(page, bytes) else page
    return re.sub(r' nonce="[^"]*"', "", text)
