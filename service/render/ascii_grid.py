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
neighbour. Wide boards come in bands of columns, so no line is longer than 78.
Pieces win over terrain; the legend lists every piece with its square and
every terrain symbol, so nothing drawn is left unexplained.
"""

from __future__ import annotations

from engine.contract import Board, Piece
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

MAX_WIDTH = 78  # a plain-text mail line that no client wraps


def _row_label(n: int, width: int) -> str:
    return str(n).rjust(width)


def _cell(col: int, row: int, stacks: dict[str, list[Piece]], terrain: dict[str, str],
          symbols: dict[str, str]) -> str:
    key = square_key(col, row)
    if key in stacks:
        return short_label(stacks[key][0])
    if key in terrain:
        return symbols[terrain[key]]
    return EMPTY


def _band(board: Board, cols: range, margin: int, cells: list[list[str]]) -> list[str]:
    names = columns(board)
    header = (" " * (margin + 2) + " ".join(names[c].rjust(CELL) for c in cols)).rstrip()
    lines = [header]
    for row in range(board.height - 1, -1, -1):
        number = _row_label(row + 1, margin)
        lines.append(f"{number}  {' '.join(cells[row][c].rjust(CELL) for c in cols)}  {number.strip()}")
    lines.append(header)
    return lines


def ascii_grid(board: Board, max_width: int = MAX_WIDTH) -> str:
    """Only the grid, with coordinates. A board too wide for max_width characters is cut
    into bands of columns (a-p, then q-af, ...), one under the other, so no line wraps."""
    symbols = terrain_symbols(board)
    stacks = pieces_at(board)
    terrain = {k.lower(): v for k, v in board.terrain.items()}
    margin = len(str(board.height))
    cells = [[_cell(col, row, stacks, terrain, symbols) for col in range(board.width)]
             for row in range(board.height)]
    per_band = max(1, (max_width - 2 * margin - 4 + 1) // (CELL + 1))
    bands = [range(start, min(start + per_band, board.width)) for start in range(0, board.width, per_band)]
    return "\n\n".join("\n".join(_band(board, cols, margin, cells)) for cols in bands)


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
