"""The combat sheet of one unit, its point cost, and reading one from force JSON.

"Add dice results to all other values on combat sheet": the sheet holds the values the
dice are added to (attack, initiative, defence), the skill level that decides how dice
may be shifted, movement and life points, and the unit's gear by name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.rulesets.fivedice.gear import GEAR, NO_GEAR_SPEED, Armor

# stat → (lowest, highest, points per point). Our cost table: the seed has no point-buy.
STATS: dict[str, tuple[int, int, int]] = {
    "attack": (0, 10, 3),
    "initiative": (0, 10, 2),
    "defence": (0, 10, 3),
    "skill": (0, 5, 4),
    "movement": (1, 6, 2),
    "life": (1, 40, 1),
}
MAX_WEAPONS = 3
MAX_SPELLS = 3
MAX_ITEMS = 5
SHEET_KEYS = frozenset([*STATS, "weapons", "armor", "spells", "items", "name"])


@dataclass(frozen=True)
class Sheet:
    name: str  # the preset's name, or what the player called a custom sheet
    attack: int
    initiative: int
    defence: int
    skill: int
    movement: int
    life: int
    weapons: tuple[str, ...] = ()  # the first is wielded at the start
    armor: str | None = None
    spells: tuple[str, ...] = ()
    items: tuple[str, ...] = ()

    @property
    def cost(self) -> int:
        stats = sum(int(getattr(self, stat)) * per for stat, (_, _, per) in STATS.items())
        gear = sum(GEAR.weapons[w].cost for w in self.weapons)
        gear += GEAR.armor[self.armor].cost if self.armor else 0
        gear += sum(GEAR.spells[s].cost for s in self.spells)
        gear += sum(GEAR.items[i].cost for i in self.items)
        return stats + gear

    @property
    def ranged_weapons(self) -> tuple[str, ...]:
        return tuple(w for w in self.weapons if GEAR.weapons[w].ranged)

    @property
    def armor_gear(self) -> Armor | None:
        return GEAR.armor[self.armor] if self.armor else None

    @property
    def speed_penalty(self) -> int:
        """weapon speed + armor speed − 10, the slowest weapon carried counting (seed:
        'Take into account the slowest weapon and the slowest armor')."""
        weapon = max((GEAR.weapons[w].speed for w in self.weapons), default=NO_GEAR_SPEED)
        armor = GEAR.armor[self.armor].speed if self.armor else NO_GEAR_SPEED
        return weapon + armor - 2 * NO_GEAR_SPEED

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name, "attack": self.attack, "initiative": self.initiative,
            "defence": self.defence, "skill": self.skill, "movement": self.movement,
            "life": self.life, "weapons": list(self.weapons), "armor": self.armor,
            "spells": list(self.spells), "items": list(self.items),
        }

    @classmethod
    def from_json(cls, s: Mapping[str, Any]) -> Sheet:
        """A sheet as the state stores it (already checked when the force was read)."""
        return cls(str(s["name"]), int(s["attack"]), int(s["initiative"]), int(s["defence"]),
                   int(s["skill"]), int(s["movement"]), int(s["life"]), tuple(s["weapons"]),
                   s["armor"], tuple(s["spells"]), tuple(s["items"]))


def _names(data: Mapping[str, Any], key: str, known: Mapping[str, object], most: int,
           where: str, errors: list[str], unique: bool = True) -> tuple[str, ...]:
    raw = data.get(key, [])
    if not isinstance(raw, list) or not all(isinstance(n, str) for n in raw):
        errors.append(f"{where}: {key} must be a list of names")
        return ()
    names = tuple(n.lower() for n in raw)
    if len(names) > most:
        errors.append(f"{where}: at most {most} {key}")
    for n in names:
        if n not in known:
            errors.append(f"{where}: unknown {key[:-1]} {n!r} (known: {', '.join(sorted(known))})")
    if unique and len(set(names)) != len(names):
        errors.append(f"{where}: {key} are listed twice")
    return names


def read_sheet(data: Mapping[str, Any], where: str, errors: list[str]) -> Sheet | None:
    """A custom sheet from force JSON; appends every problem (naming `where`) to errors."""
    before = len(errors)
    for key in sorted(set(data) - SHEET_KEYS):
        errors.append(f"{where}: unknown field {key!r}")
    values: dict[str, int] = {}
    for stat, (low, high, _) in STATS.items():
        v = data.get(stat)
        if isinstance(v, bool) or not isinstance(v, int):
            errors.append(f"{where}: {stat} must be a whole number from {low} to {high}")
        elif not low <= v <= high:
            errors.append(f"{where}: {stat} {v} is outside {low} to {high}")
        else:
            values[stat] = v
    weapons = _names(data, "weapons", GEAR.weapons, MAX_WEAPONS, where, errors)
    spells = _names(data, "spells", GEAR.spells, MAX_SPELLS, where, errors)
    items = _names(data, "items", GEAR.items, MAX_ITEMS, where, errors, unique=False)
    armor = data.get("armor")
    if armor is not None and (not isinstance(armor, str) or armor.lower() not in GEAR.armor):
        errors.append(f"{where}: unknown armor {armor!r} (known: {', '.join(sorted(GEAR.armor))})")
    name = data.get("name", "custom")
    if not isinstance(name, str) or not 1 <= len(name) <= 30:
        errors.append(f"{where}: name must be text of 1 to 30 characters")
    if len(errors) > before:
        return None
    return Sheet(name=str(name), weapons=weapons, spells=spells, items=items,
                 armor=armor.lower() if isinstance(armor, str) else None, **values)
