"""The whole state of a jep1 game between rounds, as small plain JSON.

Cloned by hand (a list of small unit copies), never with deepcopy: resolving a round
must stay cheap at 2 x 16 units.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.grid import Grid, Square, parse_square
from engine.rulesets.jep1.terrain import WALL
from engine.rulesets.jep1.units import Unit


@dataclass
class JepState:
    options: dict[str, Any]
    players: list[str]  # seat order
    units: list[Unit]
    round: int = 1  # the round waiting for orders
    first: list[str] = field(default_factory=list)  # round-1 order of action
    marks: list[dict[str, Any]] = field(default_factory=list)  # last round's moves and attacks
    walls: list[Square] = field(default_factory=list)

    def clone(self) -> JepState:
        return JepState(dict(self.options), list(self.players), [u.clone() for u in self.units],
                        self.round, list(self.first), list(self.marks), list(self.walls))

    def grid(self) -> Grid:
        return Grid(int(self.options["width"]), int(self.options["height"]),
                    dict.fromkeys(self.walls, WALL))

    def unit(self, uid: str) -> Unit | None:
        for u in self.units:
            if u.id == uid:
                return u
        return None

    def living(self) -> list[Unit]:
        return [u for u in self.units if u.alive]

    def occupied(self) -> set[Square]:
        return {u.at for u in self.units if u.H > 0}  # u.alive, without a property call a unit

    def alive_players(self) -> list[str]:
        sides = {u.side for u in self.units if u.H > 0}
        return [p for p in self.players if p in sides]

    def to_json(self) -> dict[str, Any]:
        return {
            "options": dict(self.options), "players": list(self.players),
            "units": [u.to_json() for u in self.units], "round": self.round,
            "first": list(self.first), "marks": [dict(m) for m in self.marks],
            "walls": [sq.name for sq in self.walls],
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> JepState:
        return cls(dict(d["options"]), [str(p) for p in d["players"]],
                   [Unit.from_json(u) for u in d["units"]], int(d["round"]),
                   [str(x) for x in d["first"]], [dict(m) for m in d["marks"]],
                   [parse_square(str(w)) for w in d.get("walls", [])])
