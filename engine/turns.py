"""Who is expected to move, for the two turn modes every ruleset offers (RULES.md).

simultaneous: every living player each round. alternating: one player a round, in seat
order, skipping the fallen (the seeds' own "your turn").
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.contract import PlayerId


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
