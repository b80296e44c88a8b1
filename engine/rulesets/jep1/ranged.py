"""Ranged attacks: "the system is generally the same with the exception of attacker uses
his range to roll number of attack & defender uses initiative to roll for defense value."

Our reading (docs/rulesets/jep1.md): the attacker rolls R dice (+R each), the defender I dice (+I
each); the shooter needs R of at least 1, the target within the weapon's reach
(Chebyshev distance) and a line of sight that no blocking terrain cuts. The target
does not strike back unless the option `ranged_strikes_back` is on, and then only if
it could shoot the shooter itself.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.contract import Event
from engine.dice import Dice
from engine.grid import Grid, Square, distance
from engine.rulesets.jep1.exchange import Exchange, exchange
from engine.rulesets.jep1.units import Unit


def shot_problem(grid: Grid, shooter: Unit, frm: Square, target: Square) -> str | None:
    """Why `shooter` standing on `frm` cannot shoot at `target`, or None."""
    if shooter.R < 1:
        return f"{shooter.id} has no ranged attack (R0)"
    far = distance(frm, target)
    if far > shooter.reach:
        return (f"{target.name} is {far} squares from {frm.name}, "
                f"beyond {shooter.id}'s reach of {shooter.reach}")
    sight = grid.sight(frm, target)
    if not sight.clear:
        walls = " and ".join(sq.name for sq in sight.blockers)
        return (f"{shooter.id} has no line of sight from {frm.name} to {target.name}: "
                f"the wall on {walls} blocks it")
    return None


def shoot(grid: Grid, att: Unit, dfn: Unit, skills: Sequence[str], ties_block: bool,
          strikes_back: bool, dice: Dice, events: list[Event]) -> list[Exchange]:
    """The shot and, with `ranged_strikes_back`, the answer. Caller checks the shot."""
    events.append(Event("shot", f"{att.id} shoots at {dfn.id}.",
                        {"attacker": att.id, "defender": dfn.id,
                         "squares": [att.at.name, dfn.at.name], "skills": list(skills)}))
    done = [exchange(att, dfn, True, skills, ties_block, dice, events)]
    if strikes_back and dfn.alive:
        why_not = shot_problem(grid, dfn, dfn.at, att.at)
        if why_not:
            events.append(Event("skip", f"{dfn.id} cannot shoot back: {why_not}.", {"unit": dfn.id}))
        else:
            events.append(Event("strike back", f"{dfn.id} shoots back at {att.id}.",
                                {"attacker": dfn.id, "defender": att.id}))
            done.append(exchange(dfn, att, True, (), ties_block, dice, events))
    return done
