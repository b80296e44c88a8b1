"""Movement: "Attacker may move 4 squares before his melee attack."

Every step costs 1 (diagonal steps too, unless the `diagonals` option is off); a unit
may not enter or pass through a square that holds a living unit. The 4 squares are a
budget for the whole round: a `move` spends some, and an `attack` on a unit that is not
adjacent spends the rest closing in (the charge).
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from functools import lru_cache

from engine.contract import InvariantError
from engine.grid import Cost, Grid, Path, Square, StepCost, distance

_STEPS_8 = [(dc, dr) for dc in (-1, 0, 1) for dr in (-1, 0, 1) if (dc, dr) != (0, 0)]
_STEPS_4 = [(1, 0), (-1, 0), (0, 1), (0, -1)]

MOVE = 4
# move_path counts a step as STEP plus up to BEND for straying from the straight line, so
# of the equally short paths the straightest wins (no zigzags on the board). MOVE * BEND
# < STEP keeps "at most MOVE steps" exactly "cost at most MOVE * (STEP + BEND)".
STEP, BEND = 64, 15


# move_path and reachable below give exactly what Grid.path / Grid.reachable give with
# jep1's step costs as callbacks (the same squares, costs and ties, as
# tests/engine/rulesets/test_jep1_movement_search.py checks), without a callback a step:
# a bot turn and a resolution search hundreds of times a round. Grid.straight_path is
# exact for move_path's cost because MOVE * BEND < STEP.
if MOVE * BEND >= STEP:
    raise InvariantError("straight_path is exact for move_path only while MOVE * BEND < STEP")


@lru_cache(maxsize=64)
def _neighbours(width: int, height: int, diagonals: bool) -> dict[Square, tuple[Square, ...]]:
    steps = _STEPS_8 if diagonals else _STEPS_4
    return {Square(c, r): tuple(Square(c + dc, r + dr) for dc, dr in steps
                                if 0 <= c + dc < width and 0 <= r + dr < height)
            for r in range(height) for c in range(width)}


def _around(sq: Square) -> list[Square]:
    """The 8 squares at distance 1 (some maybe off the grid)."""
    c, r = sq
    return [Square(c + dc, r + dr) for dc, dr in _STEPS_8]


def _closed(grid: Grid, occupied: Set[Square]) -> Set[Square]:
    walls = {sq for sq, kind in grid.terrain.items() if kind in grid.blocks_move}
    return occupied | walls if walls else occupied


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
        # Grid.path with _straight(here, goal, blocked) as the step cost, without the callback
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
    """Every free square the unit can end on (its own square included, at cost 0).

    Every step costs 1, so the least-cost search is a walk outwards ring by ring, each
    ring in square order: the squares come out in the order Grid.reachable finds them.
    """
    table = _neighbours(grid.width, grid.height, diagonals)
    if start not in table:
        best = grid.reachable(start, budget, _blocked_by(occupied - {start}), diagonals)
        return {sq: cost for sq, (cost, _) in best.items()}
    closed = _closed(grid, occupied)
    out = {start: 0}
    ring = [start]
    for step in range(1, budget + 1):
        found: list[Square] = []
        for sq in ring:
            for n in table[sq]:
                if n not in out and n not in closed:
                    out[n] = step
                    found.append(n)
        if not found:
            break
        found.sort()
        ring = found
    return out


def _blocked_by(occupied: set[Square]) -> StepCost:
    def cost(_frm: Square, to: Square) -> Cost | None:
        return None if to in occupied else 1
    return cost


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
