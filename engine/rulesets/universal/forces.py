"""Point-buy armies (docs/rulesets/universal.md, step 3): what a player brings, what it costs,
why it is refused.

Costs are kept in half points so that "+13 and higher - 1.5 each" stays an integer
(state and records hold no floats). A force is JSON:

    {"units": [{"name": "Scout", "ep": 1, "pw": 2, "d": 5, "types": ["runner"]}, ...]}

`ep`, `pw` and `d` are the unit's stat line (EP/Pw/D, default 1/1/5); the Mortar's +3
power is a unit type, not bought power, so `pw` is what was paid for.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.contract import InvariantError
from engine.forcespec import Field, ForceSpec, Items, Names, Shape, Text, Whole

from .house import RANGE_EFFECTS, UnitType

UNIT_TYPES = ("mortar", "runner", "support", "defender")
BASE_EP, BASE_PW, BASE_D = 1, 1, 5
MAX_UNITS = 64
# Upper bounds keep a round's dice and a state's size small whatever the budget.
MAX_EP, MAX_PW, MAX_D = 30, 30, 60

# Half points.
BASIC_COST = 2  # "1/1/5 character - 1 point"
TYPE_COSTS = (2, 6)  # "1st unit type for character - 1 point", "2nd unit type ... - 3 points"
# "Defence: +2, +4, +6 - 1 each; +8, +9, +10, +11, +12 - 1 each; +13 and higher - 1.5 each"
DEFENCE_LEVELS = (2, 4, 6, 8, 9, 10, 11, 12)


@dataclass(frozen=True)
class UnitSpec:
    name: str
    ep: int
    pw: int
    d: int
    types: tuple[str, ...]
    extra_cost: int = 0  # half points: the custom types' own costs
    extra_ep: int = 0  # the custom types' endurance


def power_cost(bonus: int) -> int:
    """Half points for +bonus power: +1 → 1, +2/+3 → 2 each, +4..+6 → 3 each, +7.. → 4 each."""
    total = 0
    for level in range(1, bonus + 1):
        total += 1 if level == 1 else 2 if level <= 3 else 3 if level <= 6 else 4
    return 2 * total


def defence_cost(bonus: int) -> int | None:
    """Half points for +bonus defence, or None when that bonus is not a level one can buy."""
    if bonus == 0:
        return 0
    if bonus in DEFENCE_LEVELS:
        return 2 * (DEFENCE_LEVELS.index(bonus) + 1)
    if bonus > DEFENCE_LEVELS[-1]:
        return 2 * len(DEFENCE_LEVELS) + 3 * (bonus - DEFENCE_LEVELS[-1])
    return None


def health_cost(bonus: int) -> int:
    """Half points for +bonus EP: +1 = 2, then each = previous + bonus (+2 = 4, +3 = 7, +4 = 11)."""
    if bonus == 0:
        return 0
    return 2 * (bonus * (bonus + 1) // 2 + 1)


def types_cost(count: int) -> int:
    return sum(TYPE_COSTS[:count])


def unit_cost(spec: UnitSpec) -> int:
    """Half points for one unit; the spec must already be valid."""
    d = defence_cost(spec.d - BASE_D)
    if d is None:
        raise InvariantError(f"defence {spec.d} has no cost: validate the spec first")
    return (BASIC_COST + types_cost(len(spec.types)) + power_cost(spec.pw - BASE_PW) + d
            + health_cost(spec.ep - BASE_EP) + spec.extra_cost)


def points(half_points: int) -> str:
    """Half points as a player reads them: 3 → '1.5', 4 → '2'."""
    whole, half = divmod(half_points, 2)
    return f"{whole}.5" if half else str(whole)


# What each built-in type does, in the words of the rules page's glossary.
TYPE_DOCS = {"mortar": "+3 Power; hits only enemies more than 3 squares away",
             "runner": "moves 3 squares instead of 2",
             "support": "adds its die to an attack beside it without touching the enemy, at -1",
             "defender": "+2 defence for each enemy beside both it and its attacker"}


def type_line(name: str, custom: Mapping[str, UnitType]) -> str:
    """What a unit type does, for the force builder (a game's own type: its doc or effects,
    and its points on top of the type slot)."""
    if name in TYPE_DOCS:
        return TYPE_DOCS[name]
    t = custom[name]
    what = t.doc or ", ".join(f"{k} {v}" for k, v in t.effects.items())
    return f"{what}; {t.cost} more points" if t.cost else what


def force_spec(custom: Mapping[str, UnitType] | None = None) -> ForceSpec:
    """The force's fields; `custom` holds the game's own unit types, usable beside the
    built-in ones. Defence levels, clashing range types and the budget are checks."""
    custom = custom or {}
    known = (*UNIT_TYPES, *custom)

    def ranged_clash(unit: dict[str, Any]) -> list[str]:
        reasons = []
        if defence_cost(unit["d"] - BASE_D) is None:
            reasons.append(f"defence {unit['d']} (+{unit['d'] - BASE_D}) cannot be bought: defence "
                           f"comes in +2, +4, +6, +8, then every point from +9 (D 7, 9, 11, 13, 14, "
                           f"15, ...)")
        ranged = [t for t in unit["types"] if t == "mortar" or (
            t in custom and any(k in custom[t].effects for k in RANGE_EFFECTS))]
        if len(ranged) > 1:
            reasons.append(f"{' and '.join(ranged)} both set the attack range; a character can "
                           f"have only one of them")
        return reasons

    unit = Shape("a unit", (
        Field("name", Text("name", 40, doc="what the player calls the character"), ""),
        Field("ep", Whole("EP", BASE_EP, MAX_EP, "endurance: the hits it takes"), BASE_EP),
        Field("pw", Whole("Pw", BASE_PW, MAX_PW, "power, bought (a Mortar's +3 is its type's)"),
              BASE_PW),
        Field("d", Whole("D", BASE_D, MAX_D, "defence: 5, or 7, 9, 11, 13, then any from 14"),
              BASE_D),
        Field("types", Names("unit types", "unit type", known, 2,
                             "at most two: the first costs 1 point, the second 3",
                             example='["runner"]',
                             descriptions=tuple(type_line(t, custom) for t in known)), []),
    ), example='{"pw": 2, "types": ["runner"]}', title_key="name", check=ranged_clash)
    return ForceSpec(Shape("a force", (
        Field("units", Items("units", "unit", unit, MAX_UNITS), required=True),
    ), example='{"units": [...]}'), notes=("The army's cost must be within the game's budget.",))


def parse_force(force: Any, custom: Mapping[str, UnitType] | None = None
                ) -> tuple[list[UnitSpec], list[str]]:
    """The units of a force and every reason it is malformed (budget not checked)."""
    value, reasons = force_spec(custom).read(force)
    if reasons:
        return [], reasons
    custom = custom or {}
    specs = []
    for unit in value["units"]:
        types = tuple(unit["types"])
        extra_cost = sum(2 * custom[t].cost for t in types if t in custom)
        extra_ep = sum(custom[t].effects.get("endurance", 0) for t in types if t in custom)
        specs.append(UnitSpec(unit["name"], unit["ep"], unit["pw"], unit["d"], types, extra_cost,
                              extra_ep))
    return specs, []


def validate_force(force: Any, budget: int, custom: Mapping[str, UnitType] | None = None
                   ) -> list[str]:
    """Every reason the force is refused, including the exact cost when over budget."""
    specs, reasons = parse_force(force, custom)
    if reasons:
        return reasons
    costs = [unit_cost(s) for s in specs]
    total = sum(costs)
    if total > 2 * budget:
        detail = ", ".join(f"unit {i + 1} {points(c)}" for i, c in enumerate(costs))
        reasons.append(f"the army costs {points(total)} points, over the budget of {budget} "
                       f"({detail})")
    return reasons


def default_force() -> dict[str, Any]:
    """Eight characters costing 19 points: a bit of every unit type."""
    return {"units": [
        {"name": "Mortar", "types": ["mortar"]},
        {"name": "Mortar", "types": ["mortar"]},
        {"name": "Runner", "pw": 2, "types": ["runner"]},
        {"name": "Runner", "pw": 2, "types": ["runner"]},
        {"name": "Fighter", "pw": 2},
        {"name": "Fighter", "pw": 2},
        {"name": "Support", "types": ["support"]},
        {"name": "Defender", "d": 7, "types": ["defender"]},
    ]}


def balance_armies() -> dict[str, dict[str, Any]]:
    """The default army and one army per unit type, each within the default 20 points."""

    def army(name: str, unit: dict[str, Any], count: int) -> dict[str, Any]:
        return {"units": [{"name": name, **unit} for _ in range(count)]}

    return {
        "mixed": default_force(),
        "mortars": army("Mortar", {"types": ["mortar"]}, 10),  # 2 points each
        "runners": army("Runner", {"pw": 2, "types": ["runner"]}, 6),  # 3 points each
        "supports": army("Support", {"pw": 2, "types": ["support"]}, 6),
        "defenders": army("Defender", {"d": 7, "types": ["defender"]}, 6),
        "fighters": army("Fighter", {"pw": 2}, 10),
    }
