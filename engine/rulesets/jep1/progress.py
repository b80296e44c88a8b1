"""When the game ends, in jep1's words.

"If the defender has a health of 0. The defender is dead." A side with no living unit
is out; the last side standing wins. The common option `max_rounds` ends the game as a
draw once that many rounds are played. The ruleset class is an engine.turns
StandingRuleset with these words; `expected` serves the rules modules below it.
"""

from __future__ import annotations

from engine.contract import PlayerId
from engine.rulesets.jep1.state import JepState
from engine.turns import StandingWords, standing_expected

WORDS = StandingWords(last="{player} has the last living units", none="no unit is left alive",
                      cap="{max_rounds} rounds were played (max_rounds) with units on both sides")


def expected(state: JepState) -> list[PlayerId]:
    return standing_expected(state, state.players, state.alive_players(), WORDS)
