"""The square grid every ruleset plays on: names, distance, sight and least-cost paths.

Squares are named like chess: column letters then row number, `a1` bottom-left, and
`aa` follows `z` (spreadsheet-style columns). Distances are Chebyshev: the 8
surrounding squares are adjacent.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Iterable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType
from typing import NamedTuple

_SQUARE_RE = re.compile(r"^([a-z]+)([1-9][0-9]*)$")


class SquareError(ValueError):
    """A square name that does not parse or lies off the grid."""


class Square(NamedTuple):
    """Zero-based column and row; `a1` is (0, 0)."""

    col: int
    row: int

    @property
    def name(self) -> str:
        return square_name(self)

    def __str__(self) -> str:
        return square_name(self)


def column_name(col: int) -> str:
    if col < 0:
        raise SquareError(f"negative column {col}")
    letters = ""
    n = col + 1
    while n:
        n, rem = divmod(n - 1, 26)
        letters = chr(ord("a") + rem) + letters
    return letters


# Names and parses are cached: every state load, dump and order line converts squares,
# thousands of times a round, among a few hundred distinct squares.
@lru_cache(maxsize=16384)
def square_name(sq: tuple[int, int]) -> str:
    return f"{column_name(sq[0])}{sq[1] + 1}"


@lru_cache(maxsize=16384)
def parse_square(text: str) -> Square:
    """`c3` → Square(2, 2); case-insensitive. Raises SquareError with a readable reason
    (a failed parse is not cached: lru_cache keeps only returned values)."""
    m = _SQUARE_RE.match(text.strip().lower())
    if not m:
        raise SquareError(f"{text!r} is not a square name (like a1 or c7)")
    letters, digits = m.groups()
    col = 0
    for ch in letters:
        col = col * 26 + (ord(ch) - ord("a") + 1)
    return Square(col - 1, int(digits) - 1)


def distance(a: Square, b: Square) -> int:
    """Chebyshev distance: 'within N squares' means distance <= N."""
    # Indexes and comparisons instead of attribute lookups and max/abs calls: every
    # ruleset asks this thousands of times a round.
    dc, dr = a[0] - b[0], a[1] - b[1]
    dc, dr = (dc if dc >= 0 else -dc), (dr if dr >= 0 else -dr)
    return dc if dc > dr else dr


def adjacent(a: Square, b: Square) -> bool:
    return distance(a, b) == 1


_STEPS_8 = [(dc, dr) for dc in (-1, 0, 1) for dr in (-1, 0, 1) if (dc, dr) != (0, 0)]
_STEPS_4 = [(1, 0), (-1, 0), (0, 1), (0, -1)]

# The eight facings, clockwise from north (towards higher rows).
DIRECTIONS: dict[str, tuple[int, int]] = {
    "n": (0, 1), "ne": (1, 1), "e": (1, 0), "se": (1, -1),
    "s": (0, -1), "sw": (-1, -1), "w": (-1, 0), "nw": (-1, 1),
}


def direction_between(a: Square, b: Square) -> str | None:
    """The facing that points from a towards b (by sign of each axis), None if a == b."""
    dc = (b.col > a.col) - (b.col < a.col)
    dr = (b.row > a.row) - (b.row < a.row)
    for name, step in DIRECTIONS.items():
        if step == (dc, dr):
            return name
    return None


Cost = int
NO_SQUARES: frozenset[Square] = frozenset()
NO_COSTS: Mapping[Square, Cost] = MappingProxyType({})


class Costs(NamedTuple):
    """A cost table for Grid.search: what a step into a square costs.

    A step costs `step`, plus `diagonal` when it is diagonal, plus `enter[to]` (a
    square dearer to enter wherever it is entered from: rough ground, a square next to an
    enemy), plus the rise `height[to] - height[frm]` when that is above 0 (climbing onto
    a rooftop; going down or along is free). Squares in `closed` are never entered (the
    grid's blocking terrain never is either); the start square itself is never refused.
    Squares left out of enter and height count 0. Costs are whole numbers, step >= 1.
    (A NamedTuple: a search makes one, and it is a fraction of a dataclass to make.)
    """

    step: Cost = 1
    diagonal: Cost = 0
    closed: AbstractSet[Square] = NO_SQUARES
    enter: Mapping[Square, Cost] = NO_COSTS
    height: Mapping[Square, Cost] = NO_COSTS

    @property
    def uniform(self) -> bool:
        """Every step costs `step`: the search is a walk outwards ring by ring."""
        return not (self.diagonal or self.enter or self.height)


PLAIN = Costs()


@dataclass(frozen=True)
class Path:
    squares: tuple[Square, ...]  # from the first square entered to the destination
    cost: Cost

    @property
    def end(self) -> Square | None:
        return self.squares[-1] if self.squares else None


@dataclass
class Grid:
    """Width × height squares with terrain. Terrain kinds are the ruleset's words."""

    width: int
    height: int
    terrain: dict[Square, str] = field(default_factory=dict)
    blocks_sight: frozenset[str] = frozenset({"wall"})
    blocks_move: frozenset[str] = frozenset({"wall"})

    def __post_init__(self) -> None:
        if not (1 <= self.width <= 702 and 1 <= self.height <= 999):
            raise SquareError(f"grid size {self.width}x{self.height} is out of range")

    # -- squares -------------------------------------------------------------
    def contains(self, sq: Square) -> bool:
        return 0 <= sq.col < self.width and 0 <= sq.row < self.height

    def square(self, text: str) -> Square:
        sq = parse_square(text)
        if not self.contains(sq):
            raise SquareError(f"{sq.name} is off the {self.width}x{self.height} grid")
        return sq

    def squares(self) -> Iterator[Square]:
        for row in range(self.height):
            for col in range(self.width):
                yield Square(col, row)

    def neighbours(self, sq: Square, diagonals: bool = True) -> Iterator[Square]:
        for dc, dr in _STEPS_8 if diagonals else _STEPS_4:
            n = Square(sq.col + dc, sq.row + dr)
            if self.contains(n):
                yield n

    def terrain_at(self, sq: Square) -> str | None:
        return self.terrain.get(sq)

    def passable(self, sq: Square) -> bool:
        return self.contains(sq) and self.terrain.get(sq) not in self.blocks_move

    # -- sight ---------------------------------------------------------------
    def line(self, a: Square, b: Square) -> list[Square]:
        """Squares strictly between a and b on the Bresenham line between centres.

        Drawn from the lower endpoint so that line(a, b) and line(b, a) hold the same
        squares: sight is symmetric.
        """
        if (b.col, b.row) < (a.col, a.row):
            return list(reversed(self.line(b, a)))
        x0, y0, x1, y1 = a.col, a.row, b.col, b.row
        dx, dy = abs(x1 - x0), -abs(y1 - y0)
        sx = 1 if x0 < x1 else -1
        sy = 1 if y0 < y1 else -1
        err = dx + dy
        out: list[Square] = []
        x, y = x0, y0
        while (x, y) != (x1, y1):
            e2 = 2 * err
            if e2 >= dy:
                err += dy
                x += sx
            if e2 <= dx:
                err += dx
                y += sy
            if (x, y) != (x1, y1):
                out.append(Square(x, y))
        return out

    def sight(self, a: Square, b: Square, occupied: Iterable[Square] = ()) -> Sight:
        """Line of sight from a to b: blocked by blocking terrain; units partly obscure."""
        between = self.line(a, b)
        occ = set(occupied)
        blockers = [s for s in between if self.terrain.get(s) in self.blocks_sight]
        obscurers = [s for s in between if s in occ or self.terrain.get(s) == "cover"]
        return Sight(clear=not blockers, blockers=tuple(blockers), obscurers=tuple(obscurers))

    # -- movement ------------------------------------------------------------
    def search(
        self, start: Square, budget: Cost, costs: Costs = PLAIN, diagonals: bool = True,
        goal: Square | None = None, min_step: Cost = 0,
    ) -> dict[Square, tuple[Cost, Square | None]]:
        """Every square reachable within budget: square → (least cost, previous square),
        the start included at (0, None). The one least-cost search of every ruleset.

        A least-cost (Dijkstra) search over the cost table `costs`. It explores squares
        by (cost, square), neighbours in the order of engine.grid's step table (columns
        then rows, -1 to 1), and keeps the first route found to a square unless a later
        one is strictly cheaper: so equal-cost ties always break the same way, and the
        dict's order is the order squares were first reached. With a goal the search
        stops once the goal's cost is final (its entry is then exactly what the full
        search gives; other entries may be missing). With a goal and min_step > 0 (no
        step ever costs less) it is an A* search that skips squares whose distance to
        the goal cannot fit the budget: the goal's cost is still the least, though among
        equally cheap routes another may be the one returned. A uniform table without a
        goal is walked ring by ring, with the same result and order, without a heap.
        """
        if costs.uniform and goal is None:
            return self._rings(start, budget, costs, diagonals)
        # The hot path of every move: neighbours and their step costs come from a shared
        # table and the cost table is read inline, because bots and resolution search
        # thousands of times a second.
        step, diagonal = costs.step, costs.diagonal
        table = _step_table(self.width, self.height, diagonals, step, diagonal)
        closed, enter, height = costs.closed, costs.enter, costs.height
        terrain, blocked = self.terrain, self.blocks_move
        guide = min_step if goal is not None else 0
        gc, gr = goal if goal is not None else (0, 0)
        best: dict[Square, tuple[Cost, Square | None]] = {start: (0, None)}
        heap: list[tuple[Cost, Cost, Square]] = [(0, 0, start)]
        pop, push = heapq.heappop, heapq.heappush
        while heap:
            _estimate, cost, sq = pop(heap)
            if cost > best[sq][0]:
                continue
            if sq == goal:
                break
            around = table.get(sq)
            if around is None:  # a start off the grid
                around = tuple((n, step + (diagonal if n[0] != sq[0] and n[1] != sq[1] else 0))
                               for n in self.neighbours(sq, diagonals))
            here = height.get(sq, 0) if height else 0
            for n, c in around:
                if n in closed or (terrain and terrain.get(n) in blocked):
                    continue
                total = cost + c
                if enter:
                    total += enter.get(n, 0)
                if height:
                    rise = height.get(n, 0) - here
                    if rise > 0:
                        total += rise
                if guide:  # Chebyshev distance to the goal, spelled out (no max/abs calls)
                    dx, dy = n[0] - gc, n[1] - gr
                    dx, dy = (dx if dx >= 0 else -dx), (dy if dy >= 0 else -dy)
                    rest = guide * (dx if dx > dy else dy)
                else:
                    rest = 0
                if total + rest > budget:
                    continue
                known = best.get(n)
                if known is None or total < known[0]:
                    best[n] = (total, sq)
                    push(heap, (total + rest, total, n))
        return best

    def _rings(self, start: Square, budget: Cost, costs: Costs, diagonals: bool
               ) -> dict[Square, tuple[Cost, Square | None]]:
        """search() for a uniform table without a goal: every step costs the same, so the
        squares k steps out are ring k, each ring walked in square order (the order the
        heap would pop them in); a square's previous one is the first of ring k - 1 that
        reaches it, as in the heap search."""
        table = _step_table(self.width, self.height, diagonals, costs.step, 0)
        closed, terrain, blocked = costs.closed, self.terrain, self.blocks_move
        best: dict[Square, tuple[Cost, Square | None]] = {start: (0, None)}
        ring = [start]
        for k in range(1, budget // costs.step + 1):
            cost = k * costs.step
            found: list[Square] = []
            for p in ring:
                around = table.get(p)
                if around is None:  # a start off the grid
                    around = tuple((n, 0) for n in self.neighbours(p, diagonals))
                for n, _ in around:
                    if n not in best and n not in closed and not (terrain and terrain.get(n) in blocked):
                        best[n] = (cost, p)
                        found.append(n)
            if not found:
                break
            found.sort()
            ring = found
        return best

    def distances(self, start: Square, costs: Costs = PLAIN, diagonals: bool = True,
                  budget: Cost | None = None) -> dict[Square, Cost]:
        """The distance field from start: every square it can reach (within budget, if
        given) → the least cost of going there from start, in search()'s order. Under
        `costs`, which need not be the same the other way round (climbing is dearer than
        coming down). For bots that rank many squares by how far they are."""
        found = self.search(start, _UNBOUNDED if budget is None else budget, costs, diagonals)
        return {sq: cost for sq, (cost, _) in found.items()}

    def path(
        self,
        start: Square,
        goal: Square,
        budget: Cost,
        costs: Costs = PLAIN,
        diagonals: bool = True,
        min_step: Cost = 0,
    ) -> Path | None:
        """The cheapest path from start to goal within budget, or None (see search for
        min_step)."""
        best = self.search(start, budget, costs, diagonals, goal, min_step)
        if goal not in best:
            return None
        return Path(_walk_back(best, goal), best[goal][0])

    def straight_path(
        self,
        start: Square,
        goal: Square,
        budget: Cost,
        closed: AbstractSet[Square],
        diagonals: bool = True,
        weight: int = 64,
        bend: int = 3,
        scale: int = 1,
    ) -> Path | None:
        """The straightest of the shortest paths: what path() returns (the same squares and
        cost) with straight_costs(...) as the table: `closed` never entered, a step
        costs weight + min(bend, scale × |cross| // span), the stray of the square entered
        from the straight line start → goal. Of the equally short paths the straightest
        wins, so a move drawn on the board has no zigzag; the cost // weight is the number
        of steps while (steps) × bend < weight.

        Worked out without a heap or a callback a step. Entering a square costs the same
        from wherever it is entered, and while (budget // weight) × bend < weight any path
        of k steps costs less than any of k + 1; so a square's least cost is weight × its
        fewest steps + the least stray sum over its fewest-step routes, and the heap
        search's previous square is the lowest (in square order) one step nearer with
        that least sum. Rings k steps out are walked for k = the distance to the goal,
        then k + 1 when closed squares are in the way, keeping only squares from which
        the goal is still within k steps. Otherwise (a larger bend, a square off the
        grid) it is the general search.
        """
        table = _step_table(self.width, self.height, diagonals, 1, 0)
        blocked = self.blocks_move
        walls = [sq for sq, kind in self.terrain.items() if kind in blocked]
        shut = closed | set(walls) if walls else closed
        if (budget // weight) * bend >= weight or not (self.contains(start) and self.contains(goal)):
            return self.path(start, goal, budget, straight_costs(self, start, goal, shut, weight, bend,
                                                                 scale), diagonals)
        if start == goal:
            return Path((), 0)
        fc, fr = start
        gc, gr = goal
        gdc, gdr = gc - fc, gr - fr
        k = span = distance(start, goal)
        while k * weight <= budget:
            # square → (least stray sum, previous square), rings 0..j so far
            found: dict[Square, tuple[int, Square | None]] = {start: (0, None)}
            ring = [start]
            for j in range(1, k + 1):
                left = k - j  # steps still to go from ring j
                new: dict[Square, tuple[int, Square]] = {}
                for p in ring:
                    bp = found[p][0]
                    for n, _ in table[p]:
                        if n in found or n in shut:
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
                    stray = scale * (cross if cross >= 0 else -cross) // span
                    found[n] = (bp + (stray if stray < bend else bend), p)
                ring = list(new)
            if goal in found:
                cost = k * weight + found[goal][0]
                if cost > budget:
                    return None
                out: list[Square] = []
                sq: Square | None = goal
                while sq is not None and sq != start:
                    out.append(sq)
                    sq = found[sq][1]
                return Path(tuple(reversed(out)), cost)
            k += 1
        return None

    def path_via(
        self,
        start: Square,
        waypoints: list[Square],
        budget: Cost,
        costs: Costs = PLAIN,
        diagonals: bool = True,
        min_step: Cost = 0,
    ) -> Path | None:
        """The cheapest path through each waypoint in turn, all within one budget."""
        squares: list[Square] = []
        spent = 0
        here = start
        for wp in waypoints:
            leg = self.path(here, wp, budget - spent, costs, diagonals, min_step)
            if leg is None:
                return None
            squares.extend(leg.squares)
            spent += leg.cost
            here = wp
        return Path(tuple(squares), spent)


def straight_costs(grid: Grid, start: Square, goal: Square, closed: AbstractSet[Square], weight: int,
                   bend: int, scale: int) -> Costs:
    """straight_path's cost as a table for search() (its general fallback): a step costs
    weight, entering a square min(bend, scale × |cross| // span) more, its stray from the
    straight line start → goal."""
    span = max(1, distance(start, goal))
    dc, dr = goal.col - start.col, goal.row - start.row
    enter = {sq: min(bend, scale * abs((sq.col - start.col) * dr - (sq.row - start.row) * dc) // span)
             for sq in grid.squares()}
    return Costs(step=weight, closed=closed, enter=enter)


_UNBOUNDED: Cost = 1 << 62  # a budget no search reaches


# Keyed by grid shape: a server meets a handful, the engine's tests every shape up to 14 x 14
# (about 400 keys), which a smaller bound would recompute on nearly every call.
@lru_cache(maxsize=512)
def _step_table(width: int, height: int, diagonals: bool, step: Cost, diagonal: Cost
                ) -> dict[Square, tuple[tuple[Square, Cost], ...]]:
    """Each square of a grid shape → its neighbours in search order, each with the cost
    of the step before the cost table's enter and height."""
    steps = _STEPS_8 if diagonals else _STEPS_4
    return {Square(c, r): tuple((Square(c + dc, r + dr), step + (diagonal if dc and dr else 0))
                                for dc, dr in steps if 0 <= c + dc < width and 0 <= r + dr < height)
            for r in range(height) for c in range(width)}


def _walk_back(best: Mapping[Square, tuple[Cost, Square | None]], goal: Square) -> tuple[Square, ...]:
    out: list[Square] = []
    sq: Square | None = goal
    while sq is not None and best[sq][1] is not None:
        out.append(sq)
        sq = best[sq][1]
    return tuple(reversed(out))


@dataclass(frozen=True)
class Sight:
    clear: bool
    blockers: tuple[Square, ...]
    obscurers: tuple[Square, ...]

    @property
    def partly_obscured(self) -> bool:
        return bool(self.obscurers)
