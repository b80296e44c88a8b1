"""The two decks as data: the items deck (what a search finds) and the henchmen deck
(where the end-of-round roll places a henchman).

Seed: "Scattered throughout the streets of Regal City are pipes, cars, guns, health
powerups, and the like. ... Flip the top card of the item deck" and "Flip the top card of
the Henchmen deck. This card tells you the position of where to place the Henchman."
Both decks are shuffled with the game's dice at setup and reshuffled from their
discards when spent.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from engine.rulesets.heroes.cards import DATA, CardError, need, read_json


@dataclass(frozen=True, slots=True)
class Item:
    """An items-deck card: "pipes, cars, guns, health powerups, and the like"."""

    id: str
    name: str
    effect: str  # stat, att, arm, dmg, heal, reach
    stat: str
    value: int
    uses: int | None  # attacks it lasts for (None: kept for good); heal is spent at once
    text: str


ITEM_EFFECTS = ("stat", "att", "arm", "dmg", "heal", "reach")


@cache
def items() -> dict[str, Item]:
    out: dict[str, Item] = {}
    for raw in read_json(DATA / "items.json"):
        where = f"items.json {raw.get('id')}"
        effect = need(raw, "effect", where, str)
        if effect not in ITEM_EFFECTS:
            raise CardError(f"{where}: effect must be one of {', '.join(ITEM_EFFECTS)}")
        item = Item(need(raw, "id", where, str), need(raw, "name", where, str), effect,
                    str(raw.get("stat", "")), int(raw.get("value", 0)), raw.get("uses"),
                    str(raw.get("text", "")))
        out[item.id] = item
    return out


@cache
def items_deck() -> tuple[str, ...]:
    """The item deck before shuffling: each item as many times as its `count`."""
    return tuple(raw["id"] for raw in read_json(DATA / "items.json")
                 for _ in range(int(raw.get("count", 1))))


@dataclass(frozen=True, slots=True)
class Placement:
    """A henchmen-deck card: where in the quadrant the henchman goes (on a 6×6 quadrant,
    scaled to the real one), which henchman, and the direction of its civvie."""

    henchman: str
    col: int
    row: int
    civvie: str


@cache
def henchmen_deck() -> tuple[Placement, ...]:
    out = []
    for i, raw in enumerate(read_json(DATA / "henchmen_deck.json")):
        where = f"henchmen_deck.json card {i + 1}"
        col, row = need(raw, "at", where, list)
        out.append(Placement(need(raw, "henchman", where, str), int(col), int(row),
                             need(raw, "civvie", where, str)))
    return tuple(out)
