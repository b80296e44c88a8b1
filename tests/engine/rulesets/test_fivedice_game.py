"""fivedice as a whole game: orders, turn modes, the board, storage, self-play."""

from __future__ import annotations

import json

import pytest

from engine.dice import canonical
from engine.orders import OrderErrors
from engine.replay import replay
from engine.rulesets.fivedice.state import GameState
from engine.selfplay import play as selfplay

from .fivedice_fixtures import RULES, play, state, texts, unit

QUIET = [1, 1, 1, 1, 1]
FIRST = [6, 6, 6, 1, 1]


def refused(s: GameState, player: str, text: str) -> list[str]:
    with pytest.raises(OrderErrors) as err:
        RULES.parse_orders(s, player, text)
    return [str(e) for e in err.value.errors]


def test_bad_orders_are_refused_naming_each_line() -> None:
    s = state(unit("A1", "c2"), unit("B1", "c8", life=0), unit("B2", "d8"))
    assert refused(s, "alice", "A9 move c3\nB2 move d7\nA1 attack B1\nA1 fly c4\nA1 move z99") == [
        "line 1: there is no unit A9",
        "line 2: B2 is not yours",
        "line 3: B1 has fallen",
        "line 4: 'fly' is not an order here; unit orders are: attack, cast, dice, move, shoot, switch, use",
        "line 5: z99 is off the 12x12 grid",
    ]


def test_orders_that_could_never_work_are_refused() -> None:
    s = state(unit("A1", "c2", weapons=("sword", "dagger")), unit("B1", "c8"), terrain={"d4": "wall"})
    assert refused(s, "alice", "A1 move c2") == ["line 1: A1 is already on c2"]
    assert refused(s, "alice", "A1 move d4") == ["line 1: d4 is a wall"]
    assert refused(s, "alice", "A1 switch sword") == ["line 1: A1 already wields sword"]
    assert refused(s, "alice", "A1 switch bow") == [
        "line 1: A1 does not carry bow (it carries: sword, dagger)"]
    assert refused(s, "alice", "A1 attack A1") == ["line 1: A1 is on your own side"]


def test_dice_orders_are_checked() -> None:
    s = state(unit("A1", "c2"), unit("B1", "c8"))
    assert refused(s, "alice", "A1 dice priority") == [
        "line 1: 'priority' needs areas in order, like 'priority attack defence initiative'"]
    assert refused(s, "alice", "A1 dice aggressive attack") == ["line 1: 'aggressive' takes no areas"]
    assert refused(s, "alice", "A1 dice priority attack attack") == ["line 1: name each area once"]
    assert refused(s, "alice", "A1 dice reckless") == [
        "line 1: 'reckless' is not one of aggressive, defensive, balanced, priority"]


def test_pass_and_comments() -> None:
    s = state(unit("A1", "c2"), unit("B1", "c8"))
    assert RULES.parse_orders(s, "alice", "pass") == []
    orders = RULES.parse_orders(s, "alice", "# plan\nA1 move c4  # forward\nA1 dice priority defense")
    assert [o.format() for o in orders] == ["A1 move c4", "A1 dice priority defense"]


def test_alternating_turns_expect_one_player_a_round() -> None:
    """Option turn_mode alternating: seat order, one player a round; the other's units
    still roll their dice (they defend) but take no orders."""
    s = state(unit("A1", "c2"), unit("B1", "c8"), turn_mode="alternating")
    assert RULES.expected(s) == ["alice"]
    assert refused(s, "bob", "B1 move c7") == ["line 1: bob has no orders to give this round"]
    res = play(s, {"alice": "A1 move c3"}, [*QUIET, *FIRST])
    assert RULES.expected(res.state) == ["bob"]
    assert len(texts(res, "dice")) == 2


def test_simultaneous_turns_expect_every_living_player() -> None:
    s = state(unit("A1", "c2"), unit("B1", "c8"))
    assert RULES.expected(s) == ["alice", "bob"]


def test_last_side_standing_wins_and_max_rounds_draws() -> None:
    s = state(unit("A1", "c4"), unit("B1", "c5", life=1))
    res = play(s, {"alice": "A1 attack B1"}, [6, 6, 3, 1, 1, *QUIET])
    outcome = RULES.outcome(res.state)
    assert outcome is not None and outcome.winners == ("alice",)
    assert RULES.expected(res.state) == []
    s = state(unit("A1", "c2"), unit("B1", "c8"), max_rounds=1)
    res = play(s, {}, [*QUIET, *FIRST])
    outcome = RULES.outcome(res.state)
    assert outcome is not None and outcome.draw and outcome.reason == "the 1-round limit is reached"


def test_board_shows_units_life_and_last_rounds_moves_and_attacks() -> None:
    s = state(unit("A1", "c2"), unit("B1", "c6", life=30), terrain={"f6": "cover"})
    res = play(s, {"alice": "A1 move c5\nA1 attack B1"}, [6, 6, 3, 1, 1, *QUIET])
    board = RULES.board(res.state)
    assert [(p.id, p.square, p.side, p.health, p.max_health) for p in board.pieces] == [
        ("A1", "c5", "alice", 10 - 3, 10), ("B1", "c6", "bob", 30 - 13, 30)]
    assert [(m.kind, m.squares) for m in board.marks] == [
        ("move", ("c2", "c3", "c4", "c5")), ("attack", ("c5", "c6"))]
    assert board.terrain == {"f6": "cover"}
    assert "cover" in board.legend


def test_state_round_trips_through_json_without_floats() -> None:
    game = selfplay("fivedice", "roundtrip", max_rounds=3)
    for result in game.results:
        canonical(result.state)  # refuses floats
        loaded = RULES.load(json.loads(json.dumps(result.state)))
        assert RULES.dump(loaded) == result.state


def test_a_tampered_state_is_refused() -> None:
    game = selfplay("fivedice", "tamper", max_rounds=0)
    bad = {**game.final.state, "terrain": {"c3": "lava"}}
    with pytest.raises(ValueError, match="unknown terrain 'lava'"):
        RULES.load(bad)


@pytest.mark.parametrize("seed", ["one", "two", "three", "four"])
def test_self_play_reaches_an_outcome_and_replays(seed: str) -> None:
    game = selfplay("fivedice", seed, max_rounds=100)
    assert game.final.outcome is not None
    assert replay(game.record).ok


@pytest.mark.parametrize("players", [3, 4])
def test_self_play_with_more_players(players: int) -> None:
    names = ("ann", "ben", "cat", "dan")[:players]
    game = selfplay("fivedice", "many", players=names, options={"turn_mode": "alternating"},
                    max_rounds=150)
    assert game.final.outcome is not None
    first = RULES.load(game.results[0].state)
    assert sorted({u.id[0] for u in first.units}) == list("ABCD"[:players])


def test_legal_orders_offer_what_each_unit_can_do_now() -> None:
    """For forms and bots: nearest moves first, attacks in reach, shots in range and
    sight, spells, items, weapon switches and dice policies; every line parses."""
    s = state(unit("A1", "c4", movement=1, items=("potion",), weapons=("sword", "shortbow")),
              unit("A2", "a1", weapons=("shortbow",), spells=("frost",)),
              unit("B1", "c5"), unit("B2", "c8"))
    legal = {u: [o.format() for o in orders] for u, orders in RULES.legal_orders(s, "alice").items()}
    a1 = legal["A1"]
    assert a1[:8] == ["A1 move b3", "A1 move b4", "A1 move b5", "A1 move c3", "A1 move d3",
                      "A1 move d4", "A1 move d5", "A1 move a2"]
    assert "A1 move b3 lose defence" not in a1 and "A1 move a2 lose defence" in a1
    assert [line for line in a1 if " move " not in line] == [
        "A1 attack B1", "A1 use potion", "A1 switch shortbow",
        "A1 dice aggressive", "A1 dice balanced", "A1 dice defensive"]
    a2 = [line for line in legal["A2"] if " move " not in line]
    assert a2 == ["A2 shoot B1", "A2 cast frost B1", "A2 cast frost B2",
                  "A2 dice aggressive", "A2 dice balanced", "A2 dice defensive"]
    for lines in legal.values():
        for line in lines:
            RULES.parse_orders(s, "alice", line)
