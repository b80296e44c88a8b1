"""Movement: "Attacker may move 4 squares before his melee attack."

Every step costs 1 (diagonal steps too, unless the `diagonals` option is off); a unit
may not enter or pass through a square that holds a living unit. The 4 squares are a
budget for the whole round: a `move` spends some, and an `attack` on a unit that is not
adjacent spends the rest closing in (the charge).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.grid import Cost, Grid, Path, Square, StepCost, distance

MOVE = 4
# move_path counts a step as STEP plus up to BEND for straying from the straight line, so
# of the equally short paths the straightest wins (no zigzags on the board). MOVE * BEND
# < STEP keeps "at most MOVE steps" exactly "cost at most MOVE * (STEP + BEND)".
STEP, BEND = 64, 15


def _blocked_by(occupied: set[Square]) -> StepCost:
    def cost(_frm: Square, to: Square) -> Cost | None:
        return None if to in occupied else 1
    return cost


def _straight(frm: Square, goal: Square, occupied: set[Square]) -> StepCost:
    span = max(1, distance(frm, goal))

    def cost(_frm: Square, to: Square) -> Cost | None:
        if to in occupied:
            return None
        cross = (to.col - frm.col) * (goal.row - frm.row) - (to.row - frm.row) * (goal.col - frm.col)
        return STEP + min(BEND, 4 * abs(cross) // span)
    return cost


def move_path(grid: Grid, start: Square, waypoints: Sequence[Square], budget: int,
              occupied: set[Square], diagonals: bool) -> Path | None:
    """The shortest path through the waypoints within budget steps (straightest of equals), or None.

    The Path's cost is in steps.
    """
    assert budget <= MOVE
    blocked = occupied - {start}
    squares: list[Square] = []
    here, left = start, budget * (STEP + BEND)
    for goal in waypoints:
        leg = grid.path(here, goal, left, _straight(here, goal, blocked), diagonals)
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
    """Every free square the unit can end on (its own square included, at cost 0)."""
    best = grid.reachable(start, budget, _blocked_by(occupied - {start}), diagonals)
    return {sq: cost for sq, (cost, _) in best.items()}


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
    ends = [(cost, (sq.col - start.col) ** 2 + (sq.row - start.row) ** 2, sq.row, sq.col)
            for sq, cost in spots.items() if distance(sq, target) == 1]
    if not ends:
        return None
    _, _, row, col = min(ends)
    return move_path(grid, start, [Square(col, row)], budget, occupied, diagonals)
