"""The mails list a player's units as the pages do: B2 before B10."""

from __future__ import annotations

from engine.contract import Board, Piece
from engine.rulesets.universal.orders import MOVE
from service.outbound.context import legal_summary, unit_lines


def test_mails_list_units_in_natural_order() -> None:
    names = ["B1", "B10", "B11", "B2", "B9"]  # as a sorted JSON object would hold them
    board = Board(width=12, height=2, terrain={},
                  pieces=[Piece(n, "a1", "bob", "unit", n) for n in names], sides=["bob"])
    assert [line.split()[0] for line in unit_lines(board, "bob")] == ["B1", "B2", "B9", "B10", "B11"]
    legal = {n: [MOVE.order(n, "b2")] for n in names}
    assert [line.split(":")[0] for line in legal_summary(legal)] == ["B1", "B2", "B9", "B10", "B11"]
