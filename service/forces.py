"""A force as a join form needs it: checked by the ruleset's own `validate_force` (the one
check the API's join also runs), with every refusal placed at the field it is about, and
the running cost against the game's budget.

A form field is named by its path in the force JSON, joined with dots ("units.1.pw");
"" is the force as a whole (the budget, a field that is not the ruleset's).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.contract import Ruleset
from engine.forcespec import ForceCost, path_of


def field_name(path: tuple[str | int, ...]) -> str:
    return ".".join(str(p) for p in path)


@dataclass(frozen=True)
class ForceCheck:
    """Every reason a force is refused, each with its field, and what it costs."""

    refusals: list[tuple[str, str]] = field(default_factory=list)  # (field, sentence)
    cost: ForceCost | None = None
    malformed: str = ""  # not a force at all: the sentence, the only refusal

    @property
    def ok(self) -> bool:
        return not self.refusals

    @property
    def reasons(self) -> list[str]:
        return [sentence for _, sentence in self.refusals]

    def at(self, name: str) -> list[str]:
        """The refusals of one field (and of nothing deeper)."""
        return [sentence for f, sentence in self.refusals if f == name]

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "refusals": [{"field": f, "message": m} for f, m in self.refusals],
                "cost": self.cost.to_json() if self.cost else None}


def has_float(value: Any) -> bool:
    if isinstance(value, float):
        return True
    if isinstance(value, dict):
        return any(has_float(v) for v in value.values())
    if isinstance(value, list):
        return any(has_float(v) for v in value)
    return False


def check(ruleset: Ruleset[Any], force: Any, options: Mapping[str, Any],
          others: Mapping[str, Mapping[str, Any]] | None = None) -> ForceCheck:
    """The ruleset's verdict on `force` in a game with these (complete) options; with
    `others` (the forces the game's other seats hold, by seat name), what it takes that
    one of them holds where the rules have one of a thing (a hero card)."""
    why = ("a force is a JSON object" if not isinstance(force, dict) else
           "a force holds whole numbers only (no fractions: they are hashed into the dice inputs)"
           if has_float(force) else "")
    if why:
        return ForceCheck([("", why)], malformed=why)
    reasons = ruleset.validate_force(force, options)
    if not reasons and others:
        reasons = ruleset.force_clashes(force, others, options)
    return ForceCheck([(field_name(path_of(r)), str(r)) for r in reasons],
                      ruleset.force_cost(force, options))
