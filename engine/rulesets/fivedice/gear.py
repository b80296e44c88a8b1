"""The gear catalogue (data/gear.json): weapons, armor, spells and items by name.

Sheets and states refer to gear by name only, so a state stays small and a change of
the catalogue shows up as a different name, not as silently different numbers.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any, Literal

# "The default for no armor is 5 and for no weapon 5 = 10. Everything else is slower."
NO_GEAR_SPEED = 5


@dataclass(frozen=True)
class Weapon:
    name: str
    speed: int
    reach: int
    bonus: int
    kind: Literal["melee", "ranged"]
    cost: int

    @property
    def ranged(self) -> bool:
        return self.kind == "ranged"


# What a unit fights with in melee when it wields nothing usable there (no weapon, or
# a ranged weapon at arm's length): bonus 0, reach 1, the no-weapon speed.
BARE_HANDS = Weapon("bare hands", NO_GEAR_SPEED, 1, 0, "melee", 0)


@dataclass(frozen=True)
class Armor:
    name: str
    speed: int
    bonus: int
    cost: int


@dataclass(frozen=True)
class Spell:
    name: str
    power: int  # added to the attack total in place of a weapon bonus
    range: int
    cost: int


@dataclass(frozen=True)
class Item:
    name: str
    heal: int
    cost: int


@dataclass(frozen=True)
class Catalogue:
    weapons: dict[str, Weapon]
    armor: dict[str, Armor]
    spells: dict[str, Spell]
    items: dict[str, Item]


def _int(entry: dict[str, Any], key: str, where: str) -> int:
    value = entry.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"gear.json: {where} needs a whole number {key}")
    return value


def build_catalogue(data: dict[str, Any]) -> Catalogue:
    """Check and type the raw catalogue; every gear speed must be slower than none."""
    weapons: dict[str, Weapon] = {}
    for name, w in data["weapons"].items():
        kind = w.get("kind")
        if kind not in ("melee", "ranged"):
            raise ValueError(f"gear.json: weapon {name} kind must be melee or ranged")
        weapons[name] = Weapon(name, _int(w, "speed", name), _int(w, "reach", name),
                               _int(w, "bonus", name), kind, _int(w, "cost", name))
    armor = {n: Armor(n, _int(a, "speed", n), _int(a, "bonus", n), _int(a, "cost", n))
             for n, a in data["armor"].items()}
    spells = {n: Spell(n, _int(s, "power", n), _int(s, "range", n), _int(s, "cost", n))
              for n, s in data["spells"].items()}
    items = {n: Item(n, _int(i, "heal", n), _int(i, "cost", n)) for n, i in data["items"].items()}
    speeds = [(w.name, w.speed) for w in weapons.values()] + [(a.name, a.speed) for a in armor.values()]
    for name, speed in speeds:
        if speed <= NO_GEAR_SPEED:
            raise ValueError(f"gear.json: {name} speed must be above {NO_GEAR_SPEED}")
    return Catalogue(weapons, armor, spells, items)


def _load() -> Catalogue:
    text = resources.files(__package__).joinpath("data/gear.json").read_text("utf-8")
    return build_catalogue(json.loads(text))


GEAR = _load()
