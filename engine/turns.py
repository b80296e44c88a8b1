"""Rounds, turns and the common end of a game, shared by the rulesets.

Turn modes (docs/rulesets/README.md): simultaneous: every living player each round;
alternating: one player a round, in seat order, skipping the fallen (the seeds' own
"your turn").

`RoundsRuleset` and `StandingRuleset` are bases for a ruleset class: the first gives
`round_number` and the round cap, the second also `outcome` and `expected` for a game
that ends when one side is left (or none, or the round cap passes).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, TypeVar

from engine.contract import Outcome, PlayerId, Ruleset


def expected_players(turn_mode: str, seats: Sequence[PlayerId], alive: Sequence[PlayerId],
                     round_number: int) -> list[PlayerId]:
    """Who moves this round: every living seat (simultaneous), or the one whose turn it
    is (alternating); nobody when no seat is alive."""
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


@dataclass(frozen=True)
class StandingWords:
    """The three sentences of a standing outcome, in a ruleset's own words (they are
    stored in game records, so a ruleset keeps its wording for good).

    `last` is formatted with `player` (the winner), `cap` with `max_rounds`."""

    last: str = "{player} has the last units standing"
    none: str = "every unit has fallen"
    cap: str = "the {max_rounds}-round limit is reached"


DEFAULT_WORDS = StandingWords()


def standing_outcome(alive: Sequence[PlayerId], max_rounds: int, round_number: int,
                     words: StandingWords = DEFAULT_WORDS) -> Outcome | None:
    """The common end of a game: the last side still in wins, none left is a draw, and
    the round cap (if any) ends it as a draw; None while the game goes on."""
    if len(alive) == 1:
        return Outcome((alive[0],), words.last.format(player=alive[0]))
    if not alive:
        return Outcome((), words.none)
    if max_rounds_reached(max_rounds, round_number):
        return Outcome((), words.cap.format(max_rounds=max_rounds))
    return None


def standing_expected(state: RoundState, seats: Sequence[PlayerId], players_in: Sequence[PlayerId],
                      words: StandingWords = DEFAULT_WORDS) -> list[PlayerId]:
    """StandingRuleset.expected as a function, for a ruleset's own modules: nobody once
    standing_outcome has an end, else by the `turn_mode` option over the seats still in."""
    if standing_outcome(players_in, int(state.options["max_rounds"]), state.round, words) is not None:
        return []
    return expected_players(str(state.options["turn_mode"]), seats, players_in, state.round)


class RoundState(Protocol):
    """What the bases read from a ruleset's state: the round it waits for (1 after setup)
    and the game's options (the common `max_rounds` and `turn_mode` among them)."""

    @property
    def round(self) -> int: ...

    @property
    def options(self) -> Mapping[str, Any]: ...


RS = TypeVar("RS", bound=RoundState)


class RoundsRuleset(Ruleset[RS]):
    """A ruleset whose state counts rounds in `state.round`: gives `round_number`."""

    def round_number(self, state: RS) -> int:
        return state.round

    def round_cap_reached(self, state: RS) -> bool:
        """True once the round the state waits for is past the `max_rounds` option."""
        return max_rounds_reached(int(state.options["max_rounds"]), state.round)


class StandingRuleset(RoundsRuleset[RS]):
    """A ruleset won by the last side still in: gives `outcome` (standing_outcome in the
    class's `words`) and `expected` (nobody once there is an outcome, else by the
    `turn_mode` option over the seats still in). A subclass names its seats and the
    seats still in; it may override either method and call these for the common part."""

    words: ClassVar[StandingWords] = DEFAULT_WORDS

    @abstractmethod
    def seats(self, state: RS) -> Sequence[PlayerId]:
        """Every player in seat order, fallen ones too."""

    @abstractmethod
    def players_in(self, state: RS) -> Sequence[PlayerId]:
        """The players still in the game (with a living unit), in seat order."""

    def outcome(self, state: RS) -> Outcome | None:
        return standing_outcome(self.players_in(state), int(state.options["max_rounds"]),
                                state.round, self.words)

    def expected(self, state: RS) -> list[PlayerId]:
        return standing_expected(state, self.seats(state), self.players_in(state), self.words)
