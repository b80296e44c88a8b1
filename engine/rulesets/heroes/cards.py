"""S.U.P.E.R. cards as data: heroes, nemeses and henchmen, with strike tables and (*) actions.

The cards live in data/ as JSON so a group can add a hero without touching code. Each
card says which of its values come from the seed (`from_seed`); every other value is
ours, chosen for balance, and docs/rulesets/heroes.md lists them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from engine.rulesets.heroes.rolloff import RollOff

DATA = Path(__file__).parent / "data"
STATS = ("S", "U", "P", "E", "R")
EFFECTS = ("flight", "extra_attack", "extra_damage", "reroll", "reduce_stat", "heal")

# The seed's generic strike table: "Weak Strike: 2 - 10 : Dmg 10 / Strong Strike: 11 - 19 :
# Dmg 15 / Critical : 20 : Dmg 17".
GENERIC_STRIKES: list[dict[str, Any]] = [
    {"name": "Weak Strike", "from": 2, "to": 10, "dmg": 10},
    {"name": "Strong Strike", "from": 11, "to": 19, "dmg": 15},
    {"name": "Critical", "from": 20, "to": 20, "dmg": 17},
]


class CardError(ValueError):
    """A data file with a missing or bad field; names the file and the field."""


@dataclass(frozen=True, slots=True)
class Strike:
    name: str
    low: int
    high: int
    dmg: int

    @property
    def critical(self) -> bool:
        return self.low == 20


@dataclass(frozen=True, slots=True)
class StarAction:
    """A (*) action: "anything from Flying to adding extra attacks, damage or even reducing
    a S.U.P.E.R. stat to 1!". uses None = "as much apart of our Hero as an arm or leg"."""

    id: str
    name: str
    effect: str
    value: int
    stat: str  # reduce_stat: which stat of the target drops to 1
    reach: int  # reduce_stat: target within this many squares
    uses: int | None
    text: str


@dataclass(frozen=True, slots=True)
class Card:
    id: str
    name: str
    code: str  # letters of unit ids: Z → Z1
    kind: str  # hero, nemesis, henchman
    stats: Mapping[str, int]
    att: int
    arm: int
    move_ap: int
    general_ap: int
    vitality: int
    ranged: bool  # attacks with R and also reaches the square 2 ahead
    strikes: tuple[Strike, ...]
    actions: tuple[StarAction, ...]
    nemesis: str
    from_seed: tuple[str, ...]
    text: str

    @property
    def weak(self) -> Strike:
        """The lowest row: what a free "Weak" strike does."""
        return self.strikes[0]

    @property
    def strong(self) -> Strike:
        """The highest row below the critical: used by totals of 20 and more."""
        return [s for s in self.strikes if not s.critical][-1]

    def strike_for(self, roll: RollOff) -> Strike | None:
        """The row a roll-off hits with; None when it misses.

        "Only natural rolls of a 20 can be used for Critical Hits. If the total including
        modifiers is higher than 20, a Strong Strike will be used." A total of exactly 20
        without a natural 20 is no critical either, so it also takes the strong row. A
        fail (a 1) or a total below the table's first row misses (our reading).
        """
        if roll.fail:
            return None
        if roll.critical:
            return next((s for s in self.strikes if s.critical), self.strong)
        total = roll.total
        if total >= 20:
            return self.strong
        return next((s for s in self.strikes if s.low <= total <= s.high), None)

    def action(self, action_id: str) -> StarAction | None:
        return next((a for a in self.actions if a.id == action_id), None)


def need(data: Mapping[str, Any], key: str, where: str, kind: type) -> Any:
    if key not in data:
        raise CardError(f"{where}: missing field {key!r}")
    value = data[key]
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise CardError(f"{where}: field {key!r} must be a whole number")
    if kind is not int and not isinstance(value, kind):
        raise CardError(f"{where}: field {key!r} must be {kind.__name__}")
    return value


def _strikes(raw: Any, where: str) -> tuple[Strike, ...]:
    rows = GENERIC_STRIKES if raw == "generic" else raw
    if not isinstance(rows, list) or not rows:
        raise CardError(f"{where}: strikes must be 'generic' or a list of rows")
    out = tuple(Strike(str(need(r, "name", where, str)), need(r, "from", where, int),
                       need(r, "to", where, int), need(r, "dmg", where, int)) for r in rows)
    if not any(s.critical for s in out) or out[0].critical:
        raise CardError(f"{where}: strikes need rows below 20 and a critical row at 20")
    return out


def _action(raw: Mapping[str, Any], where: str) -> StarAction:
    effect = need(raw, "effect", where, str)
    if effect not in EFFECTS:
        raise CardError(f"{where}: effect {effect!r} is not one of {', '.join(EFFECTS)}")
    uses = raw.get("uses", 1)  # one use unless the card says otherwise (docs/rulesets/heroes.md)
    if uses is not None and (isinstance(uses, bool) or not isinstance(uses, int) or uses < 1):
        raise CardError(f"{where}: uses must be a positive number or null (unlimited)")
    stat = str(raw.get("stat", ""))
    if effect == "reduce_stat" and stat not in STATS:
        raise CardError(f"{where}: reduce_stat needs a stat, one of {', '.join(STATS)}")
    return StarAction(need(raw, "id", where, str), need(raw, "name", where, str), effect,
                      int(raw.get("value", 0)), stat, int(raw.get("reach", 1)), uses,
                      str(raw.get("text", "")))


def parse_card(data: Mapping[str, Any], where: str) -> Card:
    ap = need(data, "AP", where, str)
    try:
        move_ap, general_ap = (int(x) for x in ap.split("-"))
    except ValueError:
        raise CardError(f"{where}: AP must be written X-Y, like 2-2") from None
    attack = str(data.get("attack", "melee"))
    if attack not in ("melee", "ranged"):
        raise CardError(f"{where}: attack must be melee or ranged")
    return Card(
        id=need(data, "id", where, str), name=need(data, "name", where, str),
        code=need(data, "code", where, str), kind=need(data, "kind", where, str),
        stats={s: need(data, s, where, int) for s in STATS},
        att=need(data, "ATT", where, int), arm=need(data, "ARM", where, int),
        move_ap=move_ap, general_ap=general_ap, vitality=need(data, "vitality", where, int),
        ranged=attack == "ranged", strikes=_strikes(data.get("strikes", "generic"), where),
        actions=tuple(_action(a, f"{where} action {i + 1}")
                      for i, a in enumerate(data.get("actions", []))),
        nemesis=str(data.get("nemesis", "")), from_seed=tuple(data.get("from_seed", [])),
        text=str(data.get("text", "")),
    )


def read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise CardError(f"{path.name}: not JSON ({exc})") from None


@cache
def heroes() -> dict[str, Card]:
    """Every hero card in data/heroes/, by id, in file-name order."""
    out: dict[str, Card] = {}
    for path in sorted((DATA / "heroes").glob("*.json")):
        card = parse_card(read_json(path), path.name)
        out[card.id] = card
    return out


@cache
def nemeses() -> dict[str, Card]:
    return {c["id"]: parse_card(c, f"nemeses.json {c.get('id')}")
            for c in read_json(DATA / "nemeses.json")}


@cache
def henchmen() -> dict[str, Card]:
    return {c["id"]: parse_card(c, f"henchmen.json {c.get('id')}")
            for c in read_json(DATA / "henchmen.json")}


@cache
def _all_cards() -> dict[str, Card]:
    return {**henchmen(), **nemeses(), **heroes()}


def card(card_id: str) -> Card:
    found = _all_cards().get(card_id)
    if found is None:
        raise CardError(f"no card {card_id!r}")
    return found


def card_line(card: Card) -> str:
    """A hero's S.U.P.E.R. card in one line, for the force builder's hero picker."""
    stats = ", ".join(f"{k} {v}" for k, v in card.stats.items())
    actions = " ".join(f"{a.name} ({'any number of times' if a.uses is None else _times(a.uses)}): {a.text}"
                       for a in card.actions)
    nemesis = f" Nemesis: {card_name(card.nemesis)}." if card.nemesis else ""
    return (f"{card.text} {stats}; ATT {card.att}, ARM {card.arm}; Movement A.P. {card.move_ap}, "
            f"General A.P. {card.general_ap}; Vitality {card.vitality}; "
            f"{'ranged' if card.ranged else 'close combat'}.{nemesis} (*) actions: {actions}").strip()


def _times(n: int) -> str:
    return "once a game" if n == 1 else f"{n} times a game"


def card_name(card_id: str) -> str:
    found = _all_cards().get(card_id)
    return found.name if found else card_id
