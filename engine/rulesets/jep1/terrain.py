"""Walls: optional terrain so that line of sight has something to be blocked by.

The seed plays on an empty table; ranged attacks there need "line of sight", which
only matters once something stands in the way. Option `walls` (default 0: the seed's
empty table) places that many wall squares at setup, by dice, between the two
deployment zones. Walls block movement and sight (units only partly obscure, which
jep1 ignores). They go on the b, d, f, ... columns only, so the a, c, e, ... columns
always stay open and no wall layout can cut the two sides apart.
"""

from __future__ import annotations

from engine.dice import Dice
from engine.grid import Square

WALL = "wall"
LEGEND = {WALL: "wall: blocks movement and line of sight"}


def wall_candidates(width: int, height: int, deploy_rows: int) -> list[Square]:
    return [Square(col, row) for row in range(deploy_rows, height - deploy_rows)
            for col in range(1, width, 2)]


def place_walls(count: int, width: int, height: int, deploy_rows: int, dice: Dice) -> list[Square]:
    """`count` distinct squares: each a d(n) pick among the n candidates still free."""
    free = wall_candidates(width, height, deploy_rows)
    walls: list[Square] = []
    for i in range(min(count, len(free))):
        walls.append(free.pop(dice.roll(len(free), f"wall {i + 1} square") - 1))
    return sorted(walls, key=lambda s: (s.row, s.col))
