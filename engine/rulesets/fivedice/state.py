"""The state of a fivedice game between rounds, and its JSON form (no floats, small).

Units stay in the state after death (life 0) so that an order naming a fallen unit
gets a clear answer instead of "no such unit".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.grid import Grid, Square, parse_square
from engine.rulesets.fivedice.sheet import Sheet
from engine.rulesets.fivedice.terrain import COVER, WALL

SIDE_LETTERS = "ABCD"


@dataclass(slots=True)
class Unit:
    id: str  # side letter (A = seat 0) + number
    player: str
    sheet: Sheet
    square: Square
    life: int
    wielded: str | None  # a weapon name from the sheet, None for bare hands
    items: list[str]  # items not used yet
    policy: tuple[str, ...]  # standing dice policy (allocation.py)

    @property
    def alive(self) -> bool:
        return self.life > 0

    def to_json(self, sheet: int) -> dict[str, Any]:
        """The unit's JSON; `sheet` is the index of its sheet in the state's sheet list."""
        return {"id": self.id, "player": self.player, "sheet": sheet,
                "square": self.square.name, "life": self.life, "wielded": self.wielded,
                "items": list(self.items), "policy": list(self.policy)}

    @classmethod
    def from_json(cls, d: Mapping[str, Any], sheets: Sequence[Sheet]) -> Unit:
        return cls(str(d["id"]), str(d["player"]), sheets[int(d["sheet"])],
                   parse_square(str(d["square"])), int(d["life"]), d["wielded"], list(d["items"]),
                   tuple(d["policy"]))


@dataclass
class GameState:
    players: list[str]  # seat order
    options: dict[str, Any]
    round: int  # the round waiting for orders (1 after setup)
    terrain: dict[Square, str]
    units: list[Unit]
    marks: list[dict[str, Any]] = field(default_factory=list)  # last round's arrows
    _grid: Grid | None = field(default=None, repr=False, compare=False)

    @property
    def grid(self) -> Grid:
        if self._grid is None:
            self._grid = Grid(int(self.options["width"]), int(self.options["height"]),
                              self.terrain, blocks_sight=frozenset({WALL}),
                              blocks_move=frozenset({WALL}))
        return self._grid

    def unit(self, unit_id: str) -> Unit | None:
        for u in self.units:
            if u.id == unit_id:
                return u
        return None

    def living(self) -> list[Unit]:
        return [u for u in self.units if u.alive]

    def occupant(self, sq: Square) -> Unit | None:
        for u in self.units:
            if u.square == sq and u.life > 0:  # alive, without a property call a unit
                return u
        return None

    def players_alive(self) -> list[str]:
        living = {u.player for u in self.units if u.life > 0}  # alive, inlined
        return [p for p in self.players if p in living]

    def seat(self, player: str) -> int:
        return self.players.index(player)

    def copy(self) -> GameState:
        """A state resolution may change; sheets are frozen and shared (no deepcopy)."""
        units = [Unit(u.id, u.player, u.sheet, u.square, u.life, u.wielded, list(u.items), u.policy)
                 for u in self.units]  # positional: dataclasses.replace costs several times more
        return GameState(list(self.players), dict(self.options), self.round, self.terrain,
                         units, [], self._grid)

    def to_json(self) -> dict[str, Any]:
        index: dict[Sheet, int] = {}
        for u in self.units:
            index.setdefault(u.sheet, len(index))
        sheets = list(index)
        return {
            "players": list(self.players),
            "options": dict(self.options),
            "round": self.round,
            "terrain": {sq.name: kind for sq, kind in sorted(self.terrain.items())},
            # Each distinct sheet once (units of one preset share it): a smaller state
            # to store and hash every round.
            "sheets": [sheet.to_json() for sheet in sheets],
            "units": [u.to_json(index[u.sheet]) for u in self.units],
            "marks": list(self.marks),
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> GameState:
        terrain = {parse_square(k): str(v) for k, v in dict(d["terrain"]).items()}
        sheets = [Sheet.from_json(s) for s in d["sheets"]]
        for kind in terrain.values():
            if kind not in (COVER, WALL):
                raise ValueError(f"unknown terrain {kind!r}")
        return cls([str(p) for p in d["players"]], dict(d["options"]), int(d["round"]), terrain,
                   [Unit.from_json(u, sheets) for u in d["units"]], list(d.get("marks", [])))
