"""The battlefield: a few walls and half-cover squares in the middle, deployment zones
at the edges.

Half cover ("cover") partly obscures a line of sight: the seed's "obscured partly
(50%)" gives the defender +5. Walls block movement and sight. The layout is
symmetric under a half turn so that no seat gets the better side.
"""

from __future__ import annotations

from engine.grid import Square
from engine.zones import edge_zone

MIN_SIDE = 6  # the smallest grid side: 2 × (6 − 4) = 4 units per deployment zone
COVER = "cover"
WALL = "wall"
LEGEND = {COVER: "half cover, passable; +5 defence against shots across it",
          WALL: "blocks movement and sight"}


def battlefield(width: int, height: int, kind: str) -> dict[Square, str]:
    """Terrain for the `map` option: "open" is bare, "ruins" has 4 cover squares, 2 walls."""
    if kind == "open" or width < 8 or height < 8:
        return {}
    mid_c, mid_r = width // 2, height // 2
    half: dict[Square, str] = {
        Square(2, mid_r - 1): COVER,
        Square(mid_c - 1, mid_r): COVER,
        Square(width // 4, mid_r): WALL,
    }
    out = dict(half)
    for sq, kind_ in half.items():
        out[Square(width - 1 - sq.col, height - 1 - sq.row)] = kind_
    return out


def deployment_zone(seat: int, players: int, width: int, height: int) -> list[Square]:
    """The squares a seat's units start on, in filling order: front line first, centred.

    Seat 0 deploys along the bottom edge, seat 1 the top, seats 2 and 3 the left and
    right edges; with more than two players the corners are left free.
    """
    return edge_zone(seat, width, height, lines=(1, 0), inset=2 if players > 2 else 0)


def zone_capacity(width: int, height: int) -> int:
    """How many units any seat can deploy, whatever the number of players."""
    return 2 * (min(width, height) - 4)
