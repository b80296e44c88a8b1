"""G games × P players submitting orders concurrently over HTTP, for `seconds`.

Every player is a thread with its own keep-alive connection. For each open round it
reads its legal orders (GET /api/games/<id>/orders), picks attacks first, else moves
to squares no other unit of its was sent to, and submits them (PUT .../orders). The
player whose order completes a round then polls GET /api/games/<id>/rounds/<n> until
the round is there: the time from that last order's answer to the round's answer is
the round's latency. A finished game is replaced by a new one. With `rate`, rounds are
opened on a schedule (rounds/s across all games) instead of as fast as they go.

A 422 (two lines of a player clash) is a refusal by design: the refused lines are
dropped and the rest sent again. Errors are everything else that is not a success.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from bench.client import Api
from bench.progress import Progress
from bench.watch import Watcher
from engine.bots import STRIKES

ROUND_TIMEOUT = 30.0


@dataclass(frozen=True)
class LoadSpec:
    games: int
    players: int
    seconds: float
    ruleset: str = "universal"
    options: dict[str, Any] = field(default_factory=dict)
    rate: float | None = None  # rounds/s over all games; None: as fast as they go
    emails: bool = True  # seats with addresses: confirmations and results go through the outbox


@dataclass
class Stats:
    lock: threading.Lock = field(default_factory=threading.Lock)
    submissions: int = 0
    refused: int = 0
    rounds: int = 0
    games_created: int = 0
    games_finished: int = 0
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def add(self, **counts: int) -> None:
        with self.lock:
            for k, v in counts.items():
                setattr(self, k, getattr(self, k) + v)

    def error(self, what: str) -> None:
        with self.lock:
            self.errors.append(what)


class Slot:
    """One game being played; replaced by a fresh game when it ends."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.cond = threading.Condition()
        self.turn = 0  # bumped each time a round opens
        self.game_id = ""
        self.tokens: list[str] = []
        self.names: list[str] = []
        self.round = 0
        self.expected: list[str] = []
        self.done = 0
        self.open_at = 0.0


class Load:
    def __init__(self, api: Api, watcher: Watcher, spec: LoadSpec) -> None:
        self.api = api
        self.watcher = watcher
        self.spec = spec
        self.stats = Stats()
        self.stop = threading.Event()
        self.deadline = 0.0
        self.interval = spec.games / spec.rate if spec.rate else 0.0
        self.slots = [Slot(i) for i in range(spec.games)]

    # -- games ----------------------------------------------------------------------
    def new_game(self, slot: Slot) -> None:
        slot.game_id, slot.names, slot.tokens = create_game(self.api, self.spec, slot.index)
        self.stats.add(games_created=1)
        self.refresh(slot)

    def refresh(self, slot: Slot) -> bool:
        """Read the game's open round; False when it is over."""
        # The bench's games are private: their pages open with a player's token.
        status, game = self.api.call("GET", f"/api/games/{slot.game_id}", token=slot.tokens[0])
        if status != 200:
            raise RuntimeError(f"game: {status} {game}")
        if game["status"] != "active":
            return False
        slot.round, slot.expected = int(game["round"]), list(game["expected"])
        return True

    # -- a player ---------------------------------------------------------------------
    def player(self, slot: Slot, seat: int) -> None:
        rng = random.Random(f"{slot.index}/{seat}")
        seen = 0
        while not self.stop.is_set():
            with slot.cond:
                while slot.turn == seen and not self.stop.is_set():
                    slot.cond.wait(0.2)
                if self.stop.is_set():
                    return
                seen = slot.turn
                game_id, token, number = slot.game_id, slot.tokens[seat], slot.round
                mine = slot.names[seat] in slot.expected
            if not mine:
                continue
            try:
                self.submit(game_id, token, number, rng)
            except Exception as exc:  # counted, then this seat still counts as done
                self.stats.error(f"submit: {exc!r}")
            finished_at = time.monotonic()
            with slot.cond:
                slot.done += 1
                last = slot.done == len(slot.expected)
            if last:
                self.close_round(slot, number, finished_at)

    def submit(self, game_id: str, token: str, number: int, rng: random.Random) -> None:
        def count(status: int) -> None:
            if time.monotonic() <= self.deadline:
                self.stats.add(submissions=int(status == 200), refused=int(status == 422))

        send_orders(self.api, game_id, token, number, rng, count)

    def close_round(self, slot: Slot, number: int, since: float) -> None:
        """The last order of a round is in: wait for the round, then open the next one."""
        try:
            seen_at = self.wait_resolved(slot.game_id, number, since, slot.tokens[0])
            if seen_at <= self.deadline:
                self.stats.add(rounds=1)
                with self.stats.lock:
                    self.stats.latencies.append(seen_at - since)
            if not self.refresh(slot):
                self.stats.add(games_finished=1)
                self.new_game(slot)
        except Exception as exc:
            self.stats.error(f"round: {exc!r}")
            self.stop.set()
            return
        if self.interval:
            slot.open_at += self.interval
            time.sleep(max(0.0, slot.open_at - time.monotonic()))
        self.open(slot)

    def wait_resolved(self, game_id: str, number: int, since: float, token: str) -> float:
        """When round `number` (step number + 1) was committed, confirmed by one GET."""
        seen = self.watcher.wait(game_id, number + 1, ROUND_TIMEOUT)
        if seen is None:
            raise RuntimeError(f"round {number} of {game_id} not resolved after {ROUND_TIMEOUT:.0f}s")
        status, body = self.api.call("GET", f"/api/games/{game_id}/rounds/{number}", token=token)
        if status != 200:
            raise RuntimeError(f"GET round {number} after its step was committed: {status} {body}")
        return seen

    def open(self, slot: Slot) -> None:
        with slot.cond:
            slot.done = 0
            slot.turn += 1
            slot.cond.notify_all()

    # -- the run --------------------------------------------------------------------
    def run(self, label: str) -> dict[str, Any]:
        setup = Progress(f"{label}: games", len(self.slots))
        for slot in self.slots:
            self.new_game(slot)
            setup.advance()
        setup.close()
        self.stats = Stats()
        threads = [threading.Thread(target=self.player, args=(slot, seat), daemon=True)
                   for slot in self.slots for seat in range(self.spec.players)]
        start = time.monotonic()
        self.deadline = start + self.spec.seconds
        requests0 = self.api.requests
        for i, slot in enumerate(self.slots):
            slot.open_at = start + self.interval * i / len(self.slots)
        for t in threads:
            t.start()
        for slot in self.slots:
            if self.interval:
                threading.Timer(max(0.0, slot.open_at - time.monotonic()), self.open, (slot,)).start()
            else:
                self.open(slot)
        bar = Progress(label, self.spec.seconds)
        while time.monotonic() < self.deadline and not self.stop.is_set():
            time.sleep(0.25)
            bar.update(time.monotonic() - start,
                       f"{self.stats.rounds} rounds, {len(self.stats.errors)} errors")
        elapsed = min(time.monotonic(), self.deadline) - start
        self.stop.set()
        bar.close(f"{self.stats.rounds} rounds, {len(self.stats.errors)} errors")
        for t in threads:
            t.join(ROUND_TIMEOUT + 5)
        return self.summary(elapsed, self.api.requests - requests0)

    def summary(self, elapsed: float, requests: int) -> dict[str, Any]:
        s = self.stats
        lat = sorted(s.latencies)
        return {
            "games": self.spec.games, "players": self.spec.players, "seconds": elapsed,
            "target_rounds_per_s": self.spec.rate,
            "submissions": s.submissions, "submissions_per_s": s.submissions / elapsed,
            "refused": s.refused, "rounds": s.rounds, "rounds_per_s": s.rounds / elapsed,
            "latency_ms": {f"p{q}": 1000 * percentile(lat, q) for q in (50, 95, 99)} if lat else {},
            "latency_max_ms": 1000 * lat[-1] if lat else None,
            "errors": len(s.errors), "error_samples": s.errors[:5],
            "games_finished": s.games_finished, "requests": requests,
            "requests_per_s": requests / elapsed, "reconnects": self.api.reconnects,
        }


def create_game(api: Api, spec: LoadSpec, index: int) -> tuple[str, list[str], list[str]]:
    """A game of spec.players seats, every seat joined: its id, the seats' names, their player tokens."""
    names = [f"p{i + 1}" for i in range(spec.players)]
    status, created = api.call("POST", "/api/games", {
        "ruleset": spec.ruleset, "title": f"bench {index}", "public": False, "options": spec.options,
        "seats": [{"name": n, **({"email": f"{n}.{index}@example.com"} if spec.emails else {})}
                  for n in names]})
    if status != 201:
        raise RuntimeError(f"create game: {status} {created}")
    tokens = []
    for seat in created["seats"]:
        status, joined = api.call("POST", f"/api/games/{created['id']}/join",
                                  {"invite_token": seat["invite_token"]})
        if status != 200:
            raise RuntimeError(f"join: {status} {joined}")
        tokens.append(joined["player_token"])
    return created["id"], names, tokens


class Caller(Protocol):
    """What send_orders needs of a client: bench.client.Api, or bench.history's in-process one."""

    def call(self, method: str, path: str, body: Any = None, token: str | None = None) -> tuple[int, Any]: ...


def send_orders(api: Caller, game_id: str, token: str, number: int | None, rng: random.Random,
                count: Callable[[int], None] = lambda status: None,
                pick: Callable[[dict[str, list[dict[str, Any]]], random.Random], list[str]] | None = None,
                ) -> tuple[int, list[str]]:
    """GET the player's legal orders, choose some (pick: bench.load.choose unless given), PUT
    them: the round and the lines accepted.

    number None: the open round the orders view names. A 422 names the refused lines:
    they are dropped and the rest sent again (four tries). count(status) is called with
    every PUT's answer.
    """
    status, view = api.call("GET", f"/api/games/{game_id}/orders", token=token)
    if status != 200:
        raise RuntimeError(f"GET orders: {status} {view}")
    number = int(view["round"]) if number is None else number
    lines = (pick or choose)(view["legal"], rng)
    for _ in range(4):
        status, body = api.call("PUT", f"/api/games/{game_id}/orders",
                                {"round": number, "orders": "\n".join(lines)}, token=token)
        count(status)
        if status == 200:
            return number, lines
        if status != 422:
            raise RuntimeError(f"PUT orders: {status} {body}")
        bad = {e.get("line") for e in body.get("errors", [])}
        lines = [ln for i, ln in enumerate(lines, start=1) if i not in bad] if bad - {None} else []
    raise RuntimeError("PUT orders: refused four times")


def percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile of an already sorted list."""
    rank = max(1, -(-len(sorted_values) * q // 100))
    return sorted_values[int(rank) - 1]


def choose(units: dict[str, list[dict[str, Any]]], rng: random.Random) -> list[str]:
    """One line per unit from the API's legal orders (values with a role): one strike
    (universal allows one a round), else a move to a square no other line takes."""
    lines: list[str] = []
    taken: set[str] = set()
    attacked = False
    for unit in sorted(units):
        choices = units[unit]
        attacks = [c["text"] for c in choices if c["role"] in STRIKES]
        moves = [c for c in choices if c["role"] == "move" and c["square"] not in taken]
        if attacks and not attacked:
            lines.append(rng.choice(attacks))
            attacked = True
        elif moves:
            pick = rng.choice(moves)
            lines.append(pick["text"])
            taken.add(pick["square"])
    return lines
