"""The shortcuts of universal's move check give exactly the general search's path.

One step to a free square, and two squares with a two-step budget, skip the search
(engine.rulesets.universal.orders.move_path); on random boards with walls, friends and
enemies their answer must be plan()'s, square for square, whenever they give one.
"""

from __future__ import annotations

import random

from engine.rulesets.universal.movement import STEP, plan, two_step_path
from engine.rulesets.universal.orders import one_step
from tests.engine.random_grids import random_position


def _free_destinations(seed: int, largest: int, reach: int):
    """(position, owners, destination) on random boards: every free, passable square
    within `reach` of the mover, with friends ("me") and enemies ("them") about."""
    rnd = random.Random(seed)
    for _ in range(1500):
        pos = random_position(rnd, largest, reach, start_closed=True)
        owners = {sq: rnd.choice(("me", "them")) for sq in pos.closed if sq != pos.start}
        owners[pos.start] = "me"
        for dest in pos.near:
            if dest not in owners and pos.grid.passable(dest):
                yield pos, owners, dest


def test_two_squares_within_two_steps_take_the_searchs_route() -> None:
    shortcuts = 0
    for pos, owners, dest in _free_destinations(20261130, 7, 2):
        if max(abs(dest.col - pos.start.col), abs(dest.row - pos.start.row)) != 2:
            continue
        fast = two_step_path(pos.grid, owners, "me", pos.start, dest)
        if fast is None:
            continue
        shortcuts += 1
        found = plan(pos.grid, owners, "me", pos.start, [dest], 2 * STEP, True)
        assert found is not None and list(found.squares) == fast, (pos, owners, dest)
    assert shortcuts > 500  # the comparison really ran


def test_one_step_to_a_free_square_is_the_searchs_route() -> None:
    checked = 0
    for pos, owners, dest in _free_destinations(30112026, 6, 1):
        if not one_step(pos.start, dest, pos.diagonals):
            continue
        for budget in (2 * STEP, 3 * STEP):
            found = plan(pos.grid, owners, "me", pos.start, [dest], budget, pos.diagonals)
            assert found is not None and list(found.squares) == [dest], (pos, owners, dest)
            checked += 1
    assert checked > 1000
