"""Who acts first: initiative dice + I − (weapon speed + armor speed − 10).

"Compare Initiative results to determine each character's turn to act; a character
with the highest Initiative acts first. Take into account the slowest weapon and the
slowest armor and sum up the result. The default for no armor is 5 and for no weapon
5 = 10. Everything else is slower." Ties (docs/rulesets/fivedice.md): the higher I stat, then a roll-off.
"""

from __future__ import annotations

from itertools import groupby

from engine.dice import Dice
from engine.rulesets.fivedice.allocation import Placement
from engine.rulesets.fivedice.state import Unit


def initiative(unit: Unit, placement: Placement) -> int:
    return placement.total("initiative") + unit.sheet.initiative - unit.sheet.speed_penalty


def roll_off(units: list[Unit], die: int, dice: Dice, notes: list[str]) -> list[Unit]:
    """Each tied unit rolls one die, highest first; those still tied roll again."""
    rolled = [(dice.roll(die, f"{u.id} initiative roll-off"), u) for u in units]
    notes.append("roll-off " + ", ".join(f"{u.id} {r}" for r, u in rolled))
    out: list[Unit] = []
    ranked = sorted(rolled, key=lambda ru: -ru[0])  # stable: state order within a face
    for _, tied in groupby(ranked, key=lambda ru: ru[0]):
        group = [u for _, u in tied]
        out.extend(group if len(group) == 1 else roll_off(group, die, dice, notes))
    return out


def turn_order(units: list[Unit], values: dict[str, int], die: int, dice: Dice,
               notes: list[str]) -> list[Unit]:
    """Units highest initiative first; notes gets a line per roll-off for the log."""
    ranked = sorted(units, key=lambda u: (-values[u.id], -u.sheet.initiative))
    out: list[Unit] = []
    for _, tied in groupby(ranked, key=lambda u: (values[u.id], u.sheet.initiative)):
        group = list(tied)
        out.extend(group if len(group) == 1 else roll_off(group, die, dice, notes))
    return out
