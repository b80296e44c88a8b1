"""A whole game played by bots through the real stack: HTTP API → database → worker → pages.

The bots are HTTP clients like any player. They keep their own copy of the state by
re-running each revealed step with engine.steps and checking it against what the
server published (chain link, rolls, state hash), so a demo also verifies its dice.
"""

from __future__ import annotations

import json
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine import Dice, bot_orders, find_ruleset, run_round, run_setup, setup_revision, step_key
from engine.dice import PROFILE, H, chain_link_ok

NAMES = ("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi")


class DemoError(Exception):
    pass


@dataclass
class Client:
    base: str
    timeout: float = 30.0

    def call(self, method: str, path: str, body: Any = None, token: str | None = None,
             expect: tuple[int, ...] = (200, 201)) -> tuple[int, Any]:
        data = json.dumps(body).encode() if body is not None else None
        # An http(s) URL: play() refuses any other scheme (file:, say) before the first call.
        req = urllib.request.Request(self.base + path, data=data, method=method)  # noqa: S310
        if data is not None:
            req.add_header("Content-Type", "application/json")
        if token:
            req.add_header("Authorization", f"Bearer {token}")
        for _ in range(5):
            try:
                with urllib.request.urlopen(req, timeout=self.timeout) as resp:  # noqa: S310
                    status, raw = resp.status, resp.read()
            except urllib.error.HTTPError as exc:
                status, raw = exc.code, exc.read()
                if status == 429:  # too many refused requests: wait as told, then again
                    time.sleep(min(60.0, float(exc.headers.get("Retry-After") or 1)))
                    continue
            except (urllib.error.URLError, OSError) as exc:  # refused, unknown host, timed out
                reason = getattr(exc, "reason", None) or exc
                raise DemoError(f"cannot reach {self.base}: {reason}") from None
            break
        if status not in expect:
            raise DemoError(f"{method} {path} → {status}: {raw[:500].decode('utf-8', 'replace')}")
        ctype_json = raw[:1] in (b"{", b"[")
        return status, json.loads(raw) if ctype_json else raw.decode("utf-8", "replace")


@dataclass
class DemoResult:
    game_id: str
    rounds: int
    outcome: dict[str, Any] | None
    record: dict[str, Any]
    final_state: dict[str, Any]
    pages: int = 0
    log: list[str] = field(default_factory=list)
    gm_token: str = ""  # a private game is seen through its GM's page
    public: bool = False


def progress_bar(done: int, total: int, note: str) -> None:
    width = 30
    filled = min(width, width * done // max(total, 1))
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {note:<40}")
    sys.stderr.flush()


def play(base: str, ruleset_id: str, seed: str, players: int = 2, max_rounds: int = 100,
         wait_seconds: float = 120.0,
         progress: Callable[[int, int, str], None] | None = progress_bar,
         public: bool = False) -> DemoResult:
    """A whole game of bots through the HTTP API; the game is listed on the home page only
    when `public` (demo games would otherwise fill the list people look for games in)."""
    if not base.startswith(("http://", "https://")):
        raise DemoError(f"the server's URL must start with http:// or https://, not {base!r}")
    client = Client(base)
    ruleset = find_ruleset(ruleset_id)
    names = list(NAMES[:players])
    options: dict[str, Any] = {}
    if any(o.name == "max_rounds" for o in ruleset.info.options):
        options["max_rounds"] = max_rounds
    _, created = client.call("POST", "/api/games", {
        "ruleset": ruleset_id, "title": f"Demo: {ruleset.info.title}, seed {seed}",
        "seats": [{"name": n} for n in names], "options": options, "public": public})
    game_id = created["id"]
    gm = created["gm_token"]  # a private game's pages and record answer only to its own tokens
    tokens: dict[str, str] = {}
    for seat in created["seats"]:
        entropy = H(PROFILE, "demo-entropy", seed, seat["name"]).hex()
        _, joined = client.call("POST", f"/api/games/{game_id}/join",
                                {"invite_token": seat["invite_token"], "entropy": entropy})
        tokens[seat["name"]] = joined["player_token"]
    _, record = client.call("GET", f"/api/games/{game_id}/record", token=gm)
    if record["commitment"] != created["commitment"]:
        raise DemoError("the record's commitment differs from the one published at creation")
    salt = bytes.fromhex(record["salt"])
    profile = str(record["profile"])  # the game's dice profile, as the record names it
    setup = record["steps"][0]
    previous_key = bytes.fromhex(setup["key"])
    _check_link(previous_key, bytes.fromhex(record["commitment"]), 1, profile)
    result = run_setup(setup["inputs"], Dice(step_key(previous_key, salt, 1, setup["inputs"], profile),
                                             1, profile))
    _check_step(result.state_hash, result.rolls, setup, 1)
    revision = setup_revision(setup["inputs"])  # the server's: the bots play the game's rules
    ruleset = find_ruleset(ruleset_id, revision)
    state = result.state
    pages = 0
    number = 0
    while True:
        _, game = client.call("GET", f"/api/games/{game_id}", token=gm)
        client.call("GET", f"/games/{game_id}", token=gm)
        pages += 1
        if game["status"] == "finished":
            break
        number = game["round"]
        if progress:
            progress(number, max_rounds, f"round {number}")
        loaded = ruleset.load(state)
        for name in game["expected"]:
            text = bot_orders(ruleset, loaded, name, seed)
            client.call("PUT", f"/api/games/{game_id}/orders", {"round": number, "orders": text},
                        token=tokens[name])
        step = _wait_for_round(client, game_id, number, wait_seconds, gm)
        t = step["step"]
        key = bytes.fromhex(step["key"])
        _check_link(key, previous_key, t, profile)
        previous_key = key
        result = run_round(ruleset_id, state, step["inputs"], t,
                           Dice(step_key(key, salt, t, step["inputs"], profile), t, profile),
                           revision=revision)
        _check_step(result.state_hash, result.rolls, step, t)
        state = result.state
    _, record = client.call("GET", f"/api/games/{game_id}/record", token=gm)
    if progress:
        progress(max_rounds, max_rounds, "finished")
        sys.stderr.write("\n")
    return DemoResult(game_id, number, game["outcome"], record, state, pages, gm_token=gm, public=public)


def _wait_for_round(client: Client, game_id: str, number: int, wait_seconds: float, gm: str) -> Any:
    """Poll the game (always 200) until the round is past, then read the round once.

    Polling the round itself would answer 404 until it is resolved, and 404s count
    against the per-address budget of refused requests (service.ratelimit).
    """
    deadline = time.monotonic() + wait_seconds
    delay = 0.02
    while True:
        _, game = client.call("GET", f"/api/games/{game_id}", token=gm)
        if game["status"] == "finished" or (game["round"] or 0) > number:
            return client.call("GET", f"/api/games/{game_id}/rounds/{number}", token=gm)[1]
        if time.monotonic() > deadline:
            raise DemoError(f"round {number} was not resolved within {wait_seconds:g} s: "
                            "is a `dicepost worker` running?")
        time.sleep(delay)
        delay = min(delay * 2, 0.5)


def _check_link(key: bytes, previous: bytes, t: int, profile: str) -> None:
    if not chain_link_ok(key, previous, profile):
        raise DemoError(f"step {t}: H(S_{t}) is not S_{t - 1}: the revealed key does not check")


def _check_step(state_hash: str, rolls: list[Any], published: Any, t: int) -> None:
    if [(r["j"], r["n"], r["face"]) for r in rolls] != [
            (r["j"], r["n"], r["face"]) for r in published["rolls"]]:
        raise DemoError(f"step {t}: the published rolls differ from the recomputed ones")
    if state_hash != published["state_hash"]:
        raise DemoError(f"step {t}: state hash {published['state_hash']} differs from the "
                        f"recomputed {state_hash}")
