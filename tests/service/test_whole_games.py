"""Whole games of every registered ruleset, played by bots over real HTTP (service.demo).

The bots re-run every revealed step and check chain link, rolls and state hash, so a
finished game here is also a verified one; the record then replays in the engine.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine import replay, ruleset_ids
from service.demo import play


@pytest.mark.parametrize("ruleset", ruleset_ids())
def test_whole_game_through_the_api(live_server: Any, ruleset: str) -> None:
    result = play(live_server.url, ruleset, seed=f"whole-{ruleset}", players=2, max_rounds=60,
                  wait_seconds=30, progress=None)
    assert result.outcome is not None, "the game ends (a winner, or a draw at max_rounds)"
    assert result.record["format"] == "dicepost-record/1"
    assert len(result.record["steps"]) == result.rounds + 1
    assert replay(result.record).ok
    assert result.pages >= result.rounds
    if ruleset == "universal":
        assert len(result.outcome["winners"]) == 1, result.outcome


def test_three_players(live_server: Any) -> None:
    result = play(live_server.url, "universal", seed="three", players=3, max_rounds=100,
                  wait_seconds=30, progress=None)
    assert result.outcome is not None
    assert sorted(result.record["entropy"]) == ["alice", "bob", "carol"]
