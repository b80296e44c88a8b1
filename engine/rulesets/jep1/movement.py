"""Movement: "Attacker may move 4 squares before his melee attack."

Every step costs 1 (diagonal steps too, unless the `diagonals` option is off); a unit
may not enter or pass through a square that holds a living unit. The 4 squares are a
budget for the whole round: a `move` spends some, and an `attack` on a unit that is not
adjacent spends the rest closing in (the charge).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.contract import InvariantError
from engine.grid import Costs, Grid, Path, Square, distance

MOVE = 4
# move_path counts a step as STEP plus up to BEND for straying from the straight line, so
# of the equally short paths the straightest wins (no zigzags on the board). MOVE * BEND
# < STEP keeps "at most MOVE steps" exactly "cost at most MOVE * (STEP + BEND)".
STEP, BEND = 64, 15

if MOVE * BEND >= STEP:
    raise InvariantError("straight_path is exact for move_path only while MOVE * BEND < STEP")


def _around(sq: Square) -> list[Square]:
    """The 8 squares at distance 1 (some maybe off the grid)."""
    c, r = sq
    return [Square(c + dc, r + dr) for dc in (-1, 0, 1) for dr in (-1, 0, 1) if dc or dr]


def move_path(grid: Grid, start: Square, waypoints: Sequence[Square], budget: int,
              occupied: set[Square], diagonals: bool) -> Path | None:
    """The shortest path through the waypoints within budget steps (straightest of equals), or None.

    The Path's cost is in steps.
    """
    if budget > MOVE:
        raise InvariantError(f"a move's budget is at most {MOVE}, not {budget}")
    blocked = occupied - {start}
    squares: list[Square] = []
    here, left = start, budget * (STEP + BEND)
    for goal in waypoints:
        # Grid.path with straight_costs(...) as the table, worked out without a heap
        leg = grid.straight_path(here, goal, left, blocked, diagonals, STEP, BEND, scale=4)
        if leg is None:
            return None
        squares.extend(leg.squares)
        left -= leg.cost
        here = goal
    if len(squares) > budget:
        return None
    return Path(tuple(squares), len(squares))


def reachable(grid: Grid, start: Square, budget: int, occupied: set[Square],
              diagonals: bool) -> dict[Square, int]:
    """Every free square the unit can end on (its own square included, at cost 0):
    every step costs 1, no square that holds a unit is entered."""
    return grid.distances(start, Costs(closed=occupied), diagonals, budget)


def approach(grid: Grid, start: Square, target: Square, budget: int, occupied: set[Square],
             diagonals: bool) -> Path | None:
    """The cheapest path to a free square adjacent to target (empty if already adjacent).

    Among the cheapest, the straightest (least squared distance from the start) wins, then
    the lowest row and column, so the same state always charges the same way.
    """
    if distance(start, target) == 1:
        return Path((), 0)
    if distance(start, target) > budget + 1:
        return None
    spots = reachable(grid, start, budget, occupied, diagonals)
    # The squares adjacent to target are its neighbours (the grid's, diagonals or not:
    # adjacency is always Chebyshev), fewer to test than every reachable spot.
    ends = [(spots[sq], (sq.col - start.col) ** 2 + (sq.row - start.row) ** 2, sq.row, sq.col)
            for sq in _around(target) if sq in spots]
    if not ends:
        return None
    _, _, row, col = min(ends)
    return move_path(grid, start, [Square(col, row)], budget, occupied, diagonals)
