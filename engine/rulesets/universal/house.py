"""House rules (docs/rulesets/universal.md: "System is very, very moddable ... You can add own properties as
well. Want unit that gain extra power during counterattack? Why don't you just make it").

A game may define its own unit types as data in the `unit_types` option:

    [{"name": "berserker", "cost": 2, "effects": {"power_counterattacking": 2}}, ...]

Each type has a name (lower-case letters, not a built-in type), a point cost (whole
points, paid on top of the unit-type slot's 1 or 3) and effects from EFFECTS, the only
ones the engine implements. The checked list is kept in the game's options, which the
setup step records and every state carries, so replays and verifiers play the same types.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.contract import OptionError

BUILT_IN = ("mortar", "runner", "support", "defender")
MAX_TYPES = 12
MAX_COST = 100
NAME = re.compile(r"[a-z][a-z_]{0,19}")
TYPE_KEYS = frozenset({"name", "cost", "effects", "doc"})

# effect → (lowest, highest, what it does). Bonuses are whole numbers; "steady" is 0 or 1.
EFFECTS: dict[str, tuple[int, int, str]] = {
    "power": (1, 10, "+N power"),
    "defence": (1, 20, "+N defence"),
    "endurance": (1, 20, "+N EP (and maximum EP)"),
    "movement": (1, 5, "+N squares of movement"),
    "power_attacking": (1, 10, "+N power when it attacks"),
    "power_counterattacking": (1, 10, "+N power when it counterattacks"),
    "defence_defending": (1, 20, "+N defence when it is attacked"),
    "defence_attacking": (1, 20, "+N defence against the counterattack to its own attack"),
    "min_range": (1, 52, "hits only enemies at least N squares away"),
    "max_range": (1, 52, "hits only enemies at most N squares away"),
    "support_dice": (1, 5, "+N dice when it adds its die to an ally's attack"),
    "defence_per_enemy": (1, 5, "+N defence per enemy adjacent to both attacker and it, "
                                "the attacker not counted"),
    "steady": (1, 1, "1: entering a square next to an enemy costs it 1, not 1.5"),
}
RANGE_EFFECTS = ("min_range", "max_range")


class UnitTypeError(OptionError):
    """A custom unit type the game refuses, named by the path of the bad field
    (`unit_types[1].effects.power`)."""


@dataclass(frozen=True)
class UnitType:
    name: str
    cost: int  # whole points
    effects: Mapping[str, int]
    doc: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "cost": self.cost, "effects": dict(self.effects)}
        if self.doc:
            out["doc"] = self.doc
        return out


def _whole(value: Any, low: int, high: int, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise UnitTypeError(where, f"must be a whole number from {low} to {high}, not {value!r}")
    if not low <= value <= high:
        raise UnitTypeError(where, f"must be from {low} to {high}, not {value}")
    return value


def parse_type(raw: Any, index: int, taken: set[str]) -> UnitType:
    where = f"unit_types[{index}]"
    if not isinstance(raw, Mapping):
        raise UnitTypeError(where, 'must be an object like {"name": "berserker", "cost": 1, '
                                   '"effects": {"power_counterattacking": 2}}')
    unknown = sorted(set(map(str, raw)) - TYPE_KEYS)
    if unknown:
        raise UnitTypeError(f"{where}.{unknown[0]}", "is not a field of a unit type "
                                                      "(fields: name, cost, effects, doc)")
    name = raw.get("name")
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise UnitTypeError(f"{where}.name", "must be 1 to 20 lower-case letters or _, starting "
                                             f"with a letter, not {name!r}")
    if name in BUILT_IN:
        raise UnitTypeError(f"{where}.name", f"{name} is a built-in unit type")
    if name in taken:
        raise UnitTypeError(f"{where}.name", f"{name} is defined twice")
    if "cost" not in raw:
        raise UnitTypeError(f"{where}.cost", "is missing (whole points on top of the type slot's "
                                             "1 or 3)")
    cost = _whole(raw["cost"], 0, MAX_COST, f"{where}.cost")
    doc = raw.get("doc", "")
    if not isinstance(doc, str) or len(doc) > 200:
        raise UnitTypeError(f"{where}.doc", "must be text of at most 200 characters")
    effects_raw = raw.get("effects")
    if not isinstance(effects_raw, Mapping) or not effects_raw:
        raise UnitTypeError(f"{where}.effects", "must be a non-empty object of effects "
                                                f"({', '.join(EFFECTS)})")
    effects: dict[str, int] = {}
    for key in sorted(map(str, effects_raw)):
        if key not in EFFECTS:
            raise UnitTypeError(f"{where}.effects.{key}",
                                f"is not an effect the engine implements ({', '.join(EFFECTS)})")
        low, high, _doc = EFFECTS[key]
        effects[key] = _whole(effects_raw[key], low, high, f"{where}.effects.{key}")
    if effects.get("min_range", 1) > effects.get("max_range", 52):
        raise UnitTypeError(f"{where}.effects.max_range",
                            f"must be at least min_range ({effects['min_range']})")
    return UnitType(name, cost, effects, doc)


def parse_types(value: Any) -> tuple[UnitType, ...]:
    if not isinstance(value, list):
        raise UnitTypeError("unit_types", 'must be a list of unit types like [{"name": '
                                          '"berserker", "cost": 1, "effects": {"power": 1}}]')
    if len(value) > MAX_TYPES:
        raise UnitTypeError("unit_types", f"at most {MAX_TYPES} unit types, not {len(value)}")
    taken: set[str] = set()
    out = []
    for i, raw in enumerate(value):
        t = parse_type(raw, i, taken)
        taken.add(t.name)
        out.append(t)
    return tuple(out)


def check_option(value: Any) -> list[dict[str, Any]]:
    """The `unit_types` option, checked and normalised (the same value checks again)."""
    return [t.to_json() for t in parse_types(value)]


def type_table(options: Mapping[str, Any]) -> dict[str, UnitType]:
    """The game's custom types by name, from options already checked."""
    return {t.name: t for t in parse_types(list(options.get("unit_types") or []))}
