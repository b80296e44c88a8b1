"""Heroes United routes: the searches' shortcuts give what the full search gives."""

from __future__ import annotations

import random

import pytest

from engine.grid import Square, square_name
from engine.rulesets.heroes import paths
from tests.engine.rulesets.heroes_fixtures import state


@pytest.mark.parametrize("diagonals", [True, False])
def test_a_flight_fits_exactly_when_the_search_finds_a_route(diagonals: bool) -> None:
    """flight_within (arithmetic) says what plan(..., flying=True) (a search) says."""
    rnd = random.Random(diagonals)
    every = [Square(c, r) for c in range(12) for r in range(12)]
    for _ in range(400):
        s = state(roofs=tuple(square_name(sq) for sq in rnd.sample(every, 30)), diagonals=diagonals)
        start = rnd.choice(every)
        waypoints = [rnd.choice(every) for _ in range(rnd.choice((1, 1, 2, 3)))]
        ap = rnd.randint(1, 14)
        found = paths.plan(s, start, waypoints, ap, True) is not None
        assert paths.flight_within(s, start, waypoints, ap) == found


def test_a_search_with_a_goal_gives_the_goal_what_the_full_search_gives() -> None:
    rnd = random.Random(3)
    every = [Square(c, r) for c in range(12) for r in range(12)]
    for _ in range(300):
        s = state(roofs=tuple(square_name(sq) for sq in rnd.sample(every, 40)))
        start, ap = rnd.choice(every), rnd.randint(1, 8)
        full = paths.search(s, start, paths.budget(ap))
        for goal in rnd.sample(every, 5):
            part = paths.search(s, start, paths.budget(ap), goal=goal)
            assert ((goal.col, goal.row) in part) == ((goal.col, goal.row) in full)
            if (goal.col, goal.row) in full:
                assert part[goal.col, goal.row] == full[goal.col, goal.row]
                assert paths.route(part, goal) == paths.route(full, goal)
