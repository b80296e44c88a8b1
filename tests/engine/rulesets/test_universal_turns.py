"""Rulebook cases for `universal` (docs/rulesets/universal.md):
Order of play, skipped orders, order checks, board and state.

One test per rule case. Each docstring quotes the seed sentence it checks; the dice are
scripted and the expected result is worked out by hand in the docstring. Positions:
see universal_positions.py.
"""

from __future__ import annotations

from engine.dice import ScriptedDice
from engine.grid import parse_square
from tests.engine.rulesets.universal_positions import RULES, first, kinds, position, refused, resolve

# -- Order of play and skipped orders ----------------------------------------------------

def test_sides_act_in_seat_order_the_first_seat_rotating():
    """docs/rulesets/universal.md: "Sides act in seat order, the first seat rotating each round."

    Both want b3. In round 1 alice acts first and gets it; in round 2 bob does."""
    for round_number, winner in ((1, "A1"), (2, "B1")):
        state = position("A1 b1\nB1 b5", round=round_number)
        after, events = resolve(state, [], alice="A1 move b3", bob="B1 move b3")
        assert after.occupied()[parse_square("b3")].id == winner
        assert first(events, "skip")["reason"].endswith(f"cannot move to b3: b3 is occupied by {winner}")


def test_the_first_seat_rotates_over_the_sides_still_in():
    """docs/rulesets/universal.md: "Sides act in seat order, the first seat rotating each round among the
    sides still in (a side that is out is skipped, it does not hold a place in the
    rotation)."

    Seats alice, bob, carol; bob is out. The first seat rotates over alice and carol
    only: round r starts from the ((r - 1) mod 2)-th of them. Round 2 and round 4: carol
    acts first and takes b3; round 3 and round 5: alice does. (Rotating over all three
    seats made carol first in rounds 2 and 3, and in two rounds of every three.)"""
    for round_number, winner in ((2, "C1"), (3, "A1"), (4, "C1"), (5, "A1")):
        state = position("A1 b1\nB1 h8\nC1 b5", round=round_number)
        state.out.append("bob")
        del state.units["B1"]
        after, _ = resolve(state, [], alice="A1 move b3", carol="C1 move b3")
        assert after.occupied()[parse_square("b3")].id == winner, round_number


def test_an_attack_on_a_target_that_moved_away_is_skipped_with_a_reason():
    """docs/rulesets/universal.md: an order no longer legal when its turn comes is skipped, and the log says why.

    Round 2: bob acts first and B1 steps back from c4 to c6; A1's attack is skipped."""
    state = position("A1 c3\nB1 c4", round=2)
    after, events = resolve(state, [], alice="A1 attack B1", bob="B1 move c6")
    assert first(events, "skip") == {"side": "alice", "order": "A1 attack B1", "unit": "A1",
                                     "reason": "B1 at c6 is not adjacent to A1 at c3"}
    assert after.marks == [{"kind": "move", "squares": ["c4", "b5", "c6"], "side": "bob"}]


def test_the_order_of_a_unit_defeated_earlier_in_the_round_is_skipped():
    """docs/rulesets/universal.md: an order no longer legal when its turn comes is skipped (its unit fell)."""
    state = position("A1 c3\nA2 h1\nB1 c4 pw=2", round=2)
    _after, events = resolve(state, [6, 1], alice="A1 move b3", bob="B1 attack A1")
    assert first(events, "skip")["reason"] == "A1 was defeated"


def test_a_side_without_orders_holds():
    """docs/rulesets/universal.md: "a unit without orders holds"; the log says the side held."""
    state = position("A1 a1\nB1 h8")
    after, events = resolve(state, [])
    assert kinds(events) == ["hold", "hold"]
    assert after.round == 2


def test_alternating_turns_expect_one_player_a_round_in_seat_order():
    """docs/rulesets/universal.md option turn_mode alternating: one player a round, in seat order."""
    state = position("A1 a1\nB1 h8", turn_mode="alternating")
    assert RULES.expected(state) == ["alice"]
    after, _ = resolve(state, [], alice="A1 move a2")
    assert RULES.expected(after) == ["bob"]


def test_simultaneous_turns_expect_every_living_player():
    """docs/rulesets/universal.md option turn_mode simultaneous (default): every living player each round."""
    assert RULES.expected(position("A1 a1\nB1 h8\nC1 a8")) == ["alice", "bob", "carol"]


# -- Order checks -------------------------------------------------------------------------

def test_orders_name_units_of_the_player():
    """Orders name the player's own living units and real enemies, line by line."""
    state = position("A1 c3\nA2 d3\nB1 c4")
    assert refused(state, "alice", "A7 move a1\nB1 move c5\nA1 attack A2\n# fine\nA2 attack B9") == [
        (1, "A7 is not a unit on the board"), (2, "B1 is not your unit"),
        (3, "A2 is your own unit"), (5, "B9 is not a unit on the board")]


def test_an_attack_is_judged_from_where_the_attacker_will_stand():
    """A unit may move and then attack: the reach is checked from its planned square."""
    state = position("A1 c2\nB1 c4\nB2 h8")
    assert RULES.parse_orders(state, "alice", "A1 move c3\nA1 attack B1")
    assert refused(state, "alice", "A1 attack B1\nA1 move c3") == [
        (1, "B1 at c4 is not adjacent to A1 at c2")]


def test_two_units_cannot_move_to_one_square():
    """docs/rulesets/universal.md: one unit per square; two moves onto one square are refused at once."""
    state = position("A1 a1\nA2 c1\nB1 h8")
    assert refused(state, "alice", "A1 move b2\nA2 move b2") == [(2, "A1 already moves to b2")]


def test_legal_orders_list_every_attack_and_move_and_all_parse():
    """Forms and bots get each unit's attacks and moves; every line is accepted."""
    state = position("A1 c3\nB1 c4\nB2 h8")
    legal = {u: [o.format() for o in orders] for u, orders in RULES.legal_orders(state, "alice").items()}
    assert legal["A1"][0] == "A1 attack B1"
    assert "A1 move a1" in legal["A1"] and "A1 move a5" not in legal["A1"]
    for line in legal["A1"]:
        RULES.parse_orders(state, "alice", line)


# -- Board and state ---------------------------------------------------------------------

def test_the_board_shows_units_health_and_last_rounds_moves_and_attacks():
    """The board has terrain, every unit with side and health, and last round's marks."""
    state = position("A1 c1\nA2 c3 ep=3 pw=2\nB1 c4 ep=2\nB2 h8", terrain={"f6": "wall"})
    after, _ = resolve(state, [6, 1], alice="A1 move b2\nA2 attack B1")
    board = RULES.board(after)
    assert board.terrain == {"f6": "wall"}
    b1 = next(p for p in board.pieces if p.id == "B1")
    assert (b1.side, b1.square, b1.health, b1.max_health, b1.kind) == ("bob", "c4", 1, 2, "unit")
    assert [(m.kind, m.squares, m.side) for m in board.marks] == [
        ("move", ("c1", "b2"), "alice"), ("attack", ("c3", "c4"), "alice")]


def test_state_dumps_to_json_and_loads_back():
    """The state is JSON with no floats, and load(dump(s)) dumps the same."""
    import json

    state = position("A1 c3 mortar runner ep=2\nB1 c4 token", terrain={"a1": "wall"})
    data = RULES.dump(state)
    assert json.loads(json.dumps(data)) == data
    assert RULES.dump(RULES.load(data)) == data




def test_orders_of_a_player_whose_turn_it_is_not_are_ignored_with_a_reason():
    """docs/rulesets/universal.md: alternating turns expect one player a round; nothing is dropped silently."""
    state = position("A1 a1\nB1 h8", turn_mode="alternating")
    bob = RULES.parse_orders(state, "bob", "B1 move h7")
    result = RULES.resolve(state, {"bob": bob}, ScriptedDice([]))
    assert result.state.units["B1"].square.name == "h8"
    assert [e.text for e in result.events] == [
        "the orders of bob are ignored: bob does not act this round", "alice gives no orders: every unit holds"]




def test_a_unit_may_step_onto_a_square_its_neighbour_leaves_on_an_earlier_line():
    """A side's orders act in the order written, so they are checked that way: A2 leaves b1
    on line 1 and A1 takes it on line 2. The other way round, b1 is still occupied."""
    state = position("A1 a1\nA2 b1\nB1 h8")
    after, _ = resolve(state, [], alice="A2 move c1\nA1 move b1")
    assert (after.units["A1"].square.name, after.units["A2"].square.name) == ("b1", "c1")
    assert refused(state, "alice", "A1 move b1\nA2 move c1") == [
        (1, "A1 cannot move to b1: b1 is occupied by A2")]
