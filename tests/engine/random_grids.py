"""Random positions for comparing a fast search with the general one (Grid.path/reachable)."""

from __future__ import annotations

import random
from dataclasses import dataclass

from engine.grid import Grid, Square


@dataclass
class Position:
    grid: Grid  # 2..largest squares a side, up to a fifth of them walls
    start: Square
    near: list[Square]  # squares within `reach` of start
    closed: set[Square]  # up to half the squares (start among them or not, as asked)
    diagonals: bool  # 4 times in 5


def random_position(rnd: random.Random, largest: int, reach: int, start_closed: bool) -> Position:
    width, height = rnd.randint(2, largest), rnd.randint(2, largest)
    every = [Square(c, r) for c in range(width) for r in range(height)]
    walls = rnd.sample(every, rnd.randint(0, len(every) // 5))
    start = rnd.choice(every)
    near = [sq for sq in every if max(abs(sq.col - start.col), abs(sq.row - start.row)) <= reach]
    closed = set(rnd.sample(every, rnd.randint(0, len(every) // 2)))
    closed = closed | {start} if start_closed else closed - {start}
    return Position(Grid(width, height, dict.fromkeys(walls, "wall")), start, near, closed,
                    rnd.random() < 0.8)
