"""engine.balance: a seeded bot tournament whose counts add up, and the Wilson interval."""

from __future__ import annotations

import pytest

from engine.balance import entrants, tournament, wilson


def test_wilson_interval_by_hand() -> None:
    """8 wins of 10, z = 1.96: centre (0.8 + 0.192) / 1.384 = 0.717, half-width
    1.96 x sqrt(0.016 + 0.0096) / 1.384 = 0.227: 0.49 to 0.94."""
    low, high = wilson(8, 10)
    assert (round(low, 2), round(high, 2)) == (0.49, 0.94)
    assert wilson(0, 0) == (0.0, 1.0)
    assert wilson(0, 5)[0] == 0.0 and wilson(5, 5)[1] == 1.0


def test_a_small_tournament_adds_up() -> None:
    report = tournament("universal", games=2, seed="t", max_rounds=40,
                        only=["mixed", "mortars", "runners"])
    assert len(report.pairings) == 3 and report.games == 6
    for tally in [*report.pairings.values(), *report.totals.values()]:
        assert tally.wins + tally.losses + tally.draws == tally.games
    assert all(t.games == 4 for t in report.totals.values())
    assert sum(t.wins for t in report.totals.values()) == sum(t.losses for t in report.totals.values())
    assert len(report.rounds) + report.unfinished == 6
    again = tournament("universal", games=2, seed="t", max_rounds=40, only=["mixed", "mortars", "runners"])
    assert again.text() == report.text()


def test_entrants() -> None:
    assert list(entrants("heroes")) == ["zenith", "silver_siren", "puck", "king_castro", "army_soldier"]
    with pytest.raises(ValueError, match="not an entrant of universal: ninjas"):
        tournament("universal", games=1, only=["mixed", "ninjas"])
