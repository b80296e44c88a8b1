"""The combat sheet of one unit, its point cost, and reading one from force JSON.

"Add dice results to all other values on combat sheet": the sheet holds the values the
dice are added to (attack, initiative, defence), the skill level that decides how dice
may be shifted, movement and life points, and the unit's gear by name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.forcespec import Choice, Field, Names, Shape, Text, Whole
from engine.rulesets.fivedice.gear import GEAR, NO_GEAR_SPEED, Armor, Item, Spell, Weapon

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


STAT_DOCS = {"attack": "added to the attack die", "initiative": "added to the initiative die",
             "defence": "added to the defence die", "skill": "how far dice may be shifted",
             "movement": "squares a move (up to 3 x, paid with actions)", "life": "life points"}


def gear_line(gear: object) -> str:
    """What a weapon, spell or item does and costs, for the force builder."""
    if isinstance(gear, Weapon):
        return (f"{gear.kind}, +{gear.bonus} attack, reach {gear.reach}, speed {gear.speed}; "
                f"{gear.cost} points")
    if isinstance(gear, Spell):
        return f"+{gear.power} attack, range {gear.range}, costs the caster life; {gear.cost} points"
    if isinstance(gear, Item):
        return f"used instead of an action, heals {gear.heal} life, then it is gone; {gear.cost} points"
    return ""


def sheet_shape() -> Shape:
    """A custom sheet's fields in force JSON (the presets in data/roster.json too)."""
    def names(label: str, item: str, known: Mapping[str, object], most: int, unique: bool = True) -> Names:
        return Names(label, item, tuple(sorted(known)), most, unique=unique,
                     descriptions=tuple(gear_line(known[k]) for k in sorted(known)))

    return Shape("a sheet", (
        Field("name", Text("name", 30, 1, "what the player calls the unit"), "custom"),
        *(Field(stat, Whole(stat, low, high, f"{STAT_DOCS[stat]}; {per} points a point"),
                required=True)
          for stat, (low, high, per) in STATS.items()),
        Field("weapons", names("weapons", "weapon", GEAR.weapons, MAX_WEAPONS), []),
        Field("armor", Choice("armor", tuple(sorted(GEAR.armor)), fold=True), nullable=True),
        Field("spells", names("spells", "spell", GEAR.spells, MAX_SPELLS), []),
        Field("items", names("items", "item", GEAR.items, MAX_ITEMS, unique=False), []),
    ), example='{"preset": "knight"}', title_key="name")


def sheet_from(value: Mapping[str, Any]) -> Sheet:
    """The Sheet of a sheet sheet_shape() has read."""
    return Sheet(name=str(value["name"]), attack=value["attack"], initiative=value["initiative"],
                 defence=value["defence"], skill=value["skill"], movement=value["movement"],
                 life=value["life"], weapons=tuple(value["weapons"]), armor=value["armor"],
                 spells=tuple(value["spells"]), items=tuple(value["items"]))
