"""Golden records: seeded bot games that pin what each revision of each ruleset does.

A golden file, `tests/golden/<ruleset>/r<revision>-<name>.json`, holds one self-played game
(dice v2, bots) played under that revision: per step its state hash and how many dice it
rolled, and the whole record to replay. `check` replays the record with today's code under
the revision it names and says what differs, naming the ruleset, the revision, the game, the
step and the difference; `dicepost verify`'s own check must pass as well. A change to what a
ruleset does for existing state fails it, until the author fixes the regression or adds a
revision (docs/rulesets/AUTHORING.md, "Revisions"). `write_new` makes the files of a revision
that has none and refuses to touch one that exists: a golden record is never edited.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.bots import BotKind
from engine.contract import RulesError
from engine.dice import PROFILE_V2, Dice
from engine.orders import OrderErrors
from engine.registry import find_ruleset
from engine.selfplay import play
from engine.stepcheck import compare_step, run_recorded_step
from engine.verify import verify

HERE = Path(__file__).resolve().parent
NAMES = ("alice", "bob", "carol", "dave")


@dataclass(frozen=True)
class Game:
    """One golden game of a ruleset: who plays, how, for how many rounds."""

    name: str
    players: tuple[str, ...]
    turn_mode: str
    rounds: int
    bots: Mapping[str, BotKind] = field(default_factory=dict)  # a seat not named: greedy
    server_made: tuple[str, ...] = ()


def games_of(ruleset_id: str) -> list[Game]:
    """The games every revision of a ruleset is pinned by: two seats taking turns at once,
    and the most seats it allows (up to 3) taking turns in seat order, one of them a random
    bot and one joined without entropy."""
    info = find_ruleset(ruleset_id).info
    most = max(2, min(info.max_players, 3))
    many = NAMES[:most]
    return [
        Game("2p-simultaneous", NAMES[:2], "simultaneous", 5),
        Game(f"{most}p-alternating", many, "alternating", 6, bots={many[1]: "random"},
             server_made=(many[-1],)),
    ]


def path_of(ruleset_id: str, revision: int, name: str, root: Path = HERE) -> Path:
    return root / ruleset_id / f"r{revision}-{name}.json"


def make(ruleset_id: str, revision: int, game: Game) -> dict[str, Any]:
    """The golden file of one game under one revision, played now."""
    played = play(ruleset_id, f"golden-{ruleset_id}-r{revision}-{game.name}", players=game.players,
                  options={"turn_mode": game.turn_mode, "max_rounds": game.rounds},
                  bots=game.bots, profile=PROFILE_V2, server_made=game.server_made,
                  revision=revision)
    return {
        "ruleset": ruleset_id,
        "revision": revision,
        "name": game.name,
        "players": list(game.players),
        "turn_mode": game.turn_mode,
        "steps": [{"t": r.t, "state_hash": r.state_hash, "rolls": len(r.rolls)} for r in played.results],
        "record": played.record,
    }


def dumps(golden: Mapping[str, Any]) -> str:
    """A golden file's text: one line a pinned step (easy to read in a review), the record
    compact on the last line."""
    head = {k: v for k, v in golden.items() if k not in ("steps", "record")}
    lines = ["{" + json.dumps(head, ensure_ascii=False)[1:-1] + ","]
    lines.append(' "steps": [')
    steps = golden["steps"]
    for i, step in enumerate(steps):
        lines.append("  " + json.dumps(step) + ("," if i < len(steps) - 1 else ""))
    lines.append(" ],")
    lines.append(' "record": ' + json.dumps(golden["record"], ensure_ascii=False, separators=(",", ":")))
    return "\n".join(lines) + "}\n"


def write_new(ruleset_id: str, revision: int | None = None, root: Path = HERE) -> list[Path]:
    """Write the golden files of a revision (None: the newest) that has none yet; refuse,
    writing nothing, when any of them exists (FileExistsError naming it)."""
    rules = find_ruleset(ruleset_id, revision)
    games = games_of(ruleset_id)
    paths = [path_of(ruleset_id, rules.revision, g.name, root) for g in games]
    for path in paths:
        if path.exists():
            raise FileExistsError(f"{path} exists: a golden record is never rewritten. A change to what "
                                  f"{ruleset_id} does is a new revision (docs/rulesets/AUTHORING.md)")
    for game, path in zip(games, paths, strict=True):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dumps(make(ruleset_id, rules.revision, game)), encoding="utf-8")
    return paths


def read(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def files(root: Path = HERE) -> list[Path]:
    return sorted(root.glob("*/r*-*.json"))


def check(golden: Mapping[str, Any]) -> list[str]:
    """Every way today's code differs from a golden game, each naming the ruleset, the
    revision, the game, the step and what differs; empty when it plays exactly as pinned."""
    ruleset, revision, name = golden["ruleset"], golden["revision"], golden["name"]
    where = f"{ruleset} revision {revision}, game {name}"
    record = golden["record"]
    problems: list[str] = []
    if record.get("ruleset") != ruleset or record.get("revision") != revision:
        problems.append(f"{where}: the record is of {record.get('ruleset')} revision "
                        f"{record.get('revision')}")
    pins: Sequence[Mapping[str, Any]] = golden["steps"]
    steps = record["steps"]
    if len(steps) != len(pins):
        problems.append(f"{where}: {len(pins)} steps pinned, the record has {len(steps)}")
    state: dict[str, Any] | None = None
    for pin, step in zip(pins, steps, strict=False):
        t = pin["t"]
        try:
            result = run_recorded_step(ruleset, state, step["inputs"], t,
                                       Dice(bytes.fromhex(step["step_key"]), t, record["profile"]),
                                       revision=revision)
        except (OrderErrors, RulesError, KeyError, ValueError, TypeError) as exc:
            problems.append(f"{where}, step {t}: the rules fail: {type(exc).__name__}: {exc}")
            break
        changed = []
        if result.state_hash != pin["state_hash"]:
            changed.append(f"state hash {result.state_hash}, pinned {pin['state_hash']}")
        if len(result.rolls) != pin["rolls"]:
            changed.append(f"{len(result.rolls)} dice rolled, pinned {pin['rolls']}")
        if changed:
            first = compare_step(t, result, step)
            detail = f" (first: {first.where}: now {first.expected}, recorded {first.found})" if first else ""
            problems.append(f"{where}, step {t}: " + "; ".join(changed) + detail)
            break  # the steps after it start from another state
        state = result.state
    if not problems:
        v = verify(record)
        if not v.ok:
            problems.append(f"{where}: dicepost verify fails at {v.difference}")
    return problems
