"""Deployment zones (engine.zones): each seat along its own edge, filled from the middle."""

from __future__ import annotations

import pytest

from engine.grid import Square, square_name
from engine.zones import edge_zone


def names(squares: list[Square]) -> list[str]:
    return [square_name(sq) for sq in squares]


def test_each_seat_has_its_own_edge() -> None:
    """Seat 0 the bottom, 1 the top, 2 the left, 3 the right edge; the middle fills first
    (of the two middle squares of an even line, the one nearer a1)."""
    assert names(edge_zone(0, 4, 4, lines=(0,))) == ["b1", "c1", "a1", "d1"]
    assert names(edge_zone(1, 4, 4, lines=(0,))) == ["b4", "c4", "a4", "d4"]
    assert names(edge_zone(2, 4, 5, lines=(0,))) == ["a3", "a2", "a4", "a1", "a5"]
    assert names(edge_zone(3, 4, 5, lines=(0,))) == ["d3", "d2", "d4", "d1", "d5"]


def test_lines_fill_in_the_order_given_and_the_inset_leaves_the_corners() -> None:
    """(1, 0): the front line, then the edge; inset 1 leaves a square free at each end."""
    assert names(edge_zone(0, 5, 5, lines=(1, 0), inset=1)) == ["c2", "b2", "d2", "c1", "b1", "d1"]


def test_without_lines_every_line_up_to_the_middle_edge_first() -> None:
    zone = edge_zone(1, 3, 5)
    assert names(zone) == ["b5", "a5", "c5", "b4", "a4", "c4"]  # 5 rows: 2 a side, the middle free


def test_a_fifth_seat_has_no_edge() -> None:
    with pytest.raises(ValueError, match="seat 4 has no edge"):
        edge_zone(4, 6, 6)
