"""The shared end of a game and the turn modes (engine.turns)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.contract import Outcome
from engine.turns import StandingWords, expected_players, standing_expected, standing_outcome

WORDS = StandingWords(last="{player} wins", none="nobody is left", cap="{max_rounds} rounds: a draw")


@dataclass
class _State:
    round: int
    options: dict[str, Any] = field(default_factory=lambda: {"max_rounds": 3, "turn_mode": "simultaneous"})


def test_last_side_standing_wins_in_the_rulesets_words() -> None:
    """The last side still in wins; none left is a draw; each in the ruleset's sentence."""
    assert standing_outcome(["bob"], 0, 7, WORDS) == Outcome(("bob",), "bob wins")
    assert standing_outcome([], 0, 7, WORDS) == Outcome((), "nobody is left")


def test_round_cap_is_a_draw_only_once_passed() -> None:
    """max_rounds 3: round 3 is still played; waiting for round 4 ends the game."""
    assert standing_outcome(["a", "b"], 3, 3, WORDS) is None
    assert standing_outcome(["a", "b"], 3, 4, WORDS) == Outcome((), "3 rounds: a draw")
    assert standing_outcome(["a", "b"], 0, 10_000) is None  # 0: no cap


def test_expected_is_nobody_once_over_and_follows_the_turn_mode() -> None:
    seats = ["a", "b", "c"]
    assert standing_expected(_State(2), seats, ["a", "c"]) == ["a", "c"]
    assert standing_expected(_State(4), seats, ["a", "c"]) == []  # past the cap
    assert standing_expected(_State(2), seats, ["c"]) == []  # c has won
    alternating = _State(2, {"max_rounds": 0, "turn_mode": "alternating"})
    assert standing_expected(alternating, seats, ["a", "c"]) == ["c"]  # b has fallen: a, c, a, ...
    assert expected_players("alternating", seats, ["a", "c"], 3) == ["a"]
