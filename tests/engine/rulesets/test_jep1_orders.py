"""jep1 orders: movement, what is refused when written, what is skipped when its turn comes,
turn modes and the legal order lists for forms and bots."""

import pytest

from engine.grid import parse_square
from engine.orders import OrderErrors

from .jep1_fixtures import RULES, play, state, texts, unit


def errors(s, player, text):
    with pytest.raises(OrderErrors) as info:
        RULES.parse_orders(s, player, text)
    return [(e.line, e.message) for e in info.value.errors]


def test_move_up_to_four_squares():
    """'Attacker may move 4 squares before his melee attack.'"""
    s = state(unit("A1", "c1"), unit("B1", "l12"))
    res = play(s, {"alice": "A1 move g5"}, [])
    assert res.state.unit("A1").at == parse_square("g5")
    assert texts(res, "move") == ["A1 moves from c1 to g5."]


def test_move_of_five_squares_is_refused_with_its_line():
    """'Attacker may move 4 squares': c1 to c6 is 5 squares on an empty board, so the
    refusal says it is out of reach (not that units are in the way: there are none)."""
    s = state(unit("A1", "c1"), unit("B1", "l12"))
    assert errors(s, "alice", "\nA1 move c6") == [
        (2, "A1 cannot reach c6 from c1: that is 5 squares, and a move is at most 4")]


def test_a_move_onto_a_unit_says_who_stands_there():
    """One unit per square (docs/rulesets/jep1.md): the refusal names the unit on the square."""
    s = state(unit("A1", "c1"), unit("B1", "c3"))
    assert errors(s, "alice", "A1 move c3") == [(1, "A1 cannot move to c3: B1 stands there")]


def test_without_diagonals_a_diagonal_route_costs_each_orthogonal_step():
    """Option diagonals off: c1 → e3 is 4 steps (fine); c1 → f4 would be 6."""
    s = state(unit("A1", "c1"), unit("B1", "l12"), diagonals=False)
    assert RULES.parse_orders(s, "alice", "A1 move e3")
    assert errors(s, "alice", "A1 move f4")[0][0] == 1


def test_units_block_movement():
    """One unit per square (docs/rulesets/jep1.md): a wall of units across a narrow board
    cannot be passed. The refusal names the units on a 4-square way from a1 to a4: B1 (a3,
    3 steps), B2 (b3, 3) and B3 (c3: a1-b2-c3-b4-a4 is 4); not B4 on d3 (3 steps there and
    3 more back to a4)."""
    s = state(unit("A1", "a1"), unit("B1", "a3"), unit("B2", "b3"), unit("B3", "c3"), unit("B4", "d3"),
              width=4)
    assert errors(s, "alice", "A1 move a4") == [
        (1, "A1 cannot reach a4 from a1 in 4 squares without passing through other units "
            "(B1 on a3, B2 on b3 and B3 on c3 in the way)")]


def test_a_move_the_walls_lengthen_says_the_walls_are_in_the_way():
    """'Attacker may move 4 squares' and walls block movement (docs/rulesets/jep1.md, Walls).
    Without diagonals, walls on b1 and b2 turn a1 → c1 (2 squares) into a1-a2-a3-b3-c3-c2-c1,
    6: the refusal blames the walls, not the distance nor other units."""
    s = state(unit("A1", "a1"), unit("B1", "l12"), diagonals=False)
    s.walls = [parse_square("b1"), parse_square("b2")]
    assert errors(s, "alice", "A1 move c1") == [
        (1, "A1 cannot reach c1 from a1 in 4 squares: the walls are in the way")]


def test_move_happens_before_the_attack_whatever_the_line_order():
    s = state(unit("A1", "c1", M=1), unit("B1", "c6", M=1, tie=1))
    res = play(s, {"alice": "A1 attack B1\nA1 move c5"}, [1, 6, 1, 6])
    assert [e.kind for e in res.events if e.kind in ("move", "attack")] == ["move", "attack"]
    assert res.state.unit("A1").at == parse_square("c5")  # the move spent all 4: no charge needed


def test_charge_uses_only_what_the_move_left():
    """The 4 squares are one budget: after moving 3, a target 3 away (2 more squares) is too far."""
    s = state(unit("A1", "c1"), unit("B1", "c7"))
    assert errors(s, "alice", "A1 move c4\nA1 attack B1") == [
        (2, "B1 is 3 squares from c4: too far for A1 to reach this round (1 square of movement left)")]


@pytest.mark.parametrize("text, message", [
    ("A1 attack B1\nA1 shoot B1", "A1 already has an action order on line 1"),
    ("A1 move c2\nA1 move c3", "A1 already has a move order on line 1"),
    ("B1 move c8", "B1 is not your unit"),
    ("A9 move c2", "there is no unit A9"),
    ("A1 attack A2", "A2 is on your side"),
    ("A1 move z1", "z1 is off the 12x12 grid"),
    ("A1 move c1", "A1 is already on c1"),
])
def test_orders_refused_when_written(text, message):
    s = state(unit("A1", "c1", R=1), unit("A2", "d1"), unit("B1", "c4"))
    assert message in [m for _, m in errors(s, "alice", text)]


def test_dead_unit_cannot_be_ordered_and_dead_target_cannot_be_attacked():
    s = state(unit("A1", "c1"), unit("A2", "d1", H=0), unit("B1", "c2", H=0), unit("B2", "c3"))
    assert errors(s, "alice", "A2 move d2") == [(1, "A2 is dead")]
    assert errors(s, "alice", "A1 attack B1") == [(1, "B1 is already dead")]


def test_attack_on_a_target_killed_earlier_in_the_round_is_skipped():
    """Orders are written for a state that may change: A2 kills B1 first (higher I); A1's attack
    on B1 is skipped and the log says why."""
    s = state(unit("A1", "c1", I=1), unit("A2", "d1", I=3, M=1), unit("B1", "c2", M=1, H=1))
    res = play(s, {"alice": "A1 attack B1\nA2 attack B1"}, [6, 1, 6])
    assert "A1's order 'A1 attack B1' is skipped: B1 is already dead." in texts(res, "skip")


def test_orders_of_a_unit_killed_before_its_turn_are_skipped():
    s = state(unit("A1", "c1", I=3, M=1), unit("B1", "c2", I=1, M=1, H=1))
    res = play(s, {"alice": "A1 attack B1", "bob": "B1 move e5"}, [6, 1, 6])
    assert "B1 died before its turn; its orders are skipped." in texts(res, "skip")


def test_move_into_a_square_taken_earlier_in_the_round_is_skipped():
    s = state(unit("A1", "c1", I=1), unit("B1", "c6", I=3))
    res = play(s, {"alice": "A1 move c4", "bob": "B1 move c4"}, [])
    assert any("the way is blocked now" in t for t in texts(res, "skip"))
    assert res.state.unit("A1").at == parse_square("c1")


def test_pass_and_no_orders_hold():
    s = state(unit("A1", "c1"), unit("B1", "c6"))
    res = play(s, {"alice": "pass"}, [])
    assert res.state.unit("A1").at == parse_square("c1")
    assert res.state.round == 3


def test_alternating_turns_expect_one_player_and_only_its_units_act():
    """Option turn_mode alternating: seat order, one player a round."""
    s = state(unit("A1", "c1"), unit("B1", "c6"), round=1, turn_mode="alternating")
    assert RULES.expected(s) == ["alice"]
    assert errors(s, "bob", "B1 move c5") == [(1, "bob has no orders to give this round")]
    assert RULES.legal_orders(s, "bob") == {}
    after = play(s, {"alice": "A1 move c2"}, []).state
    assert RULES.expected(after) == ["bob"]


def test_simultaneous_turns_expect_every_living_player():
    s = state(unit("A1", "c1"), unit("B1", "c6"))
    assert RULES.expected(s) == ["alice", "bob"]


def test_every_legal_order_line_parses_on_its_own():
    s = state(unit("A1", "c3", R=2, skills=("berserk", "parry")), unit("A2", "e3"),
              unit("B1", "c5"), unit("B2", "j11", skills=("dodge",)))
    s.units[0].guard = ["parry"]
    legal = RULES.legal_orders(s, "alice")
    assert set(legal) == {"A1", "A2"}
    lines = [o.format() for unit_orders in legal.values() for o in unit_orders]
    for line in lines:
        RULES.parse_orders(s, "alice", line)
    assert {"A1 attack B1 with berserk", "A1 shoot B2", "A1 guard parry", "A1 guard none",
            "A1 move c4"} <= set(lines)
    assert "A2 attack B2" not in lines  # far beyond 4 squares
    assert "A2 shoot B1" not in lines  # R0
