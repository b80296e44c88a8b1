"""The rules half of checking one recorded step, shared by `engine.verify` (which drives
it step by step after the dice half) and `engine.replay` (its short answer).

Run one recorded step through `engine.steps` (the same code that played it) and compare
every roll, every event and the state hash with what the record says. This module owns
these pieces so that neither of the two modules that use them imports the other's
internals: `engine.replay` imports `engine.verify`, never the other way round.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.contract import RulesError
from engine.dice import Dice, canonical
from engine.steps import StepResult, run_round, run_setup

__all__ = ["Difference", "RecordError", "compare_step", "run_recorded_step", "same_json",
           "show_json"]


class RecordError(RulesError):
    """A record that cannot even be read: not JSON, bad bytes, a setup for another game."""


@dataclass(frozen=True)
class Difference:
    step: int  # 0 for the record as a whole (format, players, salt, checksum)
    where: str  # "chain", "salt", "roll 3 face", "event 2", "state_hash", "inputs", ...
    expected: str  # what recomputation gives (or what the format asks for)
    found: str  # what the record says

    @property
    def place(self) -> str:
        return f"step {self.step}, {self.where}" if self.step else f"record, {self.where}"

    def __str__(self) -> str:
        return f"{self.place}: expected {self.expected}, found {self.found}"

    def to_json(self) -> dict[str, Any]:
        return {"step": self.step, "where": self.where, "expected": self.expected,
                "found": self.found}


def run_recorded_step(ruleset: str, state: dict[str, Any] | None, inputs: Any, t: int,
                      dice: Dice, *, revision: int) -> StepResult:
    """Run step t of a record under its rules revision (the one its setup names): setup
    for t = 1, else round t-1 from `state`."""
    if t == 1:
        if not isinstance(inputs, dict) or inputs.get("ruleset") != ruleset:
            raise RecordError("the setup names another ruleset than the record")
        return run_setup(inputs, dice)
    if state is None:
        raise RecordError(f"step {t} has no state to start from")
    return run_round(ruleset, state, inputs, t, dice, revision=revision)


def compare_step(t: int, result: StepResult, step: Mapping[str, Any]) -> Difference | None:
    """The first difference between a recomputed step and the recorded one.

    Values are compared by their canonical JSON, so `1` and `true` or `1.0` never pass
    for each other.
    """
    recorded = step.get("rolls")
    recorded = recorded if isinstance(recorded, list) else []
    for j, roll in enumerate(result.rolls):
        if j >= len(recorded):
            return Difference(t, f"roll {j}", _roll_text(roll), "no such roll")
        got = recorded[j]
        if not isinstance(got, dict):
            return Difference(t, f"roll {j}", _roll_text(roll), repr(got))
        for key in ("step", "j", "n", "face", "label"):
            if not same_json(got.get(key), roll[key]):
                return Difference(t, f"roll {j} {key}", show_json(roll[key]), show_json(got.get(key)))
    if len(recorded) > len(result.rolls):
        extra = recorded[len(result.rolls)]
        return Difference(t, f"roll {len(result.rolls)}", "no more rolls",
                          _roll_text(extra) if isinstance(extra, dict) else repr(extra))
    events = step.get("events")
    if not isinstance(events, list):
        return Difference(t, "events", "a list of events", show_json(events))
    for i, ev in enumerate(result.events):
        if i >= len(events):
            return Difference(t, f"event {i}", show_json(ev), "nothing")
        if not same_json(events[i], ev):
            return Difference(t, f"event {i}", show_json(ev), show_json(events[i]))
    if len(events) > len(result.events):
        return Difference(t, f"event {len(result.events)}", "nothing",
                          show_json(events[len(result.events)]))
    if step.get("state_hash") != result.state_hash:
        return Difference(t, "state_hash", result.state_hash, show_json(step.get("state_hash")))
    return None


def same_json(a: Any, b: Any) -> bool:
    """Equal as canonical JSON (so `1` and `true` never pass for each other)."""
    try:
        return canonical(a) == canonical(b)
    except (TypeError, ValueError):
        return False


def show_json(value: Any) -> str:
    """A value as a verifier prints it: text as is, anything else as canonical JSON."""
    if isinstance(value, str):
        return value
    try:
        return canonical(value).decode("utf-8")
    except (TypeError, ValueError):
        return repr(value)


def _roll_text(roll: Mapping[str, Any]) -> str:
    return f"d{roll.get('n')}={roll.get('face')} ({roll.get('label', '')})"
