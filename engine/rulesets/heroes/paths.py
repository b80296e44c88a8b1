"""Least-cost routes across the city: fewest steps, then fewest climbs, then fewest diagonals.

A specialised Dijkstra rather than engine.grid's general one: the city has no walls and
one cost rule, and the search runs a dozen times a round (every henchman's step), so the
step cost is computed inline instead of through three callbacks. It explores squares in
the same order as Grid.reachable (cost, then square) so ties break the same way.
"""

from __future__ import annotations

import heapq

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
           flying: bool = False) -> Search:
    """Every square whose cheapest route from start costs at most limit."""
    width, height, roofs = state.width, state.height, state.roofs
    moves = _STEPS_8 if state.options["diagonals"] else _STEPS_4
    best: Search = {(start.col, start.row): (0, None)}
    heap: list[tuple[int, Cell]] = [(0, (start.col, start.row))]
    while heap:
        cost, sq = heapq.heappop(heap)
        if cost > best[sq][0]:
            continue
        col, row = sq
        up_from_street = not flying and sq not in roofs
        for dc, dr in moves:
            c, r = col + dc, row + dr
            if not (0 <= c < width and 0 <= r < height):
                continue
            n = (c, r)
            roof = n in roofs
            if roof and streets_only:
                continue
            total = cost + STEP + (CLIMB if roof and up_from_street else 0) + (
                DIAGONAL if dc and dr else 0)
            if total <= limit and (n not in best or total < best[n][0]):
                best[n] = (total, sq)
                heapq.heappush(heap, (total, n))
    return best


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
        found = search(state, here, budget(ap) - spent, streets_only, flying)
        if (wp.col, wp.row) not in found:
            return None
        path += route(found, wp)
        spent += found[wp.col, wp.row][0]
        here = wp
    return path
