"""Who moves next and when the game ends.

"If the defender has a health of 0. The defender is dead." A side with no living unit
is out; the last side standing wins. The common option `max_rounds` ends the game as a
draw once that many rounds are played.
"""

from __future__ import annotations

from engine.contract import Outcome, PlayerId
from engine.rulesets.jep1.state import JepState
from engine.turns import expected_players, max_rounds_reached


def outcome(state: JepState) -> Outcome | None:
    alive = state.alive_players()
    if len(alive) == 1:
        return Outcome((alive[0],), f"{alive[0]} has the last living units")
    if not alive:
        return Outcome((), "no unit is left alive")
    cap = int(state.options["max_rounds"])
    if max_rounds_reached(cap, state.round):
        return Outcome((), f"{cap} rounds were played (max_rounds) with units on both sides")
    return None


def expected(state: JepState) -> list[PlayerId]:
    if outcome(state) is not None:
        return []
    return expected_players(str(state.options["turn_mode"]), state.players, state.alive_players(),
                            state.round)
