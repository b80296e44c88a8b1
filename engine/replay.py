"""Re-run a game record step by step and report the first thing that differs.

A record (format `dicepost-record/1`, written by the service) holds what DICE.md needs
to recompute every roll: the commitment S_0, each player's entropy, and per step its
inputs and revealed chain link S_t. Replay checks the chain, recomputes the salt and
each step key, re-runs the step through `engine.steps` (the same code that played it)
and compares every roll, every event and the state hash with what was recorded.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.contract import RulesError
from engine.dice import Dice, chain_link_ok, game_salt, step_key
from engine.orders import OrderErrors
from engine.record import RECORD_FORMAT
from engine.steps import StepResult, run_round, run_setup


class RecordError(RulesError):
    """A record that cannot even be read: missing fields, bad hex, wrong format."""


@dataclass(frozen=True)
class Difference:
    step: int
    where: str  # "chain", "salt", "roll 3", "events", "state_hash", "inputs", ...
    expected: str  # what recomputation gives
    found: str  # what the record says

    def __str__(self) -> str:
        return f"step {self.step}, {self.where}: expected {self.expected}, found {self.found}"


@dataclass
class StepCheck:
    t: int
    rolls: int
    events: int
    state_hash: str
    ok: bool


@dataclass
class ReplayReport:
    steps: list[StepCheck] = field(default_factory=list)
    difference: Difference | None = None
    final_state: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        return self.difference is None


def _hex(record: Mapping[str, Any], *path: str | int) -> bytes:
    node: Any = record
    for p in path:
        try:
            node = node[p]
        except (KeyError, IndexError, TypeError):
            raise RecordError(f"the record has no {'/'.join(map(str, path))}") from None
    try:
        return bytes.fromhex(str(node))
    except ValueError:
        raise RecordError(f"{'/'.join(map(str, path))} is not hex") from None


def replay(record: Mapping[str, Any]) -> ReplayReport:
    """Check a whole record; stops at the first difference."""
    if record.get("format") != RECORD_FORMAT:
        raise RecordError(f"not a {RECORD_FORMAT} record (format is {record.get('format')!r})")
    report = ReplayReport()
    steps = record.get("steps")
    if not isinstance(steps, list):
        raise RecordError("the record has no steps list")
    entropy = {str(p): bytes.fromhex(str(e)) for p, e in dict(record.get("entropy", {})).items()}
    salt = game_salt(str(record["game_id"]), entropy)
    if "salt" in record and record["salt"] != salt.hex():
        report.difference = Difference(0, "salt", salt.hex(), str(record["salt"]))
        return report
    previous = _hex(record, "commitment")
    state: dict[str, Any] | None = None
    for index, step in enumerate(steps):
        t = index + 1
        if step.get("t") != t:
            report.difference = Difference(t, "step number", str(t), str(step.get("t")))
            return report
        s_t = _hex(record, "steps", index, "key")
        if not chain_link_ok(s_t, previous):
            report.difference = Difference(t, "chain", f"H(S_{t}) = S_{t - 1} = {previous.hex()}",
                                           s_t.hex())
            return report
        previous = s_t
        dice = Dice(step_key(s_t, salt, t, step["inputs"]), t)
        try:
            result = _run(record, state, step["inputs"], t, dice)
        except (OrderErrors, RulesError, KeyError, ValueError, TypeError) as exc:
            report.difference = Difference(t, "replay", "the step to run", f"error: {exc}")
            return report
        diff = compare_step(t, result, step)
        report.steps.append(StepCheck(t, len(result.rolls), len(result.events), result.state_hash,
                                      diff is None))
        if diff:
            report.difference = diff
            return report
        state = result.state
    report.final_state = state
    return report


def _run(record: Mapping[str, Any], state: dict[str, Any] | None, inputs: Any, t: int,
         dice: Dice) -> StepResult:
    if t == 1:
        if inputs.get("ruleset") != record.get("ruleset"):
            raise RecordError("the setup names another ruleset than the record")
        return run_setup(inputs, dice)
    assert state is not None
    return run_round(str(record["ruleset"]), state, inputs, t, dice)


def compare_step(t: int, result: StepResult, step: Mapping[str, Any]) -> Difference | None:
    """The first difference between a recomputed step and the recorded one."""
    recorded = list(step.get("rolls", []))
    for j, roll in enumerate(result.rolls):
        if j >= len(recorded):
            return Difference(t, f"roll {j}", _roll_text(roll), "no such roll")
        got = recorded[j]
        for key in ("step", "j", "n", "face"):
            if got.get(key) != roll[key]:
                return Difference(t, f"roll {j} {key}", str(roll[key]), str(got.get(key)))
    if len(recorded) > len(result.rolls):
        return Difference(t, f"roll {len(result.rolls)}", "no more rolls",
                          _roll_text(recorded[len(result.rolls)]))
    if "events" in step and step["events"] != result.events:
        events = list(step["events"])
        for i, ev in enumerate(result.events):
            if i >= len(events) or events[i] != ev:
                found = events[i] if i < len(events) else "nothing"
                return Difference(t, f"event {i}", str(ev), str(found))
        extra = events[len(result.events)]
        return Difference(t, f"event {len(result.events)}", "nothing", str(extra))
    if step.get("state_hash") != result.state_hash:
        return Difference(t, "state_hash", result.state_hash, str(step.get("state_hash")))
    return None


def _roll_text(roll: Mapping[str, Any]) -> str:
    return f"d{roll.get('n')}={roll.get('face')} ({roll.get('label', '')})"
