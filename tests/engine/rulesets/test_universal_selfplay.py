"""Whole universal games played by bots: they end, and their records replay exactly."""

from engine.replay import replay
from engine.selfplay import play


def test_two_player_bot_game_from_a_fixed_seed_ends_with_a_winner_and_replays():
    game = play("universal", "s1")
    assert game.final.outcome is not None
    assert game.final.outcome["winners"] in (["alice"], ["bob"])
    report = replay(game.record)
    assert report.ok, report.difference
    assert [s.state_hash for s in report.steps] == [r.state_hash for r in game.results]
