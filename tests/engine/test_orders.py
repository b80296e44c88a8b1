"""The order language: lines, comments, typed arguments, errors with line numbers, and
format → parse round trips (hypothesis)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.grid import Square, square_name
from engine.orders import (
    MAX_LINE,
    MAX_ORDER_TEXT,
    Arg,
    Order,
    OrderErrors,
    Verb,
    format_orders,
    parse_order_text,
    units_in,
)

MOVE = Verb("move", (Arg("squares", "square", repeat=True),), role="move")
ATTACK = Verb("attack", (Arg("target", "unit"),), role="attack")
STANCE = Verb("stance", (Arg("kind", "word", choices=("aggressive", "defensive")),
                         Arg("bonus", "int", optional=True)), role="setting")
CHARGE = Verb("charge", (Arg("via", "square", repeat=True), Arg("target", "unit")), role="attack")
CLEAR = Verb("clear", unitless=True, role="setting")
VERBS = (MOVE, ATTACK, STANCE, CHARGE, CLEAR)


def errors(text: str, check=None) -> list[tuple[int, str]]:
    with pytest.raises(OrderErrors) as info:
        parse_order_text(text, VERBS, check)
    return [(e.line, e.message) for e in info.value.errors]


def test_orders_are_lines_with_comments_and_blank_lines():
    text = "# my turn\nA1 move c3\n\n  a2 MOVE B2 c3   # through b2\nA3 Attack b2\n"
    assert parse_order_text(text, VERBS) == [
        Order("A1", "move", ("c3",)), Order("A2", "move", ("b2", "c3")), Order("A3", "attack", ("B2",))]


def test_orders_remember_their_line_numbers():
    orders = parse_order_text("\n\nA1 move c3", VERBS)
    assert orders[0].line == 3


def test_pass_is_an_empty_order_set_and_cannot_mix_with_orders():
    assert parse_order_text("pass", VERBS) == []
    assert parse_order_text("PASS # nothing this round", VERBS) == []
    assert errors("A1 move c3\npass") == [(2, "'pass' means no orders: remove it or the other lines")]


def test_every_bad_line_is_reported_at_once_with_its_number():
    assert errors("A1 move c3\nfly away\nA2 dance\nA3 move\nA4 attack c3 d4\nA5 move q") == [
        (2, "an order starts with a unit id (like A1) or one of: attack, charge, clear, move, pass, stance"),
        (3, "'dance' is not an order here; did you mean stance? unit orders are: attack, charge, move, stance"),
        (4, "'move' needs squares: UNIT move SQUARES..."),
        (5, "too many words after 'attack': UNIT attack TARGET"),
        (6, "'q' is not a square name (like a1 or c7)"),
    ]


def test_a_misspelt_verb_gets_the_closest_one_and_each_verb_is_listed_once():
    """An alias (stay for hold) is the same order: the list names it once."""
    hold = Verb("hold", (), role="action", aliases=("stay",))
    verbs = (MOVE, ATTACK, hold)
    for text, said in (("A1 mvoe c3", "'mvoe' is not an order here; did you mean move? "),
                       ("A1 xyzzy", "'xyzzy' is not an order here; ")):
        with pytest.raises(OrderErrors) as info:
            parse_order_text(text, verbs)
        assert [(e.line, e.message) for e in info.value.errors] == [
            (1, said + "unit orders are: attack, hold, move")]


def test_a_unit_alone_asks_what_it_should_do():
    assert errors("A1") == [(1, "what should A1 do? Give an order after the unit id")]


def test_words_with_choices_and_optional_whole_numbers():
    assert parse_order_text("A1 stance Defensive 2\nA2 stance aggressive", VERBS) == [
        Order("A1", "stance", ("defensive", "2")), Order("A2", "stance", ("aggressive",))]
    assert errors("A1 stance lazy") == [(1, "'lazy' is not one of aggressive, defensive")]
    assert errors("A1 stance aggressive two") == [(1, "'two' is not a whole number")]


def test_a_repeated_argument_leaves_room_for_the_ones_after_it():
    assert parse_order_text("A1 charge b2 c3 B4", VERBS) == [Order("A1", "charge", ("b2", "c3", "B4"))]


def test_unitless_verbs_take_no_unit():
    assert parse_order_text("clear", VERBS) == [Order(None, "clear")]


def test_the_rulesets_check_turns_into_an_error_on_its_line():
    def check(order: Order) -> str | None:
        return "A7 is not your unit" if order.unit == "A7" else None

    assert errors("A1 move c3\nA7 move c4", check) == [(2, "A7 is not your unit")]


def test_long_lines_and_long_texts_are_refused():
    assert errors("A1 move " + "c3 " * 80) == [(1, f"a line may be at most {MAX_LINE} characters")]
    assert errors("#" * (MAX_ORDER_TEXT + 1)) == [(0, f"orders are limited to {MAX_ORDER_TEXT} characters")]


def test_an_empty_order_set_formats_as_pass():
    assert format_orders([]) == "pass"
    assert format_orders([Order("A1", "move", ("c3",)), Order("A2", "attack", ("B1",))]) == (
        "A1 move c3\nA2 attack B1")


@given(st.text(max_size=300))
def test_any_text_parses_or_raises_order_errors(text):
    """Random text never raises anything but the documented OrderErrors."""
    try:
        parse_order_text(text, VERBS)
    except OrderErrors as exc:
        assert exc.errors and all(e.message for e in exc.errors)


@given(st.lists(st.sampled_from(["A1", "move", "attack", "c3", "pass", "#", "b", "zz99", "B12", "\n",
                                 " ", "stance", "aggressive", "-1", "clear", "é", "\t"]), max_size=30))
def test_order_like_text_parses_or_raises_order_errors(words):
    try:
        parse_order_text(" ".join(words), VERBS)
    except OrderErrors as exc:
        assert all(e.line >= 1 for e in exc.errors)


unit_ids = st.builds(lambda letter, n: f"{letter}{n}", st.sampled_from("ABCDabcd"), st.integers(1, 999))
square_names = st.builds(lambda c, r: square_name(Square(c, r)), st.integers(0, 60), st.integers(0, 998))
orders = st.one_of(
    st.builds(lambda u, sq: Order(u.upper(), "move", tuple(sq)), unit_ids, st.lists(square_names, min_size=1, max_size=4)),
    st.builds(lambda u, t: Order(u.upper(), "attack", (t.upper(),)), unit_ids, unit_ids),
    st.builds(lambda u, k, b: Order(u.upper(), "stance", (k,) if b is None else (k, str(b))),
              unit_ids, st.sampled_from(["aggressive", "defensive"]), st.none() | st.integers(-99, 99)),
    st.builds(lambda u, via, t: Order(u.upper(), "charge", (*via, t.upper())), unit_ids,
              st.lists(square_names, min_size=1, max_size=3), unit_ids),
)


@given(st.lists(orders, max_size=8))
def test_format_then_parse_gives_the_same_orders(order_list):
    assert parse_order_text(format_orders(order_list), VERBS) == order_list


@given(st.builds(lambda u, sq: f"{u} MoVe {sq.upper()}", unit_ids, square_names))
def test_parsing_normalizes_case(line):
    (order,) = parse_order_text(line, VERBS)
    assert parse_order_text(order.format(), VERBS) == [order]
    assert order.unit == order.unit.upper() and order.args[0] == order.args[0].lower()


def test_a_line_of_commas_alone_is_refused_by_line() -> None:
    """Commas separate list items; a line of nothing else names no unit and no verb."""
    with pytest.raises(OrderErrors) as refused:
        parse_order_text("A1 move c3\n, ,", VERBS)
    assert [(e.line, e.message) for e in refused.value.errors] == [
        (2, "write one order a line: a unit, then a verb (A1 move c3)")]


def test_an_order_knows_its_verbs_role_square_and_target():
    """Parsed or built with Verb.order, an order carries what its verb declares: the role,
    the last square it names and the first unit it aims at, whatever its words are."""
    charge = parse_order_text("A1 charge b2 c3 B7", VERBS)[0]
    assert (charge.role, charge.square, charge.target) == ("attack", "c3", "B7")
    assert CHARGE.order("A1", "b2", "c3", "B7") == charge
    assert CHARGE.order("A1", "b2", "c3", "B7").to_json() == {
        "text": "A1 charge b2 c3 B7", "unit": "A1", "verb": "charge", "args": ["b2", "c3", "B7"],
        "role": "attack", "square": "c3", "target": "B7", "cost": ""}
    dear = CHARGE.order("A1", "b2", "c3", "B7", cost="costs its defence this round")
    assert dear == charge and dear.to_json()["cost"] == "costs its defence this round"
    assert charge.cost == ""  # a parsed order has none: only legal_orders says what it costs
    stance = parse_order_text("A1 stance aggressive 2", VERBS)[0]
    assert (stance.role, stance.square, stance.target) == ("setting", None, None)
    hand_made = Order("A1", "move", ("c3",))
    assert hand_made == MOVE.order("A1", "c3") and hand_made.role is None


@given(st.lists(st.sampled_from(["b2", "c3", "d4"]), min_size=1, max_size=4))
def test_layout_assigns_words_as_the_parser_does(squares):
    """Verb.layout gives each word the argument the parser fills with it."""
    order = parse_order_text(f"A1 charge {' '.join(squares)} B1", VERBS)[0]
    assert [a.name for a in CHARGE.layout(len(order.args))] == ["via"] * len(squares) + ["target"]
    assert order.square == squares[-1] and order.target == "B1"


def test_the_units_of_a_canonical_text_are_read_back_from_its_lines():
    """units_in inverts format_orders as far as the units go; `pass` names none."""
    orders = [Order("A1", "move", ("c3",)), Order("B10", "attack", ("A2",))]
    assert units_in(format_orders(orders)) == {"A1", "B10"}
    assert units_in(format_orders([])) == set()
