"""Re-run a game record's steps through the engine and compare with what was recorded.

A record (format `dicepost-record/1`, see `engine.record`) holds what docs/dice-spec.md needs to
recompute every roll. `replay()` is the short answer of `engine.verify`'s full check
(dice and rules): the ruleset and the rules revision it ran under, one row a step and the
first difference. The step-by-step rules check
both use lives in `engine.stepcheck`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.record import RECORD_FORMAT
from engine.stepcheck import Difference, RecordError
from engine.verify import verify

__all__ = ["RECORD_FORMAT", "Difference", "RecordError", "ReplayReport", "StepCheck", "replay"]


@dataclass
class StepCheck:
    t: int
    rolls: int
    events: int
    state_hash: str
    ok: bool


@dataclass
class ReplayReport:
    ruleset: str = ""
    revision: int | None = None  # the rules revision the record's setup names
    steps: list[StepCheck] = field(default_factory=list)
    difference: Difference | None = None
    final_state: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        return self.difference is None


def replay(record: Mapping[str, Any]) -> ReplayReport:
    """Check a whole record (dice and rules) under its own rules revision; the first
    difference, if any."""
    result = verify(record)
    return ReplayReport(
        ruleset=result.ruleset,
        revision=result.revision,
        steps=[StepCheck(s.t, len(s.rolls), s.events or 0, s.state_hash, s.ok) for s in result.steps],
        difference=result.difference,
        final_state=result.final_state,
    )
