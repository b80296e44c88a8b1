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

from engine.grid import Cost, Costs, Grid, Path, Square, distance

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


def halves(cost: int) -> str:
    """A cost in half squares as players read it: 5 → '2.5'."""
    return f"{cost // 2}{'.5' if cost % 2 else ''}"


def listed(words: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return ", ".join(words[:-1]) + " and " + words[-1] if len(words) > 1 else "".join(words)


def why_not(grid: Grid, units: dict[Square, tuple[str, str]], start: Square, waypoints: list[Square],
            budget: int, diagonals: bool = True, steady: bool = False) -> str:
    """A player's reason a planned move has no legal path, saying what is true of it: a
    square off the grid, a wall or a unit on it (`units`: square → (unit id, side), the
    mover's own square included), or else why no path fits the movement: too far even
    on an open board, made longer by the walls, dearer through squares next to enemies
    or rough ones, or blocked by the units standing on the cheapest way."""
    for sq in waypoints:
        if not grid.contains(sq):
            return f"{sq.name} is off the {grid.width}x{grid.height} grid"
        if not grid.passable(sq):
            return f"{sq.name} is impassable (a {grid.terrain.get(sq, WALL)})"
        if sq in units and sq != start:
            return f"{sq.name} is occupied by {units[sq][0]}"
    if waypoints and waypoints[-1] == start:
        return "it is already there"
    head = f"no path within its movement of {halves(budget)} squares"
    dest = waypoints[-1].name if waypoints else start.name
    side = units[start][1] if start in units else ""
    far = 2 * grid.width * grid.height * STEP_NEAR_ENEMY  # more than any path costs

    def cheapest(costs: Costs) -> Path | None:
        return grid.path_via(start, waypoints, far, costs, diagonals, STEP)

    plain = cheapest(Costs(step=STEP))
    open_board = Grid(grid.width, grid.height)
    steps = open_board.path_via(start, waypoints, far, Costs(step=STEP), diagonals, STEP)
    if steps is not None and steps.cost > budget:
        return f"{head}: {dest} is {halves(steps.cost)} squares away"
    if plain is None:
        return f"{head}: the walls shut {dest} off"
    if plain.cost > budget:
        return f"{head}: the walls make the way to {dest} {halves(plain.cost)} squares long"
    owners = {sq: s for sq, (_uid, s) in units.items()}
    dear = costs_for(owners, side, start, far, grid.terrain, steady)
    priced = cheapest(Costs(step=STEP, enter=dear.enter))
    if priced is not None and priced.cost > budget:
        zone = enemy_zone(owners, side) if not steady else set()
        said = []
        for sq in priced.squares:
            if sq in zone:
                enemies = sorted(uid for e, (uid, s) in units.items()
                                 if s != side and max(abs(e[0] - sq[0]), abs(e[1] - sq[1])) == 1)
                said.append(f"{sq.name} (next to {' and '.join(enemies)})")
            elif grid.terrain.get(sq) == ROUGH:
                said.append(f"{sq.name} (rough)")
        each = " each" if len(said) > 1 else ""
        return (f"{head}: the cheapest way costs {halves(priced.cost)} squares, since entering "
                f"{listed(said)} costs 1.5{each}")
    # Every unit that stands on some way within the movement (were it not there) blocks.
    priced_costs = Costs(step=STEP, enter=dear.enter)
    standing = [f"{uid} on {sq.name}" for sq, (uid, _s) in sorted(units.items())
                if sq != start and distance(sq, start) <= budget // STEP
                and (found := grid.path_via(start, [sq, *waypoints], budget, priced_costs,
                                            diagonals, STEP)) is not None
                and found.cost <= budget]
    if not standing:
        return head
    verb = "stands" if len(standing) == 1 else "stand"
    return f"{head}: {listed(standing)} {verb} in the way, and no way round fits"
