"""The square grid every ruleset plays on: names, distance, sight and least-cost paths.

Squares are named like chess: column letters then row number, `a1` bottom-left, and
`aa` follows `z` (spreadsheet-style columns). Distances are Chebyshev: the 8
surrounding squares are adjacent.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from functools import lru_cache
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
StepCost = Callable[[Square, Square], Cost | None]


def straightest(start: Square, goal: Square, step_cost: StepCost, weight: int = 64,
                bend: int = 3) -> StepCost:
    """step_cost × weight, plus up to `bend` for a step that strays from the straight
    line start → goal: of the equally cheap paths the straightest wins, so a move drawn
    on the board has no zigzag. A path's scaled cost // weight is its real cost as long
    as (steps on it) × bend < weight.
    """
    span = max(1, distance(start, goal))
    dc, dr = goal.col - start.col, goal.row - start.row

    def cost(frm: Square, to: Square) -> Cost | None:
        c = step_cost(frm, to)
        if c is None:
            return None
        cross = (to.col - start.col) * dr - (to.row - start.row) * dc
        return c * weight + min(bend, abs(cross) // span)
    return cost


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
    def reachable(
        self, start: Square, budget: Cost, step_cost: StepCost, diagonals: bool = True,
        goal: Square | None = None, min_step: Cost = 0,
    ) -> dict[Square, tuple[Cost, Square | None]]:
        """Every square reachable within budget: square → (least cost, previous square).

        step_cost(frm, to) gives the cost of one step, or None when it is forbidden.
        Ties between equal-cost paths break by square order, so results are deterministic.
        With a goal the search stops once the goal's cost is final (its entry is then
        exactly what the full search gives; other entries may be missing). With a goal and
        min_step > 0 (no step ever costs less) it is an A* search that skips squares
        whose distance to the goal cannot fit the budget: the goal's cost is still the
        least, though among equally cheap routes another may be the one returned.
        """
        # The hot path of every move check: neighbours come from a shared table and
        # passable() is inlined (same order, same results) because bots and resolution
        # call this thousands of times a second.
        table = _neighbour_table(self.width, self.height, diagonals)
        terrain, blocked = self.terrain, self.blocks_move
        guide = min_step if goal is not None else 0
        gc, gr = goal if goal is not None else (0, 0)
        best: dict[Square, tuple[Cost, Square | None]] = {start: (0, None)}
        heap: list[tuple[Cost, Cost, Square]] = [(0, 0, start)]
        while heap:
            _estimate, cost, sq = heapq.heappop(heap)
            if cost > best[sq][0]:
                continue
            if sq == goal:
                break
            around = table.get(sq)
            if around is None:
                around = table[sq] = tuple(self.neighbours(sq, diagonals))
            for n in around:
                if terrain and terrain.get(n) in blocked:
                    continue
                c = step_cost(sq, n)
                if c is None:
                    continue
                total = cost + c
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
                    heapq.heappush(heap, (total + rest, total, n))
        return best

    def path(
        self,
        start: Square,
        goal: Square,
        budget: Cost,
        step_cost: StepCost,
        diagonals: bool = True,
        min_step: Cost = 0,
    ) -> Path | None:
        """The cheapest path from start to goal within budget, or None (see reachable
        for min_step)."""
        best = self.reachable(start, budget, step_cost, diagonals, goal, min_step)
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
        """What path(start, goal, budget, cost) returns (the same squares and cost) when
        cost(frm, to) is None for a square in `closed` and otherwise
        weight + min(bend, scale × |cross| // span), the stray of `to` from the straight
        line start → goal as in straightest(); scale 1 is straightest() over steps of 1.

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
        table = _neighbour_table(self.width, self.height, diagonals)
        blocked = self.blocks_move
        walls = [sq for sq, kind in self.terrain.items() if kind in blocked]
        shut = closed | set(walls) if walls else closed
        if (budget // weight) * bend >= weight or not (self.contains(start) and self.contains(goal)):
            return self.path(start, goal, budget, straight_cost(start, goal, shut, weight, bend, scale),
                             diagonals)
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
                    around = table.get(p)
                    if around is None:
                        around = table[p] = tuple(self.neighbours(p, diagonals))
                    for n in around:
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
        step_cost: StepCost,
        diagonals: bool = True,
        min_step: Cost = 0,
    ) -> Path | None:
        """The cheapest path through each waypoint in turn, all within one budget."""
        squares: list[Square] = []
        spent = 0
        here = start
        for wp in waypoints:
            leg = self.path(here, wp, budget - spent, step_cost, diagonals, min_step)
            if leg is None:
                return None
            squares.extend(leg.squares)
            spent += leg.cost
            here = wp
        return Path(tuple(squares), spent)


def straight_cost(start: Square, goal: Square, closed: AbstractSet[Square], weight: int, bend: int,
                   scale: int) -> StepCost:
    """straight_path's step cost as a callback (for path(); straight_path's fallback)."""
    span = max(1, distance(start, goal))
    dc, dr = goal.col - start.col, goal.row - start.row

    def cost(_frm: Square, to: Square) -> Cost | None:
        if to in closed:
            return None
        cross = (to.col - start.col) * dr - (to.row - start.row) * dc
        return weight + min(bend, scale * abs(cross) // span)
    return cost


# Each grid shape's neighbour lists, filled lazily as searches visit squares.
_NEIGHBOUR_TABLES: dict[tuple[int, int, bool], dict[Square, tuple[Square, ...]]] = {}


def _neighbour_table(width: int, height: int, diagonals: bool) -> dict[Square, tuple[Square, ...]]:
    return _NEIGHBOUR_TABLES.setdefault((width, height, diagonals), {})


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
