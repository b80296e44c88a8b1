"""Melee: two exchanges make one combat round (seed, "PASS PRIORITY").

"A melee attack can only be initiated if the attacker is adjacent to the defender."
"If defender is alive, the priority is passed & the current defender is the new
attacker ... Once the new defender & attacker reached the next Count Wounds phase, a
round is done." The strike back runs "through the same steps": the unit striking back
uses the attack skills of its standing strike back order, and the original attacker
defends with its standing defence skills.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.contract import Event, InvariantError
from engine.dice import Dice
from engine.grid import adjacent
from engine.rulesets.jep1.exchange import Exchange, exchange
from engine.rulesets.jep1.units import Unit


def melee(att: Unit, dfn: Unit, skills: Sequence[str], ties_block: bool, dice: Dice,
          events: list[Event]) -> list[Exchange]:
    """The attack and, if the defender lives, its strike back. Caller checks adjacency."""
    if not adjacent(att.at, dfn.at):
        raise InvariantError(f"melee needs adjacent units: {att.id} and {dfn.id}")
    events.append(Event("attack", f"{att.id} attacks {dfn.id} in melee.",
                        {"attacker": att.id, "defender": dfn.id,
                         "squares": [att.at.name, dfn.at.name], "skills": list(skills)}))
    done = [exchange(att, dfn, False, skills, ties_block, dice, events)]
    if dfn.alive:
        events.append(Event("strike back", f"{dfn.id} strikes back at {att.id}.",
                            {"attacker": dfn.id, "defender": att.id}))
        done.append(exchange(dfn, att, False, list(dfn.strike), ties_block, dice, events,
                             standing_attack=True))
    return done
