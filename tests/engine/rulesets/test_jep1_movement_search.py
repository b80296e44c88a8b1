"""jep1's own move searches give exactly what the grid's general search gives.

movement.move_path and movement.reachable are worked out without a step-cost callback
(they run hundreds of times a round); the paths, costs and ties they choose decide where
units go, so they are compared here with Grid.path / Grid.reachable given jep1's step
costs as callbacks, on random grids with walls and units in the way.
"""

from __future__ import annotations

import random

import pytest

from engine.grid import Grid, Path, Square
from engine.rulesets.jep1 import movement


def _general_move_path(grid: Grid, start: Square, waypoints: list[Square], budget: int,
                       occupied: set[Square], diagonals: bool) -> Path | None:
    blocked = occupied - {start}
    squares: list[Square] = []
    here, left = start, budget * (movement.STEP + movement.BEND)
    for goal in waypoints:
        leg = grid.path(here, goal, left, movement._straight(here, goal, blocked), diagonals)
        if leg is None:
            return None
        squares.extend(leg.squares)
        left -= leg.cost
        here = goal
    if len(squares) > budget:
        return None
    return Path(tuple(squares), len(squares))


@pytest.mark.parametrize("seed", range(4))
def test_move_path_and_reachable_match_the_general_search(seed: int) -> None:
    rnd = random.Random(seed)
    found = 0
    for _ in range(1500):
        width, height = rnd.randint(2, 12), rnd.randint(2, 12)
        every = [Square(c, r) for c in range(width) for r in range(height)]
        walls = rnd.sample(every, rnd.randint(0, len(every) // 5))
        grid = Grid(width, height, dict.fromkeys(walls, "wall"))
        start = rnd.choice(every)
        near = [sq for sq in every if max(abs(sq.col - start.col), abs(sq.row - start.row)) <= 5]
        waypoints = [rnd.choice(near) for _ in range(rnd.choice((1, 1, 1, 2, 3)))]
        occupied = set(rnd.sample(every, rnd.randint(0, len(every) // 2))) | {start}
        diagonals = rnd.random() < 0.8
        budget = rnd.randint(0, movement.MOVE)
        want = _general_move_path(grid, start, waypoints, budget, occupied, diagonals)
        assert movement.move_path(grid, start, waypoints, budget, occupied, diagonals) == want
        general = grid.reachable(start, budget, movement._blocked_by(occupied - {start}), diagonals)
        assert list(movement.reachable(grid, start, budget, occupied, diagonals).items()) == [
            (sq, cost) for sq, (cost, _) in general.items()]
        found += want is not None
    assert found > 100
