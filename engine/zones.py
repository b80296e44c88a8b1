"""Deployment zones: the squares a seat's units start on, along the seat's own edge.

Seat 0 deploys along the bottom edge (row 1), seat 1 along the top, seat 2 the left
edge (column a) and seat 3 the right: opposite sides first, so two players start as far
apart as the grid allows.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.grid import Square

EDGES = ("bottom", "top", "left", "right")  # seat → its edge


def edge_zone(seat: int, width: int, height: int, lines: Sequence[int] | None = None,
              inset: int = 0) -> list[Square]:
    """The squares of seat's zone in filling order (the first units take the first).

    A zone is lines parallel to the seat's edge (`EDGES[seat]`), each named by its depth
    from that edge (0: the edge line itself). `lines` gives the depths in filling order
    ((1, 0): the front line, then the edge line); None is every line from the edge to the
    middle of the grid, edge first. Each line fills from its middle outwards (of two
    middle squares, the one nearer a1 first) and leaves `inset` squares free at both
    ends (the corners, where other seats' edges meet it).
    """
    if not 0 <= seat < len(EDGES):
        raise ValueError(f"seat {seat} has no edge: seats 0 to {len(EDGES) - 1} deploy on the edges")
    along, across = (width, height) if seat < 2 else (height, width)
    order = sorted(range(inset, along - inset), key=lambda i: (abs(2 * i - (along - 1)), i))
    depths = range(across // 2) if lines is None else lines
    out: list[Square] = []
    for depth in depths:
        for i in order:
            if seat == 0:
                out.append(Square(i, depth))
            elif seat == 1:
                out.append(Square(i, height - 1 - depth))
            elif seat == 2:
                out.append(Square(depth, i))
            else:
                out.append(Square(width - 1 - depth, i))
    return out
