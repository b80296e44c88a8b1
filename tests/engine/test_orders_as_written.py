"""Orders as players write them: each is read as the plain order it means, or refused with
a message that says what to write instead."""

from __future__ import annotations

import pytest

from engine.orders import OrderErrors
from tests.engine.rulesets import fivedice_fixtures as fd
from tests.engine.rulesets import heroes_fixtures as hf
from tests.engine.rulesets import jep1_fixtures as jf
from tests.engine.rulesets import universal_positions as up


def _read(rules, state, player: str, text: str) -> list[str]:
    return [o.format() for o in rules.parse_orders(state, player, text)]


def _refused(rules, state, player: str, text: str) -> list[str]:
    with pytest.raises(OrderErrors) as info:
        rules.parse_orders(state, player, text)
    return [str(e) for e in info.value.errors]


# -- universal ------------------------------------------------------------------------

def test_universal_hold_and_stay_are_orders():
    """The docs say a unit without orders holds; `A1 hold` and `A1 stay` say so outright."""
    s = up.position("A1 c3\nA2 d3\nB1 h8")
    assert _read(up.RULES, s, "alice", "A1 hold\nA2 stay") == ["A1 hold", "A2 hold"]
    after, events = up.resolve(s, [], alice="A1 stay")
    assert next(e.text for e in events if e.kind == "hold") == "A1 holds on c3"
    assert after.units["A1"].square.name == "c3"


def test_universal_hold_and_move_for_one_unit_clash():
    s = up.position("A1 c3\nB1 h8")
    assert _refused(up.RULES, s, "alice", "A1 hold\nA1 move c4") == [
        "line 2: A1 holds (line 1): it cannot also move"]


def test_move_to_and_comma_lists():
    """`move to c4` and `move c4, b5` are the moves `move c4` and `move c4 b5`."""
    s = up.position("A1 c3\nB1 h8")
    assert _read(up.RULES, s, "alice", "A1 move to c4") == ["A1 move c4"]
    assert _read(up.RULES, s, "alice", "A1 move c4, c5") == ["A1 move c4 c5"]


def test_two_orders_on_one_line_get_one_order_a_line():
    s = up.position("A1 c3\nB1 c5")
    assert _refused(up.RULES, s, "alice", "A1 move c4 and attack B1") == [
        "line 1: one order a line: write 'A1 move c4' on this line and 'A1 attack B1' on the next"]
    assert _refused(up.RULES, s, "alice", "A1 move c4 and B1 attack A1")[0].startswith(
        "line 1: one order a line: write 'A1 move c4' on this line and 'B1 attack A1'")


# -- heroes ---------------------------------------------------------------------------

def _city():
    s = hf.state(round=3)
    hf.hero(s, "alice", "zenith", "e4")
    hf.henchman(s, "e6")
    return s


@pytest.mark.parametrize("written, meant", [
    ("Z1 face north", "Z1 face n"), ("Z1 face North-East", "Z1 face ne"),
    ("Z1 face south west", "Z1 face sw"), ("Z1 face northwest", "Z1 face nw"),
    ("Z1 run away", "Z1 run"), ("Z1 action blinding glare H1", "Z1 action glare H1"),
    ("Z1 action Blinding Glare at H1", "Z1 action glare H1"),
    ("Z1 attack H1, H1", "Z1 attack H1 H1"), ("Z1 move to e5", "Z1 move e5"),
])
def test_heroes_orders_as_written(written: str, meant: str):
    assert _read(hf.RULES, _city(), "alice", written) == [meant]


def test_heroes_a_bad_direction_lists_the_choices():
    assert _refused(hf.RULES, _city(), "alice", "Z1 face up") == [
        "line 1: 'up' is not one of n, ne, e, se, s, sw, w, nw"]


# -- fivedice -------------------------------------------------------------------------

def _sheet_state():
    return fd.state(fd.unit("A1", "c3", weapons=("sword", "shortbow"), spells=("firebolt",)),
                    fd.unit("B1", "c8"))


@pytest.mark.parametrize("written, meant", [
    ("A1 switch to shortbow", "A1 switch shortbow"),
    ("A1 switch to shortbow, lose defence", "A1 switch shortbow lose defence"),
    ("A1 cast firebolt at B1", "A1 cast firebolt B1"),
    ("A1 shoot at B1", "A1 shoot B1"),
    ("A1 move to c5, lose defence", "A1 move c5 lose defence"),
])
def test_fivedice_orders_as_written(written: str, meant: str):
    """Before, `switch to shortbow` was refused with "'shortbow' is not one of lose"."""
    assert _read(fd.RULES, _sheet_state(), "alice", written) == [meant]


# -- jep1 -----------------------------------------------------------------------------

def test_jep1_skills_in_a_comma_list():
    s = jf.state(jf.unit("A1", "c2", skills=("berserk", "aim")), jf.unit("B1", "c3"))
    assert _read(jf.RULES, s, "alice", "A1 attack B1 with berserk, aim") == [
        "A1 attack B1 with berserk aim"]
    assert _read(jf.RULES, s, "alice", "A1 attack B1 with berserk and aim") == [
        "A1 attack B1 with berserk aim"]


def test_jep1_a_move_out_of_reach_says_so():
    """'Attacker may move 4 squares': out of reach, blocked and taken are told apart."""
    s = jf.state(jf.unit("A1", "d2"), jf.unit("B1", "l12"))
    assert _refused(jf.RULES, s, "alice", "A1 move d9") == [
        "line 1: A1 cannot reach d9 from d2: that is 7 squares, and a move is at most 4"]
