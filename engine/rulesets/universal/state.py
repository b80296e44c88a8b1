"""The universal game state: plain dataclasses that dump to small JSON and copy cheaply.

A copy is made once per resolve by rebuilding the few unit records (no deepcopy), so the
hot path stays fast for the bench's thousands of rounds a second.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.grid import Grid, Square, parse_square, square_name

from .house import UnitType, type_table

STATE_FORMAT = "universal/1"
MORTAR_POWER = 3  # "Mortar: +3 power"


@dataclass(slots=True)
class Unit:
    id: str
    side: str  # the player id
    square: Square
    ep: int  # current Endurance Points; 0 means defeated (and removed)
    max_ep: int
    pw: int  # the bought power of the stat line, without the Mortar's +3
    d: int
    types: tuple[str, ...] = ()
    token: bool = False
    name: str = ""

    @property
    def power(self) -> int:
        return self.pw + (MORTAR_POWER if "mortar" in self.types else 0)

    @property
    def movement(self) -> int:
        """Movement in half squares: 2 squares, a Runner 3 ("Runner: 3 movement instead of 2")."""
        return 6 if "runner" in self.types else 4

    def has(self, unit_type: str) -> bool:
        return unit_type in self.types

    def copy(self) -> Unit:
        return Unit(self.id, self.side, self.square, self.ep, self.max_ep, self.pw, self.d,
                    self.types, self.token, self.name)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "side": self.side, "square": square_name(self.square),
                "ep": self.ep, "max_ep": self.max_ep, "pw": self.pw, "d": self.d,
                "types": list(self.types), "token": self.token, "name": self.name}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Unit:
        return cls(str(d["id"]), str(d["side"]), parse_square(str(d["square"])), int(d["ep"]),
                   int(d["max_ep"]), int(d["pw"]), int(d["d"]), tuple(map(str, d["types"])),
                   bool(d["token"]), str(d.get("name", "")))


@dataclass(slots=True)
class State:
    options: dict[str, Any]
    seats: list[str]
    round: int
    units: dict[str, Unit]  # living characters, in the order they entered the game
    next_number: dict[str, int]  # the number the side's next token id takes
    # side → [unit id, repeats] of the side's last turn's attacker ("attacking in row")
    streaks: dict[str, tuple[str, int]] = field(default_factory=dict)
    out: list[str] = field(default_factory=list)  # sides that lost, in the order they fell
    marks: list[dict[str, Any]] = field(default_factory=list)  # last round's moves and attacks
    terrain: dict[str, str] = field(default_factory=dict)
    # The Grid built from options and terrain, which no rule changes after setup: built
    # once per loaded state and shared by its copies (every move check asks for it).
    built_grid: Grid | None = field(default=None, compare=False, repr=False)
    # The game's custom unit types (option unit_types), parsed once per loaded state.
    built_types: dict[str, UnitType] | None = field(default=None, compare=False, repr=False)

    def copy(self) -> State:
        return State(dict(self.options), list(self.seats), self.round,
                     {k: u.copy() for k, u in self.units.items()}, dict(self.next_number),
                     dict(self.streaks), list(self.out), list(self.marks), dict(self.terrain),
                     self.built_grid, self.built_types)

    def scratch(self) -> State:
        """A board to try one side's moves on: its own map of units, the units themselves
        shared with this state until one moves (the caller copies a unit before moving it)
        and nothing else changed on it."""
        return State(self.options, self.seats, self.round, dict(self.units), self.next_number,
                     self.streaks, self.out, self.marks, self.terrain, self.built_grid,
                     self.built_types)

    def types_table(self) -> dict[str, UnitType]:
        if self.built_types is None:
            self.built_types = type_table(self.options)
        return self.built_types

    def bonus(self, unit: Unit, effect: str) -> int:
        """The sum of one effect over the unit's custom types (0 in a game without any)."""
        table = self.types_table()
        if not table:
            return 0
        return sum(table[t].effects.get(effect, 0) for t in unit.types if t in table)

    def power(self, unit: Unit, role: str = "") -> int:
        """Power with custom bonuses; role "attacking" or "counterattacking" adds that one's."""
        extra = self.bonus(unit, "power") + (self.bonus(unit, f"power_{role}") if role else 0)
        return unit.power + extra

    def defence(self, unit: Unit, role: str = "") -> int:
        """D with custom bonuses; role "defending" (it is attacked) or "attacking" (it
        meets the counterattack to its own attack) adds that one's."""
        extra = self.bonus(unit, "defence") + (self.bonus(unit, f"defence_{role}") if role else 0)
        return unit.d + extra

    def movement(self, unit: Unit) -> int:
        """Movement in half squares, with a custom type's extra squares."""
        return unit.movement + 2 * self.bonus(unit, "movement")

    def steady(self, unit: Unit) -> bool:
        """A custom type lets it enter squares next to an enemy at the cost of 1."""
        return self.bonus(unit, "steady") > 0

    def attack_range(self, unit: Unit) -> tuple[int, int | None]:
        """(nearest, farthest or None for no limit) distance the unit hits at: adjacent
        only, a Mortar from 4 on, a custom type its declared range."""
        if unit.has("mortar"):
            limit = int(self.options.get("mortar_max_range", 0))
            return 4, limit or None
        table = self.types_table()
        for t in unit.types:
            effects = table[t].effects if t in table else {}
            if "min_range" in effects or "max_range" in effects:
                return effects.get("min_range", 1), effects.get("max_range")
        return 1, 1

    def grid(self) -> Grid:
        if self.built_grid is None:
            self.built_grid = Grid(int(self.options["width"]), int(self.options["height"]),
                                   {parse_square(k): v for k, v in self.terrain.items()})
        return self.built_grid

    @property
    def alive_sides(self) -> list[str]:
        return [s for s in self.seats if s not in self.out]

    def letter(self, side: str) -> str:
        """Unit ids start with the seat's letter: A for seat 0, B for seat 1, ..."""
        return chr(ord("A") + self.seats.index(side))

    def side_units(self, side: str) -> list[Unit]:
        return [u for u in self.units.values() if u.side == side]

    def occupied(self) -> dict[Square, Unit]:
        return {u.square: u for u in self.units.values()}

    def to_json(self) -> dict[str, Any]:
        return {
            "format": STATE_FORMAT,
            "options": dict(self.options),
            "seats": list(self.seats),
            "round": self.round,
            "units": [u.to_json() for u in self.units.values()],
            "next_number": dict(self.next_number),
            "streaks": {s: [uid, k] for s, (uid, k) in self.streaks.items()},
            "out": list(self.out),
            "marks": [dict(m) for m in self.marks],
            "terrain": dict(self.terrain),
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> State:
        if d.get("format") != STATE_FORMAT:
            raise ValueError(f"not a {STATE_FORMAT} state (format is {d.get('format')!r})")
        units = [Unit.from_json(u) for u in d["units"]]
        return cls(
            options=dict(d["options"]),
            seats=[str(s) for s in d["seats"]],
            round=int(d["round"]),
            units={u.id: u for u in units},
            next_number={str(k): int(v) for k, v in d["next_number"].items()},
            streaks={str(s): (str(v[0]), int(v[1])) for s, v in d.get("streaks", {}).items()},
            out=[str(s) for s in d.get("out", [])],
            marks=[dict(m) for m in d.get("marks", [])],
            terrain={str(k): str(v) for k, v in d.get("terrain", {}).items()},
        )
