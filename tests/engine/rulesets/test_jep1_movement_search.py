"""jep1's own move searches give exactly what the grid's general search gives.

movement.move_path and movement.reachable are worked out without a step-cost callback
(they run hundreds of times a round); the paths, costs and ties they choose decide where
units go, so they are compared here with Grid.path / Grid.reachable given jep1's step
costs as callbacks, on random grids with walls and units in the way.
"""

from __future__ import annotations

import random

import pytest

from engine.grid import Grid, Path, Square, straight_cost
from engine.rulesets.jep1 import movement
from tests.engine.random_grids import random_position


def _general_move_path(grid: Grid, start: Square, waypoints: list[Square], budget: int,
                       occupied: set[Square], diagonals: bool) -> Path | None:
    blocked = occupied - {start}
    squares: list[Square] = []
    here, left = start, budget * (movement.STEP + movement.BEND)
    for goal in waypoints:
        # jep1's step cost: STEP, plus up to BEND for 4 × the stray from the line here → goal
        cost = straight_cost(here, goal, blocked, movement.STEP, movement.BEND, 4)
        leg = grid.path(here, goal, left, cost, diagonals)
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
        pos = random_position(rnd, largest=12, reach=5, start_closed=True)
        grid, start, occupied, diagonals = pos.grid, pos.start, pos.closed, pos.diagonals
        waypoints = [rnd.choice(pos.near) for _ in range(rnd.choice((1, 1, 1, 2, 3)))]
        budget = rnd.randint(0, movement.MOVE)
        want = _general_move_path(grid, start, waypoints, budget, occupied, diagonals)
        assert movement.move_path(grid, start, waypoints, budget, occupied, diagonals) == want
        general = grid.reachable(start, budget, movement._blocked_by(occupied - {start}), diagonals)
        assert list(movement.reachable(grid, start, budget, occupied, diagonals).items()) == [
            (sq, cost) for sq, (cost, _) in general.items()]
        found += want is not None
    assert found > 100
