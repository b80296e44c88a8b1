"""Order of action (seed, "INITIATIVE PHASE").

Round 1: "Both combatants roll a d6 + their initiative score. The highest goes 1st. A
tie would result in a roll over until some one goes first." Every unit rolls; units
that tie roll d6 + I again, among themselves only, until each has its place.

Round 2 on: "use the base score ... the one with the higher score will go first ... If
there is a tie, roll off & keep this score for the rest of the combat rounds." Units
of the same base I roll off once (d6, re-rolled among the tied) and keep that place
for the whole game (Unit.tie).

Both are rolled in the setup step, so players see the order before writing orders.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.dice import Dice
from engine.rulesets.jep1.units import Unit


def rank_by_rolls(entrants: Sequence[tuple[str, int]], dice: Dice, label: str) -> list[str]:
    """Ids ordered by d6 + bonus, highest first; ties re-roll among the tied until resolved.

    entrants: (unit id, bonus) in the order they roll.
    """
    totals = [(uid, bonus, dice.roll(6, f"{uid} {label}") + bonus) for uid, bonus in entrants]
    out: list[str] = []
    for total in sorted({t for _, _, t in totals}, reverse=True):
        tied = [(uid, bonus) for uid, bonus, t in totals if t == total]
        if len(tied) == 1:
            out.append(tied[0][0])
        else:
            out.extend(rank_by_rolls(tied, dice, f"{label} re-roll"))
    return out


def first_round_order(units: Sequence[Unit], dice: Dice) -> list[str]:
    """Round 1: d6 + I for every unit (in id order), ties re-rolled among the tied."""
    return rank_by_rolls([(u.id, u.I) for u in units], dice, "round-1 initiative d6+I")


def keep_roll_offs(units: Sequence[Unit], dice: Dice) -> None:
    """Set Unit.tie: one roll-off among units of equal base I, highest I first."""
    for base in sorted({u.I for u in units}, reverse=True):
        same = [u for u in units if base == u.I]
        if len(same) < 2:
            continue
        ranked = rank_by_rolls([(u.id, 0) for u in same], dice, f"roll-off for base I {base}")
        for u in same:
            u.tie = ranked.index(u.id)


def acting_order(units: Sequence[Unit], round_number: int, first: Sequence[str]) -> list[str]:
    """The living units' ids in the order they act this round."""
    living = {u.id: u for u in units if u.alive}
    if round_number == 1:
        return [uid for uid in first if uid in living]
    return [u.id for u in sorted(living.values(), key=lambda u: (-u.I, u.tie))]
