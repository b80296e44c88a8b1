"""Grid.straight_path (rings, no heap) gives what Grid.path gives with straight_costs as the
table: the same squares, the same cost, the same choice between equal routes."""

from __future__ import annotations

import random

import pytest

from engine.grid import straight_costs
from tests.engine.random_grids import random_position


@pytest.mark.parametrize("weight, bend, scale", [(64, 3, 1), (64, 15, 4), (16, 5, 2)])
def test_straight_path_is_the_general_search(weight: int, bend: int, scale: int) -> None:
    rnd = random.Random(weight * 100 + bend * 10 + scale)
    found = 0
    for _ in range(3000):
        pos = random_position(rnd, largest=14, reach=6, start_closed=False)
        grid, start, closed, diagonals = pos.grid, pos.start, pos.closed, pos.diagonals
        goal = rnd.choice(pos.near)
        budget = rnd.randint(0, 7 * weight + weight - 1)
        costs = straight_costs(grid, start, goal, closed, weight, bend, scale)
        want = grid.path(start, goal, budget, costs, diagonals)
        assert grid.straight_path(start, goal, budget, closed, diagonals, weight, bend, scale) == want
        found += want is not None
    assert found > 300
