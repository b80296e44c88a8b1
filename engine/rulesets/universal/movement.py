"""Movement (docs/rulesets/universal.md): "Each unit can move 2 squares. One square adjacent to enemy is
equal to 1.5 squares - and 0.5 is rounded down."

Costs are in half squares so they stay integers: a step costs 2, entering a square
adjacent to an enemy costs 3; a unit has 4 (a Runner 6). A path is legal while its total
is within the budget, so the half square left after a 1.5 step "is rounded down" and
lost: with movement 2, entering an enemy-adjacent square ends the move. Units never
enter or pass through an occupied square (one unit per square).

Terrain (option `terrain`): a wall square cannot be entered; a rough square costs 1.5 to
enter, like a square next to an enemy (the two do not add up: a square is 1.5 at most). A
unit of a custom "steady" type enters squares next to an enemy at the plain cost of 1.
"""

from __future__ import annotations

from typing import cast

from engine.grid import Cost, Costs, Grid, Path, Square

STEP = 2
STEP_NEAR_ENEMY = 3
WALL = "wall"  # blocks movement (the Grid's default blocking kind) and sight
ROUGH = "rough"  # costs STEP_NEAR_ENEMY to enter


_AROUND = tuple((dc, dr) for dc in (-1, 0, 1) for dr in (-1, 0, 1))


def enemy_zone(state_units: dict[Square, str], side: str, near: Square | None = None,
               within: int = 0) -> set[tuple[int, int]]:
    """Every square adjacent to a character of another side than `side` (with `near`: of
    those characters within `within` squares of it, which is all a short search can meet).

    Plain (col, row) tuples: they hash and compare equal to Squares and are cheaper to make.
    """
    if near is None:
        enemies = [sq for sq, owner in state_units.items() if owner != side]
    else:
        nc, nr = near
        enemies = [sq for sq, owner in state_units.items()
                   if owner != side and abs(sq[0] - nc) <= within and abs(sq[1] - nr) <= within]
    return {(c + dc, r + dr) for c, r in enemies for dc, dr in _AROUND}


def costs_for(owners: dict[Square, str], side: str, start: Square, budget: int,
              terrain: dict[Square, str] | None = None, steady: bool = False) -> Costs:
    """The cost table for the unit of `side` standing on `start` (the square it leaves is
    free to it) in a search within `budget`, given every occupied square's side and the
    grid's terrain (walls are the grid's to refuse): a step costs STEP, entering a square
    next to an enemy or a rough one STEP_NEAR_ENEMY (the two do not add up)."""
    # Such a search reaches squares at most budget // STEP + 1 squares away (a step
    # costs at least STEP), so only enemies one square further can put them in the zone.
    zone: set[tuple[int, int]] = set() if steady else enemy_zone(owners, side, start,
                                                                  budget // STEP + 2)
    dear = STEP_NEAR_ENEMY - STEP
    # The zone's plain (col, row) tuples hash and compare like the Squares searched.
    enter = dict.fromkeys(cast(set[Square], zone), dear)
    if terrain:
        enter.update((sq, dear) for sq, kind in terrain.items() if kind == ROUGH)
    # Its own square is in owners too: the search never enters the start, so no matter.
    return Costs(step=STEP, closed=owners.keys(), enter=enter)


def reachable(grid: Grid, owners: dict[Square, str], side: str, start: Square, budget: int,
              diagonals: bool, steady: bool = False) -> dict[Square, tuple[Cost, Square | None]]:
    """Every square the unit at `start` can end its move on (start included, cost 0)."""
    return grid.search(start, budget, costs_for(owners, side, start, budget, grid.terrain, steady),
                       diagonals)


def plan(grid: Grid, owners: dict[Square, str], side: str, start: Square,
         waypoints: list[Square], budget: int, diagonals: bool, steady: bool = False) -> Path | None:
    """The cheapest path through the waypoints within the budget, or None."""
    return grid.path_via(start, waypoints, budget,
                         costs_for(owners, side, start, budget, grid.terrain, steady), diagonals, STEP)


def two_step_path(grid: Grid, owners: dict[Square, str], side: str, start: Square,
                  dest: Square) -> list[Square] | None:
    """With a budget of exactly two steps (2 x STEP) and diagonals, a move to a square two
    away fits only as two plain steps: through a free square next to both, and neither
    square next to an enemy. plan() returns the first such middle square in square order
    (its A* expands the equally cheap first steps in that order and keeps the first route
    to the goal), which is this one. None when there is none: then plan() decides."""
    # Only an enemy within 3 squares of start can stand next to a square within 2 of it.
    sc, sr = start
    enemies = [sq for sq, owner in owners.items()
               if owner != side and -3 <= sq[0] - sc <= 3 and -3 <= sq[1] - sr <= 3]

    def near_enemy(sq: tuple[int, int]) -> bool:
        c, r = sq
        return any(-1 <= ec - c <= 1 and -1 <= er - r <= 1 for ec, er in enemies)

    if near_enemy(dest) or grid.terrain:
        return None  # next to an enemy, or terrain on the board: plan() decides
    for dc in (-1, 0, 1):
        for dr in (-1, 0, 1):
            mid = Square(start[0] + dc, start[1] + dr)
            if (mid != start and abs(mid[0] - dest[0]) <= 1 and abs(mid[1] - dest[1]) <= 1
                    and grid.passable(mid) and mid not in owners and not near_enemy(mid)):
                return [mid, dest]
    return None


def why_not(grid: Grid, owners: dict[Square, str], start: Square, waypoints: list[Square],
            budget: int) -> str:
    """A player's reason a planned move has no legal path."""
    for sq in waypoints:
        if not grid.contains(sq):
            return f"{sq.name} is off the {grid.width}x{grid.height} grid"
        if not grid.passable(sq):
            return f"{sq.name} is impassable"
        if sq in owners and sq != start:
            return f"{sq.name} is occupied"
    if waypoints and waypoints[-1] == start:
        return "it is already there"
    rough = " or a rough square" if grid.terrain else ""
    return (f"no path within its movement of {budget // 2}{'.5' if budget % 2 else ''} squares "
            f"(a step costs 1, entering a square next to an enemy{rough} 1.5)")
