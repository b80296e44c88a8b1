"""jep1 whole games: outcome, board, storage, and bot games that end and replay exactly."""

import json

import pytest

from engine.dice import canonical
from engine.replay import replay
from engine.selfplay import play as selfplay

from .jep1_fixtures import RULES, play, state, unit

BIG = {"units": ["scout"] * 16}


def test_last_side_with_living_units_wins():
    """'If the defender has a health of 0. The defender is dead.' Bob's last unit dies."""
    s = state(unit("A1", "c3", M=2), unit("B1", "c4", M=1, H=1))
    res = play(s, {"alice": "A1 attack B1"}, [6, 6, 1, 6, 6])
    outcome = RULES.outcome(res.state)
    assert outcome is not None and outcome.winners == ("alice",)
    assert RULES.expected(res.state) == []


def test_max_rounds_ends_the_game_as_a_draw():
    s = state(unit("A1", "a1"), unit("B1", "l12"), max_rounds=2)
    assert RULES.outcome(s) is None
    after = play(s, {}, []).state
    assert after.round == 3
    outcome = RULES.outcome(after)
    assert outcome is not None and outcome.draw


def test_board_shows_units_with_side_health_and_last_rounds_moves_and_attacks():
    s = state(unit("A1", "c1", M=1), unit("B1", "c6", M=1, H=2, tie=1))
    res = play(s, {"alice": "A1 attack B1"}, [1, 6, 1, 6])
    board = RULES.board(res.state)
    pieces = {p.id: p for p in board.pieces}
    assert (pieces["B1"].side, pieces["B1"].health, pieces["B1"].max_health) == ("bob", 2, 2)
    assert pieces["A1"].square == "c5"
    assert pieces["A1"].note.endswith("; acts #1 in round 3") and pieces["B1"].note.endswith("#2 in round 3")
    assert [(m.kind, m.squares) for m in board.marks] == [
        ("move", ("c1", "c2", "c3", "c4", "c5")), ("attack", ("c5", "c6"))]


def test_dead_units_leave_the_board():
    s = state(unit("A1", "c3", M=2), unit("B1", "c4", M=1, H=1), unit("B2", "h9"))
    res = play(s, {"alice": "A1 attack B1"}, [6, 6, 1, 6, 6])
    assert [p.id for p in RULES.board(res.state).pieces] == ["A1", "B2"]


def test_state_is_small_float_free_json_that_loads_back_the_same():
    game = selfplay("jep1", "store", max_rounds=3)
    data = game.results[-1].state
    canonical(data)  # refuses floats
    assert RULES.dump(RULES.load(data)) == data
    assert len(json.dumps(data)) < 8000


def test_resolve_does_not_touch_the_state_it_was_given():
    s = state(unit("A1", "c1"), unit("B1", "c6"))
    before = RULES.dump(s)
    play(s, {"alice": "A1 move c4"}, [])
    assert RULES.dump(s) == before


@pytest.mark.parametrize("seed", ["1", "2", "3", "4", "5", "6"])
def test_bot_games_reach_an_outcome_and_replay(seed):
    game = selfplay("jep1", seed)
    assert game.final.outcome is not None
    report = replay(game.record)
    assert report.ok, report.difference


@pytest.mark.parametrize("options", [
    {"turn_mode": "alternating"},
    {"diagonals": False},
    {"walls": 20, "ranged_strikes_back": True},
    {"walls": 60, "diagonals": False},  # bots must find their way around walls
    {"ties_block": True, "width": 6, "height": 6},
])
def test_bot_games_under_each_option_reach_an_outcome_and_replay(options):
    game = selfplay("jep1", "opts", options=options)
    assert game.final.outcome is not None and not game.final.outcome["draw"]
    assert replay(game.record).ok


def test_largest_game_two_by_sixteen_units_ends():
    game = selfplay("jep1", "big", options={"points": 800}, forces={"alice": BIG, "bob": BIG})
    assert game.final.outcome is not None
    assert replay(game.record).ok
