"""Grid.straight_path gives what Grid.path gives with the same straight-line step cost as a
callback: the same squares, the same cost, the same choice between equal routes."""

from __future__ import annotations

import random

import pytest

from engine.grid import Square, StepCost, straight_cost, straightest
from tests.engine.random_grids import random_position


def _cost(start: Square, goal: Square, closed: set[Square], weight: int, bend: int,
          scale: int) -> StepCost:
    if scale == 1:  # straightest() over steps of 1, as fivedice had it
        return straightest(start, goal, lambda _f, to: None if to in closed else 1, weight, bend)
    return straight_cost(start, goal, closed, weight, bend, scale)


@pytest.mark.parametrize("weight, bend, scale", [(64, 3, 1), (64, 15, 4), (16, 5, 2)])
def test_straight_path_is_the_general_search(weight: int, bend: int, scale: int) -> None:
    rnd = random.Random(weight * 100 + bend * 10 + scale)
    found = 0
    for _ in range(3000):
        pos = random_position(rnd, largest=14, reach=6, start_closed=False)
        grid, start, closed, diagonals = pos.grid, pos.start, pos.closed, pos.diagonals
        goal = rnd.choice(pos.near)
        budget = rnd.randint(0, 7 * weight + weight - 1)
        cost = _cost(start, goal, closed, weight, bend, scale)
        want = grid.path(start, goal, budget, cost, diagonals)
        assert grid.straight_path(start, goal, budget, closed, diagonals, weight, bend, scale) == want
        found += want is not None
    assert found > 300
