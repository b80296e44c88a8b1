"""The square grid: names, distance, sight and least-cost paths (docs/rulesets/README.md, "Common to all")."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.grid import (
    Costs,
    Grid,
    Square,
    SquareError,
    adjacent,
    column_name,
    direction_between,
    distance,
    parse_square,
    square_name,
)
from tests.engine.random_grids import random_position

squares = st.builds(Square, st.integers(0, 60), st.integers(0, 60))


@pytest.mark.parametrize("name, square", [
    ("a1", Square(0, 0)), ("c7", Square(2, 6)), ("z1", Square(25, 0)), ("aa1", Square(26, 0)),
    ("aa12", Square(26, 11)), ("az3", Square(51, 2)), ("ba1", Square(52, 0))])
def test_squares_are_named_like_chess_with_aa_after_z(name, square):
    """docs/rulesets/README.md: "column letter, row number (a1 bottom-left; aa follows z past 26 columns)"."""
    assert parse_square(name) == square
    assert square_name(square) == name


def test_square_names_are_case_insensitive():
    assert parse_square(" C3 ") == Square(2, 2)


@pytest.mark.parametrize("bad", ["", "3c", "a0", "a", "1", "a-1", "a01", "é3", "a1b"])
def test_bad_square_names_are_refused_with_the_name(bad):
    with pytest.raises(SquareError, match="is not a square name"):
        parse_square(bad)


def test_a_square_off_the_grid_is_refused_naming_the_grid():
    with pytest.raises(SquareError, match="i1 is off the 8x8 grid"):
        Grid(8, 8).square("i1")


@given(squares)
def test_names_round_trip(sq):
    assert parse_square(square_name(sq)) == sq


def test_column_names_refuse_negative_columns():
    with pytest.raises(SquareError):
        column_name(-1)


def test_distance_is_chebyshev_and_adjacent_means_the_eight_around():
    """docs/rulesets/README.md: "Adjacent = the 8 surrounding squares (Chebyshev distance 1)"."""
    c3 = parse_square("c3")
    assert distance(c3, parse_square("e4")) == 2
    assert distance(c3, parse_square("d4")) == 1
    around = [sq for sq in Grid(8, 8).squares() if adjacent(c3, sq)]
    assert sorted(square_name(s) for s in around) == ["b2", "b3", "b4", "c2", "c4", "d2", "d3", "d4"]
    assert not adjacent(c3, c3)


def test_neighbours_stay_on_the_grid_with_or_without_diagonals():
    grid = Grid(4, 4)
    assert sorted(square_name(s) for s in grid.neighbours(parse_square("a1"))) == ["a2", "b1", "b2"]
    assert sorted(square_name(s) for s in grid.neighbours(parse_square("a1"), diagonals=False)) == [
        "a2", "b1"]


def test_direction_between_squares():
    c3 = parse_square("c3")
    assert direction_between(c3, parse_square("c7")) == "n"
    assert direction_between(c3, parse_square("a1")) == "sw"
    assert direction_between(c3, c3) is None


def test_line_of_sight_is_blocked_by_walls_and_obscured_by_units_and_cover():
    """docs/rulesets/README.md: "blocked by blocking terrain; a square holding a unit is partly obscuring"."""
    grid = Grid(8, 8, {parse_square("c1"): "wall", parse_square("b4"): "cover"})
    a1, e1 = parse_square("a1"), parse_square("e1")
    blocked = grid.sight(a1, e1)
    assert not blocked.clear and blocked.blockers == (parse_square("c1"),)
    seen = grid.sight(parse_square("a4"), parse_square("e4"), occupied=[parse_square("d4")])
    assert seen.clear and seen.partly_obscured
    assert set(seen.obscurers) == {parse_square("b4"), parse_square("d4")}


@given(squares, squares)
def test_line_of_sight_is_symmetric(a, b):
    """docs/rulesets/README.md: "Bresenham, symmetric": the squares between a and b are those between b and a."""
    grid = Grid(61, 61)
    assert set(grid.line(a, b)) == set(grid.line(b, a))
    assert a not in grid.line(a, b) and b not in grid.line(a, b)
    assert len(grid.line(a, b)) == max(0, distance(a, b) - 1)


PLAIN2 = Costs(step=2)


def test_search_respects_the_budget_and_walls():
    grid = Grid(5, 5, {parse_square("b1"): "wall", parse_square("b2"): "wall"})
    best = grid.search(parse_square("a1"), 4, PLAIN2)
    assert parse_square("a3") in best and best[parse_square("a3")][0] == 4
    assert parse_square("b1") not in best
    assert parse_square("c1") not in best  # the only 2-step routes cross walls


def test_path_takes_the_cheapest_route_with_integer_step_costs():
    """Least-cost paths with per-square costs (the 1.5-cost squares are 3 half steps)."""
    grid = Grid(5, 5)
    costs = Costs(step=2, enter={parse_square("b2"): 1})
    path = grid.path(parse_square("a2"), parse_square("c2"), 4, costs, diagonals=False)
    assert path is None  # a2 → b2 → c2 costs 5 and going round is 4 steps
    path = grid.path(parse_square("a2"), parse_square("c2"), 5, costs, diagonals=False)
    assert path is not None and path.cost == 5 and path.end == parse_square("c2")
    around = grid.path(parse_square("a2"), parse_square("c2"), 8, costs)
    assert around is not None and around.cost == 4 and parse_square("b2") not in around.squares


def test_closed_squares_are_never_entered():
    grid = Grid(3, 3)
    path = grid.path(parse_square("a1"), parse_square("c3"), 10, Costs(closed={parse_square("b2")}))
    assert path is not None and parse_square("b2") not in path.squares and path.cost == 3


def test_climbing_costs_the_rise_and_coming_down_is_free():
    """height: entering a higher square adds the difference; along or down adds nothing."""
    grid = Grid(4, 1)
    roofs = {parse_square("b1"): 16, parse_square("c1"): 16}
    best = grid.search(parse_square("a1"), 10_000, Costs(step=256, height=roofs), diagonals=False)
    assert [best[parse_square(n)][0] for n in ("b1", "c1", "d1")] == [272, 528, 784]
    back = grid.distances(parse_square("d1"), Costs(step=256, height=roofs), diagonals=False)
    assert back[parse_square("a1")] == 256 + 272 + 256  # up onto c1 once, then along and down


def test_diagonal_steps_cost_their_extra():
    grid = Grid(3, 3)
    costs = Costs(step=256, diagonal=1)
    assert grid.distances(parse_square("a1"), costs)[parse_square("c3")] == 2 * 257
    path = grid.path(parse_square("a1"), parse_square("c1"), 1000, costs)
    assert path is not None and [square_name(s) for s in path.squares] == ["b1", "c1"]


def test_path_via_passes_every_waypoint_within_one_budget():
    grid = Grid(5, 5)
    path = grid.path_via(parse_square("a1"), [parse_square("a3"), parse_square("c3")], 8, PLAIN2,
                         diagonals=False)
    assert path is not None
    assert [square_name(s) for s in path.squares] == ["a2", "a3", "b3", "c3"]
    assert grid.path_via(parse_square("a1"), [parse_square("a3"), parse_square("c3")], 6, PLAIN2) is None


def test_a_distance_field_holds_every_reachable_square_and_its_least_cost():
    grid = Grid(4, 4, {parse_square("b2"): "wall"})
    field = grid.distances(parse_square("a1"), Costs(closed={parse_square("b1")}))
    assert len(field) == 14 and parse_square("b2") not in field and parse_square("b1") not in field
    assert field[parse_square("a1")] == 0 and field[parse_square("c1")] == 4  # a2, b3, c2, c1
    assert grid.distances(parse_square("a1"), budget=1) == {
        parse_square(n): c for n, c in (("a1", 0), ("a2", 1), ("b1", 1))}  # b2 is the wall


@given(squares.filter(lambda s: s.col < 9 and s.row < 9), squares.filter(lambda s: s.col < 9 and s.row < 9),
       st.sets(squares.filter(lambda s: s.col < 9 and s.row < 9), max_size=20))
def test_a_path_costs_what_the_full_search_says(start, goal, dear):
    """Stopping the search at the goal, and the A* search given the least step cost, find
    the full search's least cost along a real route."""
    grid = Grid(9, 9)
    costs = Costs(step=2, enter=dict.fromkeys(dear, 1))
    full = grid.search(start, 12, costs)
    for path in (grid.path(start, goal, 12, costs), grid.path(start, goal, 12, costs, min_step=2)):
        if goal not in full:
            assert path is None
            continue
        assert path is not None and path.cost == full[goal][0]
        assert path.squares[-1:] == ((goal,) if goal != start else ())
        assert sum(3 if sq in dear else 2 for sq in path.squares) == path.cost
        assert all(distance(a, b) == 1 for a, b in zip((start, *path.squares), path.squares, strict=False))


@given(st.integers(0, 2**32))
def test_the_ring_walk_is_the_heap_search(seed):
    """A uniform table without a goal is walked ring by ring: the same costs, previous
    squares and order as the heap search gives (forced here by a zero extra cost)."""
    rnd = random.Random(seed)
    pos = random_position(rnd, largest=12, reach=12, start_closed=rnd.random() < 0.3)
    budget = rnd.randint(0, 12)
    rings = pos.grid.search(pos.start, budget, Costs(closed=pos.closed), pos.diagonals)
    heap = pos.grid.search(pos.start, budget, Costs(closed=pos.closed, enter={pos.start: 0}), pos.diagonals)
    assert list(rings.items()) == list(heap.items())
