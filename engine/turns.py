"""Who is expected to move, for the two turn modes every ruleset offers (docs/rulesets/README.md).

simultaneous: every living player each round. alternating: one player a round, in seat
order, skipping the fallen (the seeds' own "your turn").
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.contract import Outcome, PlayerId


def expected_players(turn_mode: str, seats: Sequence[PlayerId], alive: Sequence[PlayerId],
                     round_number: int) -> list[PlayerId]:
    living = [p for p in seats if p in alive]
    if not living:
        return []
    if turn_mode == "alternating":
        return [alternating_player(seats, alive, round_number)]
    return living


def alternating_player(seats: Sequence[PlayerId], alive: Sequence[PlayerId],
                       round_number: int) -> PlayerId:
    """Seat order from round 1, counting only living seats."""
    living = [p for p in seats if p in alive]
    return living[(round_number - 1) % len(living)]


def max_rounds_reached(max_rounds: int, round_number: int) -> bool:
    """True once the round about to be played is past the game's cap (0: no cap)."""
    return max_rounds > 0 and round_number > max_rounds


def standing_outcome(alive: Sequence[PlayerId], max_rounds: int, round_number: int) -> Outcome | None:
    """The common end of a game: the last side with units wins, none left is a draw, and
    the round cap (if any) ends it as a draw."""
    if len(alive) == 1:
        return Outcome((alive[0],), f"{alive[0]} has the last units standing")
    if not alive:
        return Outcome((), "every unit has fallen")
    if max_rounds_reached(max_rounds, round_number):
        return Outcome((), f"the {max_rounds}-round limit is reached")
    return None
