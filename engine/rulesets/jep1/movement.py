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


def _blocked_by(occupied: set[Square]) -> StepCost:
    def cost(_frm: Square, to: Square) -> Cost | None:
        return None if to in occupied else 1
    return cost


def move_path(grid: Grid, start: Square, waypoints: Sequence[Square], budget: int,
              occupied: set[Square], diagonals: bool) -> Path | None:
    """The cheapest path through the waypoints within budget, or None."""
    return grid.path_via(start, list(waypoints), budget, _blocked_by(occupied - {start}), diagonals)


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
