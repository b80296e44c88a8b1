"""The shortcuts of universal's move check give exactly the general search's path.

One step to a free square, and two squares with a two-step budget, skip the search
(engine.rulesets.universal.orders.move_path); on random boards with walls, friends and
enemies their answer must be plan()'s, square for square, whenever they give one.
"""

from __future__ import annotations

import random

from engine.grid import Square
from engine.rulesets.universal.movement import STEP, plan, two_step_path
from engine.rulesets.universal.orders import one_step
from tests.engine.random_grids import random_position


def _owners(rnd: random.Random, closed: set[Square], start: Square) -> dict[Square, str]:
    owners = {sq: rnd.choice(("me", "them")) for sq in closed if sq != start}
    owners[start] = "me"
    return owners


def test_two_squares_within_two_steps_take_the_searchs_route() -> None:
    rnd = random.Random(20261130)
    shortcuts = 0
    for _ in range(1500):
        pos = random_position(rnd, 7, 2, start_closed=True)
        owners = _owners(rnd, pos.closed, pos.start)
        for dest in pos.near:
            if max(abs(dest.col - pos.start.col), abs(dest.row - pos.start.row)) != 2:
                continue
            if dest in owners or not pos.grid.passable(dest):
                continue
            fast = two_step_path(pos.grid, owners, "me", pos.start, dest)
            if fast is None:
                continue
            shortcuts += 1
            found = plan(pos.grid, owners, "me", pos.start, [dest], 2 * STEP, True)
            assert found is not None and list(found.squares) == fast, (pos, owners, dest)
    assert shortcuts > 500  # the comparison really ran


def test_one_step_to_a_free_square_is_the_searchs_route() -> None:
    rnd = random.Random(30112026)
    checked = 0
    for _ in range(1500):
        pos = random_position(rnd, 6, 1, start_closed=True)
        owners = _owners(rnd, pos.closed, pos.start)
        for dest in pos.near:
            if not one_step(pos.start, dest, pos.diagonals) or dest in owners or not pos.grid.passable(dest):
                continue
            for budget in (2 * STEP, 3 * STEP):
                found = plan(pos.grid, owners, "me", pos.start, [dest], budget, pos.diagonals)
                assert found is not None and list(found.squares) == [dest], (pos, owners, dest)
                checked += 1
    assert checked > 1000
