"""Pages and the record as a game's history grows: `python -m bench --only history`.

In-process (Flask's test client, no HTTP server, no Celery), on a private PostgreSQL
database: one universal game per size (2 × N units, forces as bench.forces builds them)
is played round after round through the service's own API, both players reading their
legal orders and sending moves only (no attacks, so no unit dies and the game runs as
long as asked), each ready round resolved by `service.resolution.resolve_round` as a worker
would. When the history reaches each mark (10, 50, 100 resolved rounds) the game page
(`GET /games/<id>`), the page of the round just resolved (`GET /games/<id>/rounds/<n>`)
and the record (`GET /api/games/<id>/record`) are each asked `repeat` times: the least
CPU time a call took (this process: the view, the templates, SQLAlchemy and psycopg,
Werkzeug's test client; PostgreSQL's own CPU is not in it) and its SQL statements.
The record's cost per round is the slope between marks. The submissions, the orders
views and the resolutions on the way are metered too (CPU ms and statements per call).
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bench.endpoints import Meter, catch_sends, metered_app
from bench.forces import Size, unit_size
from bench.load import send_orders
from bench.pgdb import private_database
from bench.progress import Progress

OTHER_RULESETS = ("jep1", "fivedice")


@dataclass(frozen=True)
class HistorySpec:
    marks: tuple[int, ...] = (10, 50, 100)  # resolved rounds at which the pages are measured
    units: tuple[int, ...] = (4, 16, 64)  # per side; a size the ruleset cannot field is reported
    repeat: int = 5  # calls of each page at each mark; the least CPU counts


class TestClientApi:
    """bench.client.Api's call() over Flask's test client, each call metered as `METHOD route`."""

    def __init__(self, client: Any, meter: Meter) -> None:
        self.client = client
        self.meter = meter

    def call(self, method: str, path: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        what = "orders" if path.endswith("/orders") else "join" if path.endswith("/join") else "game"
        name = f"{method} {what}"
        resp = self.meter.time(name, self.client.open, path, method=method, json=body, headers=headers)
        return resp.status_code, resp.get_json(silent=True)


def moves_only(units: dict[str, list[dict[str, Any]]], rng: random.Random) -> list[str]:
    """One move a unit to a square no other line takes (no strikes: every unit lives on)."""
    lines: list[str] = []
    taken: set[str] = set()
    for unit in sorted(units):
        moves = [c for c in units[unit] if c["role"] == "move" and c["square"] not in taken]
        if moves:
            pick = rng.choice(moves)
            lines.append(pick["text"])
            taken.add(pick["square"])
    return lines


def new_game(api: TestClientApi, size: Size, forces: dict[str, Any], title: str) -> tuple[str, list[str]]:
    """A universal game of the size's forces (seats with addresses), created and joined over
    the API: its id and the players' tokens."""
    seats = [{"name": p, "email": f"{p}@example.com", "force": forces[p]} for p in size.players]
    status, created = api.call("POST", "/api/games", {"ruleset": "universal", "title": title,
                                                      "options": size.options, "seats": seats})
    if status != 201:
        raise RuntimeError(f"create game: {status} {created}")
    gid = created["id"]
    tokens = [api.call("POST", f"/api/games/{gid}/join", {"invite_token": s["invite_token"]})[1]
              ["player_token"] for s in created["seats"]]
    return gid, tokens


def moves_round(app: Any, api: TestClientApi, gid: str, tokens: list[str], rng: random.Random,
                ready: list[tuple[str, int]], mail: list[int],
                resolve: Callable[..., Any] | None = None) -> bool:
    """Both players move (moves only), then the ready round is resolved as a worker would
    (`resolve(session, game_id, number)`, resolve_round unless given); its mail stays in the
    outbox (no page reads it). False, and nothing sent, when the game is over."""
    from service.db import session_scope
    from service.resolution import resolve_round

    game = api.call("GET", f"/api/games/{gid}")[1]
    if game["status"] != "active":
        return False
    for token in tokens:
        send_orders(api, gid, token, int(game["round"]), rng, pick=moves_only)
    with app.app_context():
        while ready:
            with session_scope() as session:
                (resolve or resolve_round)(session, *ready.pop())
    mail.clear()
    return True


def least_cpu(meter: Meter, client: Any, path: str, repeat: int) -> dict[str, Any]:
    """The least CPU ms of `repeat` GETs of path, its statements and the answer's bytes."""
    best, statements, size = float("inf"), 0, 0
    for _ in range(repeat):
        name = f"page {path}"
        before = meter.statements[name]
        start = time.process_time()
        resp = meter.time(name, client.get, path)
        best = min(best, time.process_time() - start)
        statements, size = meter.statements[name] - before, len(resp.data)
        if resp.status_code != 200:
            raise RuntimeError(f"GET {path}: {resp.status_code} {resp.data[:300]!r}")
    return {"cpu_ms": 1000 * best, "statements": statements, "bytes": size}


def refusals(units: int) -> dict[str, str]:
    """What the other rulesets say about 2 × units (empty: they field it)."""
    return {rid: unit_size(rid, units).refused for rid in OTHER_RULESETS if unit_size(rid, units).refused}


def play(units: int, spec: HistorySpec) -> dict[str, Any]:
    size = unit_size("universal", units)
    out: dict[str, Any] = {"ruleset": "universal", "size": size.label, "units": units,
                           "others_refuse": refusals(units)}
    if size.refused or size.forces is None:
        out["refused"] = size.refused
        return out
    from service import tasks

    send = tasks.send
    try:
        ready, mail = catch_sends()
        return _play(size, spec, out, ready, mail)
    finally:
        tasks.send = send  # the doorbell as it was (a test process goes on with it)


def _play(size: Size, spec: HistorySpec, out: dict[str, Any], ready: list[tuple[str, int]],
          mail: list[int]) -> dict[str, Any]:
    from service.db import engine_of
    from service.resolution import resolve_round

    units, forces = out["units"], size.forces or {}
    meter = Meter()
    marks: list[dict[str, Any]] = []
    with private_database(f"history{units}") as url:
        app = metered_app(url, meter)
        client = app.test_client()
        api = TestClientApi(client, meter)
        gid, tokens = new_game(api, size, forces, f"history {units}")
        rng = random.Random(units)
        bar = Progress(f"history: universal {size.label}", max(spec.marks))
        resolved = 0
        while resolved < max(spec.marks):
            if not moves_round(app, api, gid, tokens, rng, ready, mail,
                               lambda session, *at: meter.time("resolve", resolve_round, session, *at)):
                break
            resolved += 1
            bar.advance()
            if resolved in spec.marks:
                marks.append({"rounds": resolved,
                              "game page": least_cpu(meter, client, f"/games/{gid}", spec.repeat),
                              "round page": least_cpu(meter, client, f"/games/{gid}/rounds/{resolved}",
                                                      spec.repeat),
                              "record": least_cpu(meter, client, f"/api/games/{gid}/record", spec.repeat)})
        bar.close(f"{resolved} rounds")
        engine_of(app).dispose()
    out.update(rounds_played=resolved, marks=marks, slopes=record_slopes(marks),
               operations={k: {"calls": n, "cpu_ms": ms, "statements": st}
                           for k, n, ms, st in meter.rows() if not k.startswith("page ")})
    return out


def record_slopes(marks: list[dict[str, Any]]) -> list[dict[str, float]]:
    """The record's CPU ms per round of history between each pair of marks."""
    out = []
    for a, b in itertools.pairwise(marks):
        rounds = b["rounds"] - a["rounds"]
        out.append({"from": a["rounds"], "to": b["rounds"],
                    "ms_per_round": (b["record"]["cpu_ms"] - a["record"]["cpu_ms"]) / rounds,
                    "bytes_per_round": (b["record"]["bytes"] - a["record"]["bytes"]) / rounds})
    return out


def run(spec: HistorySpec) -> list[dict[str, Any]]:
    return [play(units, spec) for units in spec.units]
