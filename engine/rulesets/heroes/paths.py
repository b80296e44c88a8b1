"""Least-cost routes across the city: fewest steps, then fewest climbs, then fewest diagonals.

The city as a cost table for engine.grid's one search: a step costs STEP, a diagonal
step DIAGONAL more, and a step from a street onto a rooftop CLIMB more (rooftops stand
CLIMB high, streets at 0; flying, nothing is climbed). Moving along the streets only,
the rooftops are closed. The city has no walls.
"""

from __future__ import annotations

from functools import lru_cache

from engine.grid import NO_SQUARES, Cost, Costs, Grid, Square
from engine.rulesets.heroes.state import HeroesState

# Exact while Movement A.P. stays below 15 (the extras never add up to a STEP).
STEP, CLIMB, DIAGONAL = 256, 16, 1

Search = dict[Square, tuple[Cost, Square | None]]


def budget(ap: int) -> int:
    return STEP * ap + STEP - 1


def is_climb(state: HeroesState, frm: Square, to: Square) -> bool:
    return to in state.roofs and frm not in state.roofs


@lru_cache(maxsize=64)
def _city(width: int, height: int) -> Grid:
    return Grid(width, height)


@lru_cache(maxsize=64)
def _heights(roofs: frozenset[Square]) -> dict[Square, Cost]:
    return dict.fromkeys(roofs, CLIMB)


def costs(state: HeroesState, streets_only: bool = False, flying: bool = False) -> Costs:
    """The city's cost table for a figure on foot (or flying, or kept to the streets)."""
    return Costs(step=STEP, diagonal=DIAGONAL, closed=state.roofs if streets_only else NO_SQUARES,
                 height={} if flying else _heights(state.roofs))


def search(state: HeroesState, start: Square, limit: int, streets_only: bool = False,
           flying: bool = False, goal: Square | None = None) -> Search:
    """Every square whose cheapest route from start costs at most limit (Grid.search:
    with a goal it stops once the goal's cost is final)."""
    return _city(state.width, state.height).search(start, limit, costs(state, streets_only, flying),
                                                   bool(state.options["diagonals"]), goal)


def steps(found: Search) -> dict[Square, int]:
    """Square → number of steps to it."""
    return {sq: c // STEP for sq, (c, _) in found.items()}


def route(found: Search, dest: Square) -> list[Square]:
    """The squares entered on the way to dest (empty when dest is the start)."""
    out: list[Square] = []
    sq: Square | None = dest
    while sq is not None and found[sq][1] is not None:
        out.append(sq)
        sq = found[sq][1]
    return out[::-1]


def plan(state: HeroesState, start: Square, waypoints: list[Square], ap: int, flying: bool,
         streets_only: bool = False) -> list[Square] | None:
    """The squares entered on the cheapest route through the waypoints in turn, within ap
    steps in all; None when there is none."""
    path = _city(state.width, state.height).path_via(
        start, waypoints, budget(ap), costs(state, streets_only, flying), bool(state.options["diagonals"]))
    return None if path is None else list(path.squares)


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
    return fewest_steps(state, start, waypoints) <= ap


def fewest_steps(state: HeroesState, start: Square, waypoints: list[Square]) -> int:
    """The fewest steps from start through the waypoints in turn: figures never block and
    the city has no walls, so each leg is its Chebyshev distance (or, with no diagonals,
    its Manhattan one)."""
    diagonals = bool(state.options["diagonals"])
    total, here = 0, start
    for wp in waypoints:
        dc, dr = abs(wp.col - here.col), abs(wp.row - here.row)
        total += max(dc, dr) if diagonals else dc + dr
        here = wp
    return total
