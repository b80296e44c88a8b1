"""The board as plain text for a monospace font: the grid of the plain-text mail part.

    the grid, row numbers on both sides, column letters above and below:

         a   b   c   d
    4    .   .   #   .  4
    3    .  A1   #   .  3
    2    .   .   .  B1  2
    1    .   ~   .   .  1
         a   b   c   d

Row 1 is at the bottom, as squares are named (`a1` bottom-left, like chess). Every
square takes CELL characters and one space, so a 3-letter label never touches its
neighbour. Pieces win over terrain; the legend lists every piece with its square and
every terrain symbol, so nothing drawn is left unexplained.
"""

from __future__ import annotations

from engine.contract import Board
from service.render.grid_legend import (
    CELL,
    EMPTY,
    columns,
    mark_text,
    piece_rows,
    pieces_at,
    short_label,
    square_key,
    terrain_symbols,
)


def _row_label(n: int, width: int) -> str:
    return str(n).rjust(width)


def ascii_grid(board: Board) -> str:
    """Only the grid, with coordinates; every line has the same length."""
    symbols = terrain_symbols(board)
    stacks = pieces_at(board)
    terrain = {k.lower(): v for k, v in board.terrain.items()}
    margin = len(str(board.height))
    header = " " * (margin + 2) + " ".join(c.rjust(CELL) for c in columns(board))
    lines = [header.rstrip()]
    for row in range(board.height - 1, -1, -1):
        cells = []
        for col in range(board.width):
            key = square_key(col, row)
            if key in stacks:
                cell = short_label(stacks[key][0])
            elif key in terrain:
                cell = symbols[terrain[key]]
            else:
                cell = EMPTY
            cells.append(cell.rjust(CELL))
        number = _row_label(row + 1, margin)
        lines.append(f"{number}  {' '.join(cells)}  {number.strip()}")
    lines.append(header.rstrip())
    return "\n".join(lines)


def ascii_legend(board: Board) -> str:
    """Pieces (label, square, side, health, notes), terrain symbols and last round's marks."""
    rows = piece_rows(board)
    out: list[str] = []
    if rows:
        out.append("Pieces:")
        width_side = max(len(r.side) for r in rows)
        for r in rows:
            extra = "  ".join(x for x in (f"health {r.health}" if r.health else "", r.note,
                                          f"({r.kind_shown})" if r.kind_shown else "") if x)
            out.append(f"  {r.label:<{CELL}}  {r.square:<4}  {r.side:<{width_side}}  {extra}".rstrip())
    symbols = terrain_symbols(board)
    if symbols:
        out.append("Terrain:")
        out.append(f"  {EMPTY:<{CELL}}  open ground")
        for kind, sym in symbols.items():
            desc = board.legend.get(kind, "")
            out.append(f"  {sym:<{CELL}}  {kind}" + (f": {desc}" if desc else ""))
    stacked = [s for s, ps in pieces_at(board).items() if len(ps) > 1]
    if stacked:
        out.append("Shared squares (the first piece is drawn): " + ", ".join(sorted(stacked)))
    if board.marks:
        out.append("Last round:")
        out.extend(f"  {mark_text(m)}" for m in board.marks)
    return "\n".join(out)


def ascii_board(board: Board) -> str:
    """Grid and legend, as the plain-text mail shows them."""
    legend = ascii_legend(board)
    return ascii_grid(board) + ("\n\n" + legend if legend else "")
