"""The Heroes United game state: figures on the city, the decks, the race. JSON in and out.

Copying rebuilds the figure records (no deepcopy), so a resolve stays cheap.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.contract import InvariantError, StateError
from engine.grid import Square, parse_square, square_name
from engine.rulesets.heroes.cards import STATS, Card, card
from engine.rulesets.heroes.decks import items

STATE_FORMAT = "heroes/1"
KINDS = ("hero", "henchman", "civvie", "nemesis")
COUNTED = ("henchman", "civvie")  # the kinds whose ids new_id() hands out


@dataclass(slots=True)
class Figure:
    id: str
    kind: str  # hero, henchman, civvie, nemesis
    card: str  # card id ("" for a civvie)
    square: Square
    facing: str = "n"
    vitality: int = 0
    owner: str | None = None  # a hero's player; for a nemesis, the player whose hero it hunts
    start: Square | None = None  # a hero's start corner
    saved: int = 0
    captured: bool = False  # a hero's own nemesis is captured
    misses: int = 0  # the round a knocked-out hero sits out (0: none)
    policy: str = "auto"  # a hero's standing re-roll policy
    used: dict[str, int] = field(default_factory=dict)  # (*) action id → times used
    items: list[list[Any]] = field(default_factory=list)  # [item id, uses left or None]
    effects: dict[str, int] = field(default_factory=dict)  # this turn's (*) effects
    reduced: list[str] = field(default_factory=list)  # stats at 1 until the end of the round

    @property
    def spec(self) -> Card:
        return card(self.card)

    def stat(self, name: str) -> int:
        if name in self.reduced:
            return 1
        if not self.items:
            return self.spec.stats[name]
        bonus = sum(items()[i].value for i, _ in self.items
                    if items()[i].effect == "stat" and items()[i].stat == name)
        return self.spec.stats[name] + bonus

    def item_total(self, effect: str) -> int:
        if not self.items:  # most figures carry nothing: no generator to run
            return 0
        return sum(items()[i].value for i, _ in self.items if items()[i].effect == effect)

    def has_item(self, effect: str) -> bool:
        if not self.items:
            return False
        return any(items()[i].effect == effect for i, _ in self.items)

    @property
    def active(self) -> bool:
        """On the board and fighting: not a civvie, not down, not sitting out."""
        return self.kind != "civvie" and self.vitality > 0

    def copy(self) -> Figure:
        return Figure(self.id, self.kind, self.card, self.square, self.facing, self.vitality,
                      self.owner, self.start, self.saved, self.captured, self.misses,
                      self.policy, dict(self.used), [list(i) for i in self.items],
                      dict(self.effects), list(self.reduced))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "kind": self.kind, "card": self.card,
                               "square": square_name(self.square), "facing": self.facing,
                               "vitality": self.vitality, "owner": self.owner}
        if self.kind == "hero":
            if self.start is None:
                raise InvariantError(f"hero {self.id} has no starting square")
            out.update(start=square_name(self.start), saved=self.saved, captured=self.captured,
                       misses=self.misses, policy=self.policy, used=dict(self.used),
                       items=[list(i) for i in self.items])
        if self.effects:
            out["effects"] = dict(self.effects)
        if self.reduced:
            out["reduced"] = list(self.reduced)
        return out

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Figure:
        kind = str(d["kind"])
        if kind not in KINDS:
            raise ValueError(f"figure {d.get('id')!r}: kind {kind!r} is not one of {KINDS}")
        reduced = [str(s) for s in d.get("reduced", [])]
        if any(s not in STATS for s in reduced):
            raise ValueError(f"figure {d.get('id')!r}: bad reduced stats {reduced}")
        return cls(
            str(d["id"]), kind, str(d["card"]), parse_square(str(d["square"])),
            str(d.get("facing", "n")), int(d["vitality"]),
            None if d.get("owner") is None else str(d["owner"]),
            parse_square(str(d["start"])) if d.get("start") else None,
            int(d.get("saved", 0)), bool(d.get("captured", False)), int(d.get("misses", 0)),
            str(d.get("policy", "auto")), {str(k): int(v) for k, v in d.get("used", {}).items()},
            [[str(i), None if u is None else int(u)] for i, u in d.get("items", [])],
            {str(k): int(v) for k, v in d.get("effects", {}).items()}, reduced,
        )


@dataclass(slots=True)
class HeroesState:
    options: dict[str, Any]
    seats: list[str]
    heroes: dict[str, str]  # player → their hero's figure id
    villain: str | None  # the player running henchmen and nemeses, if any
    order: list[str]  # turn order of hero players, fixed by the roll-off + P at setup
    round: int
    roofs: frozenset[Square]
    figures: dict[str, Figure]
    counters: dict[str, int]  # unit-id letter → last number used (H, C)
    henchmen_deck: list[int]  # indexes into decks.henchmen_deck(), top first
    henchmen_discard: list[int]
    items_deck: list[str]  # item ids, top first
    items_discard: list[str]
    winner: str | None = None
    end_reason: str = ""
    marks: list[dict[str, Any]] = field(default_factory=list)

    def copy(self) -> HeroesState:
        return HeroesState(dict(self.options), list(self.seats), dict(self.heroes), self.villain,
                           list(self.order), self.round, self.roofs,
                           {k: f.copy() for k, f in self.figures.items()}, dict(self.counters),
                           list(self.henchmen_deck), list(self.henchmen_discard),
                           list(self.items_deck), list(self.items_discard), self.winner,
                           self.end_reason, list(self.marks))

    @property
    def width(self) -> int:
        return int(self.options["width"])

    @property
    def height(self) -> int:
        return int(self.options["height"])

    # -- the game turn ---------------------------------------------------------------
    # Simultaneous: an engine round is a whole game turn, every hero in turn order.
    # Alternating: an engine round is one seat's "turn" ("At the end of the last player's
    # turn, perform a Henchmen & Civvies roll"): the heroes in turn order, then the villain
    # player if any; a game turn is one pass round that cycle.
    @property
    def alternating(self) -> bool:
        return bool(self.options["turn_mode"] == "alternating")

    def cycle(self) -> list[str]:
        return self.order + ([self.villain] if self.villain is not None else [])

    def actor(self) -> str | None:
        """The one seat playing this round in alternating mode (None when simultaneous)."""
        if not self.alternating or not self.cycle():
            return None
        return self.cycle()[(self.round - 1) % len(self.cycle())]

    def game_turn(self) -> int:
        """The seed's game turn (1 = "the first turn of the game")."""
        if not self.alternating or not self.cycle():
            return self.round
        return (self.round - 1) // len(self.cycle()) + 1

    def ends_game_turn(self) -> bool:
        return not self.alternating or not self.cycle() or self.round % len(self.cycle()) == 0

    def next_turn_round(self, player: str | None) -> int:
        """The round of this player's next turn after the current round."""
        if not self.alternating or player not in self.cycle():
            return self.round + 1
        n = len(self.cycle())
        return self.round + ((self.cycle().index(player) + 1 - self.round) % n or n)

    def hero_of(self, player: str) -> Figure | None:
        fid = self.heroes.get(player)
        return self.figures.get(fid) if fid else None

    def nemesis_of(self, player: str) -> Figure | None:
        return next((f for f in self.figures.values()
                     if f.kind == "nemesis" and f.owner == player), None)

    def of_kind(self, kind: str) -> Iterator[Figure]:
        return (f for f in self.figures.values() if f.kind == kind)

    def new_id(self, letter: str) -> str:
        self.counters[letter] = self.counters.get(letter, 0) + 1
        return f"{letter}{self.counters[letter]}"

    def to_json(self) -> dict[str, Any]:
        return {
            "format": STATE_FORMAT, "options": dict(self.options), "seats": list(self.seats),
            "heroes": dict(self.heroes), "villain": self.villain, "order": list(self.order),
            "round": self.round, "roofs": sorted(square_name(r) for r in self.roofs),
            "figures": [f.to_json() for f in self.figures.values()],
            "counters": dict(self.counters),
            "henchmen_deck": list(self.henchmen_deck),
            "henchmen_discard": list(self.henchmen_discard),
            "items_deck": list(self.items_deck), "items_discard": list(self.items_discard),
            "winner": self.winner, "end_reason": self.end_reason,
            "marks": [dict(m) for m in self.marks],
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> HeroesState:
        if d.get("format") != STATE_FORMAT:
            raise ValueError(f"not a {STATE_FORMAT} state (format is {d.get('format')!r})")
        figures = [Figure.from_json(f) for f in d["figures"]]
        counters = {str(k): int(v) for k, v in d["counters"].items()}
        _check_counters(figures, counters)
        return cls(
            options=dict(d["options"]), seats=[str(s) for s in d["seats"]],
            heroes={str(k): str(v) for k, v in d["heroes"].items()},
            villain=None if d.get("villain") is None else str(d["villain"]),
            order=[str(p) for p in d["order"]], round=int(d["round"]),
            roofs=frozenset(parse_square(str(s)) for s in d["roofs"]),
            figures={f.id: f for f in figures},
            counters=counters,
            henchmen_deck=[int(i) for i in d["henchmen_deck"]],
            henchmen_discard=[int(i) for i in d["henchmen_discard"]],
            items_deck=[str(i) for i in d["items_deck"]],
            items_discard=[str(i) for i in d["items_discard"]],
            winner=None if d.get("winner") is None else str(d["winner"]),
            end_reason=str(d.get("end_reason", "")),
            marks=[dict(m) for m in d.get("marks", [])],
        )


def _check_counters(figures: list[Figure], counters: Mapping[str, int]) -> None:
    """new_id() numbers the game's figures from these counters: one behind a figure's id
    would hand that id out again, and the new henchman or civvie would replace the old
    one on the board without a word."""
    for f in figures:
        letter, number = f.id[:1], f.id[1:]
        if f.kind not in COUNTED or not number.isdigit():
            continue
        if counters.get(letter, 0) < int(number):
            raise StateError(f"counters: {letter} is {counters.get(letter, 0)}, behind the id of "
                             f"{f.kind} {f.id}; it must be at least {int(number)}, or the next "
                             f"{f.kind} would take that id again")
