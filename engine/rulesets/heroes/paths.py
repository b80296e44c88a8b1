"""Least-cost routes across the city: fewest steps, then fewest climbs, then fewest diagonals.

A specialised Dijkstra rather than engine.grid's general one: the city has no walls and
one cost rule, and the search runs a dozen times a round (every henchman's step), so the
step cost is computed inline instead of through three callbacks. It explores squares in
the same order as Grid.reachable (cost, then square) so ties break the same way.
"""

from __future__ import annotations

import heapq
from functools import cache

from engine.grid import Square
from engine.rulesets.heroes.state import HeroesState

# Costs: STEP per square, + CLIMB for a street → rooftop step (not when flying), +
# DIAGONAL for a diagonal step (a straight walk looks like what a player means). Exact
# while Movement A.P. stays below 15 (the extras never add up to a STEP).
STEP, CLIMB, DIAGONAL = 256, 16, 1
_STEPS_8 = [(dc, dr) for dc in (-1, 0, 1) for dr in (-1, 0, 1) if (dc, dr) != (0, 0)]
_STEPS_4 = [(1, 0), (-1, 0), (0, 1), (0, -1)]

# (col, row) → (path cost, previous (col, row)). Plain tuples inside the search: they hash
# and compare like Square and cost a fraction to make; steps() and route() give Squares.
Cell = tuple[int, int]
Search = dict[Cell, tuple[int, Cell | None]]


def budget(ap: int) -> int:
    return STEP * ap + STEP - 1


def is_climb(state: HeroesState, frm: Square, to: Square) -> bool:
    return to in state.roofs and frm not in state.roofs


def search(state: HeroesState, start: Square, limit: int, streets_only: bool = False,
           flying: bool = False, goal: Square | None = None) -> Search:
    """Every square whose cheapest route from start costs at most limit.

    With a goal the search stops once the goal's cost is final: its entry and its route
    are then exactly what the full search gives (other entries may be missing)."""
    roofs = state.roofs
    shape = (state.width, state.height, bool(state.options["diagonals"]))
    table = _neighbours(*shape)
    best: Search = {(start.col, start.row): (0, None)}
    heap: list[tuple[int, Cell]] = [(0, (start.col, start.row))]
    stop = (goal.col, goal.row) if goal is not None else None
    pop, push = heapq.heappop, heapq.heappush
    while heap:
        cost, sq = pop(heap)
        if cost > best[sq][0]:
            continue
        if sq == stop:
            break
        up_from_street = not flying and sq not in roofs
        around = table.get(sq)
        if around is None:  # a start off the board
            around = _around(sq, *shape)
        for n, step in around:
            roof = n in roofs
            if roof and streets_only:
                continue
            total = cost + step + (CLIMB if roof and up_from_street else 0)
            if total <= limit:
                known = best.get(n)
                if known is None or total < known[0]:
                    best[n] = (total, sq)
                    push(heap, (total, n))
    return best


def _around(sq: Cell, width: int, height: int, diagonals: bool) -> tuple[tuple[Cell, int], ...]:
    """sq's neighbours on the board, in search order, with the step's cost before any climb
    (STEP, + DIAGONAL for a diagonal step)."""
    c, r = sq
    return tuple(((c + dc, r + dr), STEP + (DIAGONAL if dc and dr else 0))
                 for dc, dr in (_STEPS_8 if diagonals else _STEPS_4)
                 if 0 <= c + dc < width and 0 <= r + dr < height)


@cache
def _neighbours(width: int, height: int, diagonals: bool) -> dict[Cell, tuple[tuple[Cell, int], ...]]:
    """_around of every square, for a board shape."""
    return {(c, r): _around((c, r), width, height, diagonals) for c in range(width) for r in range(height)}


def steps(found: Search) -> dict[Square, int]:
    """Square → number of steps to it."""
    return {Square(*sq): c // STEP for sq, (c, _) in found.items()}


def route(found: Search, dest: Square) -> list[Square]:
    """The squares entered on the way to dest (empty when dest is the start)."""
    out: list[Square] = []
    sq: Cell | None = (dest.col, dest.row)
    while sq is not None and found[sq][1] is not None:
        out.append(Square(*sq))
        sq = found[sq][1]
    return out[::-1]


def plan(state: HeroesState, start: Square, waypoints: list[Square], ap: int, flying: bool,
         streets_only: bool = False) -> list[Square] | None:
    """The squares entered on the cheapest route through the waypoints in turn, within ap
    steps in all; None when there is none."""
    path: list[Square] = []
    spent, here = 0, start
    for wp in waypoints:
        found = search(state, here, budget(ap) - spent, streets_only, flying, wp)
        if (wp.col, wp.row) not in found:
            return None
        path += route(found, wp)
        spent += found[wp.col, wp.row][0]
        here = wp
    return path


def flight_within(state: HeroesState, start: Square, waypoints: list[Square], ap: int) -> bool:
    """Whether plan(state, start, waypoints, ap, flying=True) finds a route, without a search.

    Flying, nothing is closed and no step climbs: a route costs STEP a step plus DIAGONAL a
    diagonal step, so while ap × DIAGONAL < STEP it fits budget(ap) exactly when its legs'
    fewest steps (the Chebyshev distance, or with no diagonals the Manhattan one) add up
    to at most ap. Squares off the board take the search.
    """
    width, height = state.width, state.height
    if ap * DIAGONAL >= STEP or not all(0 <= sq.col < width and 0 <= sq.row < height
                                        for sq in (start, *waypoints)):
        return plan(state, start, waypoints, ap, True) is not None
    diagonals = bool(state.options["diagonals"])
    steps, here = 0, start
    for wp in waypoints:
        dc, dr = abs(wp.col - here.col), abs(wp.row - here.row)
        steps += max(dc, dr) if diagonals else dc + dr
        here = wp
    return steps <= ap
