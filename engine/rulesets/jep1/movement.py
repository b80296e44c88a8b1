"""Movement: "Attacker may move 4 squares before his melee attack."

Every step costs 1 (diagonal steps too, unless the `diagonals` option is off); a unit
may not enter or pass through a square that holds a living unit. The 4 squares are a
budget for the whole round: a `move` spends some, and an `attack` on a unit that is not
adjacent spends the rest closing in (the charge).
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from functools import lru_cache

from engine.grid import Cost, Grid, Path, Square, StepCost, distance

_STEPS_8 = [(dc, dr) for dc in (-1, 0, 1) for dr in (-1, 0, 1) if (dc, dr) != (0, 0)]
_STEPS_4 = [(1, 0), (-1, 0), (0, 1), (0, -1)]

MOVE = 4
# move_path counts a step as STEP plus up to BEND for straying from the straight line, so
# of the equally short paths the straightest wins (no zigzags on the board). MOVE * BEND
# < STEP keeps "at most MOVE steps" exactly "cost at most MOVE * (STEP + BEND)".
STEP, BEND = 64, 15


# move_path and reachable below give exactly what Grid.path / Grid.reachable give with
# these step costs as callbacks (the same squares, costs and ties, as
# tests/engine/rulesets/test_jep1_movement_search.py checks), worked out for jep1's two
# costs without a callback a step (a bot turn and a resolution search hundreds of times
# a round). Walls (the grid's move-blocking terrain) and units are folded into one set
# of closed squares.
assert MOVE * BEND < STEP


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


def _leg(grid: Grid, frm: Square, goal: Square, limit: int, closed: Set[Square],
         diagonals: bool) -> tuple[list[Square], int] | None:
    """Grid.path(frm, goal, limit, _straight cost): (squares entered, scaled cost) or None.

    Not a heap search but the same answer, worked out from what the costs are: entering a
    square costs STEP + its bend whatever square it is entered from, and up to MOVE steps
    any path of k steps costs less than any of k + 1 (MOVE * BEND < STEP). So the least
    cost to a square is STEP × (its fewest steps) + the least bend sum over its fewest-step
    routes, and the general search's previous square (the first one taken off the heap
    that gives that cost) is the lowest square, in square order, one step nearer with the
    least bend sum. Rings of squares k steps out are walked for k = the distance to the
    goal, then k + 1 when units or walls are in the way, keeping only squares from which
    the goal is still within k steps: the goal's route depends on nothing else.
    """
    table = _neighbours(grid.width, grid.height, diagonals)
    if frm not in table or goal not in table:  # off the grid: the general search, slowly
        leg = grid.path(frm, goal, limit, _straight(frm, goal, set(closed)), diagonals)
        return None if leg is None else (list(leg.squares), leg.cost)
    if frm == goal:
        return [], 0
    fc, fr = frm
    gc, gr = goal
    gdc, gdr = gc - fc, gr - fr
    k = span = distance(frm, goal)
    while k * STEP <= limit:
        # square → (least bend sum, previous square), rings 0..j so far
        found: dict[Square, tuple[int, Square | None]] = {frm: (0, None)}
        ring = [frm]
        for j in range(1, k + 1):
            left = k - j  # steps still to go once in ring j
            new: dict[Square, tuple[int, Square]] = {}
            for p in ring:
                bp = found[p][0]
                for n in table[p]:
                    if n in found or n in closed:
                        continue
                    dx, dy = n[0] - gc, n[1] - gr
                    if dx > left or -dx > left or dy > left or -dy > left:
                        continue
                    known = new.get(n)
                    if known is None or bp < known[0] or (bp == known[0] and p < known[1]):
                        new[n] = (bp, p)
            if not new:
                break
            for n, (bp, p) in new.items():
                cross = (n[0] - fc) * gdr - (n[1] - fr) * gdc
                bend = 4 * (cross if cross >= 0 else -cross) // span
                found[n] = (bp + (bend if bend < BEND else BEND), p)
            ring = list(new)
        if goal in found:
            cost = k * STEP + found[goal][0]
            if cost > limit:
                return None
            out: list[Square] = []
            sq: Square | None = goal
            while sq is not None and sq != frm:
                out.append(sq)
                sq = found[sq][1]
            out.reverse()
            return out, cost
        k += 1
    return None


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
    closed = _closed(grid, occupied - {start})
    squares: list[Square] = []
    here, left = start, budget * (STEP + BEND)
    for goal in waypoints:
        leg = _leg(grid, here, goal, left, closed, diagonals)
        if leg is None:
            return None
        squares.extend(leg[0])
        left -= leg[1]
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
