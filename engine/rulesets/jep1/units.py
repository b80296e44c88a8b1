"""A JEP1 unit: the seed's stat line, where it stands, and what it has left.

Stats (docs/rulesets/jep1.md): Initiative I, Melee M, Range R, Strength S, Toughness T, Armor A,
Health H, the weapon's reach (default 8) and skills with uses per game.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.grid import Square, parse_square, square_name

STATS = ("I", "M", "R", "S", "T", "A", "H")
DEFAULT_REACH = 8


@dataclass(slots=True)
class Unit:
    id: str  # side letter + number: A1 is seat 0's first unit
    side: str  # the player id
    kind: str  # roster name, or "custom"
    I: int  # noqa: E741 - the seed's own stat letter
    M: int
    R: int
    S: int
    T: int
    A: int
    H: int  # health left; 0 is dead
    max_h: int
    reach: int
    skills: tuple[str, ...]
    uses: dict[str, int]  # skill → uses left this game
    guard: list[str]  # standing defence skills
    at: Square
    tie: int = 0  # kept roll-off place among units of the same base I (0 acts first)
    # standing attack skills for its strike backs ("through the same steps")
    strike: list[str] = field(default_factory=list)
    # when a standing defence skill is spent: "useful" (only when it can change the
    # outcome, the default) or "always"
    guard_when: str = "useful"

    @property
    def alive(self) -> bool:
        return self.H > 0

    def clone(self) -> Unit:
        # Only the two mutable containers need copying; the rest are immutable values.
        # Positional, not dataclasses.replace: a resolve clones every unit.
        return Unit(self.id, self.side, self.kind, self.I, self.M, self.R, self.S, self.T, self.A,
                    self.H, self.max_h, self.reach, self.skills, dict(self.uses), list(self.guard),
                    self.at, self.tie, list(self.strike), self.guard_when)

    def stat_line(self) -> str:
        return (f"I{self.I} M{self.M} R{self.R} S{self.S} T{self.T} A{self.A} "
                f"H{self.H}/{self.max_h} reach {self.reach}")

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id, "side": self.side, "kind": self.kind,
            "I": self.I, "M": self.M, "R": self.R, "S": self.S, "T": self.T, "A": self.A,
            "H": self.H, "maxH": self.max_h, "reach": self.reach,
            "skills": list(self.skills), "uses": dict(self.uses), "guard": list(self.guard),
            "at": square_name(self.at), "tie": self.tie,
            # only when set, so the states of games that never use them stay as they were
            **({"strike": list(self.strike)} if self.strike else {}),
            **({"guard_when": self.guard_when} if self.guard_when != "useful" else {}),
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Unit:
        return cls(
            id=str(d["id"]), side=str(d["side"]), kind=str(d["kind"]),
            I=int(d["I"]), M=int(d["M"]), R=int(d["R"]), S=int(d["S"]), T=int(d["T"]),
            A=int(d["A"]), H=int(d["H"]), max_h=int(d["maxH"]), reach=int(d["reach"]),
            skills=tuple(str(s) for s in d["skills"]),
            uses={str(k): int(v) for k, v in dict(d["uses"]).items()},
            guard=[str(s) for s in d["guard"]], at=parse_square(str(d["at"])), tie=int(d["tie"]),
            strike=[str(s) for s in d.get("strike", [])],
            guard_when=str(d.get("guard_when", "useful")),
        )
