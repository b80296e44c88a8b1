"""Rulebook cases for `universal` (docs/rulesets/universal.md):
Movement.

One test per rule case. Each docstring quotes the seed sentence it checks; the dice are
scripted and the expected result is worked out by hand in the docstring. Positions:
see universal_positions.py.
"""

from __future__ import annotations

from tests.engine.rulesets.universal_positions import RULES, first, position, refused, resolve

# -- Movement ---------------------------------------------------------------------------

def test_a_unit_moves_two_squares():
    """"Movement: Each unit can move 2 squares."

    From a1, c1 is 2 squares away and d1 is 3: the first is fine, the second refused,
    saying how far d1 is."""
    state = position("A1 a1\nB1 h8")
    after, _ = resolve(state, [], alice="A1 move c1")
    assert after.units["A1"].square.name == "c1"
    assert refused(state, "alice", "A1 move d1") == [(1, (
        "A1 cannot move to d1: no path within its movement of 2 squares: d1 is 3 squares "
        "away"))]


def test_a_runner_moves_three_squares():
    """"Runner: 3 movement instead of 2." From a1 a Runner reaches d1."""
    state = position("A1 a1 runner\nB1 h8")
    after, _ = resolve(state, [], alice="A1 move d1")
    assert after.units["A1"].square.name == "d1"


def test_entering_an_enemy_adjacent_square_ends_a_two_square_move():
    """"One square adjacent to enemiemy is equal to 1.5 squares - and 0.5 is rounded down."

    A1 (c1) steps onto d2 next to B1 (e3): 1.5 of its 2. The 0.5 left is rounded down, so
    it cannot go on to d1 (1.5 + 1 = 2.5 > 2), but stopping on d2 is fine."""
    state = position("A1 c1\nB1 e3")
    assert refused(state, "alice", "A1 move d2 d1")[0][1].startswith("A1 cannot move to d1: no path")
    _after, events = resolve(state, [], alice="A1 move d2")
    assert first(events, "move")["squares"] == ["c1", "d2"]


def test_a_step_then_an_enemy_adjacent_square_is_too_far_for_movement_two():
    """"One square adjacent to enemiemy is equal to 1.5 squares": 1 + 1.5 = 2.5 > 2.

    From b1, d2 (next to B1 on e3) needs a plain step and a 1.5 step: refused. A Runner
    (3 squares) makes it."""
    state = position("A1 b1\nA2 b2 runner\nB1 e3")
    assert refused(state, "alice", "A1 move d2")[0][1].startswith("A1 cannot move to d2: no path")
    after, _ = resolve(state, [], alice="A2 move d2")
    assert after.units["A2"].square.name == "d2"


def test_a_runner_can_enter_two_enemy_adjacent_squares():
    """"One square adjacent to enemiemy is equal to 1.5 squares" and "Runner: 3 movement":
    1.5 + 1.5 = 3. From c1 a Runner passes d2 to d3, both next to B1 on e3."""
    state = position("A1 c1 runner\nB1 e3")
    _after, events = resolve(state, [], alice="A1 move d2 d3")
    assert first(events, "move")["squares"] == ["c1", "d2", "d3"]


def test_the_engine_finds_the_cheapest_path():
    """"One square adjacent to enemiemy is equal to 1.5 squares": `A1 move c3` from c1 (b2
    taken by A2) goes through c2, not d2 next to B1 (e2): c2 costs 1 where d2 costs 1.5."""
    state = position("A1 c1\nA2 b2\nB1 e2")
    _after, events = resolve(state, [], alice="A1 move c3")
    assert first(events, "move")["squares"] == ["c1", "c2", "c3"]
    assert refused(state, "alice", "A1 move d2 c3")[0][1].startswith("A1 cannot move to c3")


def test_waypoints_are_followed_in_turn():
    """Orders `A1 move b2 c1`: through b2 to c1, 2 squares in all."""
    state = position("A1 a1\nB1 h8")
    _after, events = resolve(state, [], alice="A1 move b2 c1")
    assert first(events, "move")["squares"] == ["a1", "b2", "c1"]


def test_occupied_squares_cannot_be_entered_or_crossed():
    """docs/rulesets/universal.md: one unit per square. Without diagonals A1 (a1) can only reach c1 through
    b1, where A2 stands; b1 itself is refused too. Each refusal names A2."""
    state = position("A1 a1\nA2 b1\nB1 h8", diagonals=False)
    assert refused(state, "alice", "A1 move b1") == [(1, "A1 cannot move to b1: b1 is occupied by A2")]
    assert refused(state, "alice", "A1 move c1") == [(1, (
        "A1 cannot move to c1: no path within its movement of 2 squares: A2 on b1 stands in "
        "the way, and no way round fits"))]


def test_without_diagonals_steps_are_orthogonal():
    """docs/rulesets/universal.md option `diagonals` (default on): off, b2 is 2 steps from a1 and c3 is 4."""
    state = position("A1 a1\nB1 h8", diagonals=False)
    assert RULES.parse_orders(state, "alice", "A1 move b2")
    assert refused(state, "alice", "A1 move c3")[0][1].startswith("A1 cannot move to c3: no path")
    assert RULES.parse_orders(position("A1 a1\nB1 h8"), "alice", "A1 move c3")




def test_a_move_off_the_grid_onto_a_wall_or_nowhere_is_refused_with_the_reason():
    """Bad moves name the square and why: off the grid, impassable, or already there."""
    state = position("A1 a1\nB1 h8", terrain={"b2": "wall"})
    assert refused(state, "alice", "A1 move z99\nA1 move b2\nA1 move a1") == [
        (1, "A1 cannot move to z99: z99 is off the 8x8 grid"),
        (2, "A1 cannot move to b2: b2 is impassable (a wall)"),
        (3, "A1 is already on a1"),
    ]


# -- Why a move is refused --------------------------------------------------------------

def test_a_move_made_dear_by_an_enemy_says_which_square_and_enemy():
    """"One square adjacent to enemiemy is equal to 1.5 squares - and 0.5 is rounded down."

    From b1, d2 is 2 squares away, within A1's 2, but d2 is next to B1 on e3: 1 + 1.5 =
    2.5. The refusal is not "too far" nor "blocked": it names d2 and B1."""
    state = position("A1 b1\nB1 e3")
    assert refused(state, "alice", "A1 move d2") == [(1, (
        "A1 cannot move to d2: no path within its movement of 2 squares: the cheapest way "
        "costs 2.5 squares, since entering d2 (next to B1) costs 1.5"))]


def test_a_move_blocked_by_units_names_each_unit_in_the_way():
    """"Each unit can move 2 squares" and one unit per square (docs/rulesets/universal.md:
    "Units never enter or pass through an occupied square").

    A1 on a2 to c2 is 2 squares, but A2 (b1), A3 (b2) and A4 (b3) stand on every 2-square
    way there, and any other way is longer: the refusal names all three, not the
    distance."""
    state = position("A1 a2\nA2 b1\nA3 b2\nA4 b3\nB1 h8")
    assert refused(state, "alice", "A1 move c2") == [(1, (
        "A1 cannot move to c2: no path within its movement of 2 squares: A2 on b1, A3 on b2 "
        "and A4 on b3 stand in the way, and no way round fits"))]


def test_a_move_the_walls_make_too_long_says_so():
    """"You decide on how big arena of battle is": a wall square cannot be entered.

    Without diagonals, walls on b1 and b2 leave A1 (a1) the way a1-a2-a3-b3-c3-c2-c1 to
    c1: 6 squares, though c1 is only 2 away. The refusal says the walls did it."""
    state = position("A1 a1\nB1 h8", diagonals=False, terrain={"b1": "wall", "b2": "wall"})
    assert refused(state, "alice", "A1 move c1") == [(1, (
        "A1 cannot move to c1: no path within its movement of 2 squares: the walls make the "
        "way to c1 6 squares long"))]


def test_a_move_too_far_on_an_open_board_gives_the_distance():
    """"Runner: 3 movement instead of 2." A Runner on a1 cannot reach e1, 4 squares away,
    even with nothing in the way: the refusal gives its movement (3) and the distance."""
    state = position("A1 a1 runner\nB1 h8")
    assert refused(state, "alice", "A1 move e1") == [(1, (
        "A1 cannot move to e1: no path within its movement of 3 squares: e1 is 4 squares away"))]
