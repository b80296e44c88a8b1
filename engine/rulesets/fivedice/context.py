"""What one round's resolution works on: the new state, every unit's turn, the log."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.contract import Event
from engine.grid import Square
from engine.rulesets.fivedice.actions import Skip, Turn
from engine.rulesets.fivedice.state import GameState, Unit


@dataclass
class RoundContext:
    state: GameState
    turns: dict[str, Turn] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)

    def log(self, kind: str, text: str, **data: Any) -> None:
        self.events.append(Event(kind, text, data))

    def mark(self, kind: str, squares: list[Square], unit: Unit) -> None:
        self.state.marks.append({"kind": kind, "squares": [s.name for s in squares],
                                 "side": unit.player})

    def enemy_target(self, unit: Unit, target_id: str) -> Unit:
        target = self.state.unit(target_id)
        if target is None or not target.alive:
            raise Skip(f"{target_id} has fallen")
        if target.player == unit.player:
            raise Skip(f"{target_id} is on its own side")
        return target

    def wound(self, unit: Unit, amount: int, cause: str) -> None:
        """Take life points; log the death when they reach 0."""
        if amount <= 0 or not unit.alive:
            return
        unit.life = max(0, unit.life - amount)
        if unit.life == 0:
            self.log("death", f"{unit.id} ({unit.sheet.name}) falls: {cause}.",
                     unit=unit.id, square=unit.square.name)
