"""Sizes for the engine bench: 2 players × N units, or N heroes, in each ruleset's force format.

Forces repeat the ruleset's default force until they hold N units (docs/rulesets/<id>.md),
with the points budget raised so that the size, not the budget, is what varies. A size a
ruleset cannot field is reported with the ruleset's own reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.registry import find_ruleset

# Budgets raised to each option's maximum: only the number of units changes.
BIG_BUDGET: dict[str, dict[str, Any]] = {
    "universal": {"budget": 1000},
    "jep1": {"points": 5000},
    "fivedice": {"points": 10000},
}
UNIT_SIZES = (4, 8, 16)
HERO_SIZES = (2, 4)  # heroes: one hero per player


@dataclass(frozen=True)
class Size:
    ruleset: str
    label: str  # "2×8 units", "4 heroes"
    players: tuple[str, ...]
    options: dict[str, Any] = field(default_factory=dict)
    forces: dict[str, dict[str, Any]] | None = None
    refused: str = ""  # why the ruleset cannot field it


def unit_size(ruleset_id: str, units: int) -> Size:
    ruleset = find_ruleset(ruleset_id)
    options = BIG_BUDGET.get(ruleset_id, {})
    opts = ruleset.options(options)
    players = ("alice", "bob")
    forces: dict[str, dict[str, Any]] = {}
    for seat, player in enumerate(players):
        base = list(ruleset.default_force(seat, opts)["units"])
        forces[player] = {"units": [base[i % len(base)] for i in range(units)]}
        reasons = ruleset.validate_force(forces[player], opts)
        if reasons:
            return Size(ruleset_id, f"2×{units} units", players, options, None, "; ".join(reasons))
    return Size(ruleset_id, f"2×{units} units", players, options, forces)


def hero_size(ruleset_id: str, heroes: int) -> Size:
    ruleset = find_ruleset(ruleset_id)
    if heroes > ruleset.info.max_players:
        return Size(ruleset_id, f"{heroes} heroes", (), refused=f"at most {ruleset.info.max_players} players")
    return Size(ruleset_id, f"{heroes} heroes", tuple(f"p{i + 1}" for i in range(heroes)))


def sizes(ruleset_id: str) -> list[Size]:
    """The bench sizes of a ruleset: heroes by hero count, the others by units per side."""
    if ruleset_id == "heroes":
        return [hero_size(ruleset_id, n) for n in HERO_SIZES]
    return [unit_size(ruleset_id, n) for n in UNIT_SIZES]
