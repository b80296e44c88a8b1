"""Heroes United routes: the flight shortcut gives what the search gives."""

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
