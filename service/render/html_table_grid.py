"""The board as an HTML table for mail clients: the grid of the HTML mail part.

Mail clients drop <style> blocks, SVG, scripts and often remote images, so the grid is
a plain <table> with inline styles only: one cell per square, a light fill for terrain,
pieces written in their seat's colour, coordinates round the edge. Every text is
escaped (markupsafe), so a hostile unit note or player name stays text. A table row is a
line, so the mail's encoding (quoted-printable, binascii's) meets lines of a row's length.
"""

from __future__ import annotations

from markupsafe import Markup, escape

from engine.contract import Board
from service.render.grid_legend import (
    DS,
    EMPTY,
    TERRAIN_FILLS,
    columns,
    mark_text,
    piece_rows,
    pieces_at,
    short_label,
    side_colours,
    square_key,
    terrain_symbols,
)

# Colours and font stacks are the stylesheet's tokens (service.render.design).
_TABLE = f"border-collapse:collapse;font-family:{DS.mono};font-size:13px;color:{DS.text}"
_CELL = f"border:1px solid {DS.line};width:26px;height:26px;text-align:center;padding:0"
# A grid or table wider than a phone's screen scrolls inside this frame, not the whole mail
# (the layout's table is fixed to the screen's width).
_SCROLL = "overflow-x:auto;max-width:100%"
_EDGE = f"color:{DS.muted};width:22px;height:22px;text-align:center;padding:0;font-size:11px"


def _edge_row(board: Board) -> str:
    cells = "".join(f'<td style="{_EDGE}">{escape(c)}</td>' for c in columns(board))
    return f'<tr><td style="{_EDGE}"></td>{cells}<td style="{_EDGE}"></td></tr>'


def html_table_grid(board: Board) -> Markup:
    """The grid alone: a table of width+2 by height+2 cells."""
    symbols = terrain_symbols(board)
    stacks = pieces_at(board)
    terrain = {k.lower(): v for k, v in board.terrain.items()}
    rows = [_edge_row(board)]
    for row in range(board.height - 1, -1, -1):
        cells = [f'<td style="{_EDGE}">{row + 1}</td>']
        for col in range(board.width):
            key = square_key(col, row)
            kind = terrain.get(key)
            sym = symbols[kind] if kind else ""
            fill = TERRAIN_FILLS.get(sym, DS.terrain_other if kind else DS.surface)
            title = f"{key}" + (f" {kind}" if kind else "")
            if key in stacks:
                piece = stacks[key][0]
                ink, piece_fill = side_colours(board, piece.side)
                fill = piece_fill if not kind else fill
                title += " " + " ".join(f"{p.label} ({p.side or 'game'})" for p in stacks[key])
                body = f'<b style="color:{ink}">{escape(short_label(piece))}</b>'
            else:
                body = f'<span style="color:{DS.muted}">{escape(sym or EMPTY)}</span>'
            # width, height and bgcolor attributes too: Outlook's Word engine honours those.
            cells.append(f'<td width="26" height="26" bgcolor="{fill}" style="{_CELL};background:{fill}" '
                         f'title="{escape(title)}">{body}</td>')
        cells.append(f'<td style="{_EDGE}">{row + 1}</td>')
        rows.append("<tr>" + "".join(cells) + "</tr>")
    rows.append(_edge_row(board))
    head = f'<div style="{_SCROLL}"><table role="grid" cellpadding="0" cellspacing="0" style="{_TABLE}">'
    return Markup("\n".join([head, *rows, "</table></div>"]))


def html_legend(board: Board) -> Markup:
    """Pieces, terrain and last round's marks, as small tables and a list."""
    parts: list[str] = []
    rows = piece_rows(board)
    if rows:
        # No Kind column where the ruleset tells no pieces apart: it would be empty, and a
        # phone's width is short.
        kinds = any(r.kind_shown for r in rows)
        body = []
        for r in rows:
            ink, _ = side_colours(board, None if r.side == "game" else r.side)
            kind = f'<td style="padding:2px 8px">{escape(r.kind_shown)}</td>' if kinds else ""
            body.append(
                f'<tr><td style="padding:2px 8px;color:{ink}"><b>{escape(r.label)}</b></td>'
                f'<td style="padding:2px 8px">{escape(r.square)}</td>'
                f'<td style="padding:2px 8px">{escape(r.side)}</td>{kind}'
                f'<td style="padding:2px 8px">{escape(r.health)}</td>'
                f'<td style="padding:2px 8px">{escape(r.note)}</td></tr>'
            )
        head = "".join(
            f'<th style="padding:2px 8px;text-align:left">{h}</th>'
            for h in ("Piece", "Square", "Side", *(("Kind",) if kinds else ()), "Health", "Notes")
        )
        table = (f'<div style="{_SCROLL}"><table style="border-collapse:collapse;font-size:13px">'
                 f"<tr>{head}</tr>")
        parts.append(table + "\n" + "\n".join(body) + "\n</table></div>")
    symbols = terrain_symbols(board)
    if symbols:
        items = "".join(
            f"<li><code>{escape(sym)}</code> {escape(kind)}"
            + (f": {escape(board.legend[kind])}" if board.legend.get(kind) else "")
            + "</li>"
            for kind, sym in symbols.items()
        )
        parts.append(f'<p style="margin:8px 0 2px">Terrain:</p><ul style="margin:0">{items}</ul>')
    if board.marks:
        marks = "".join(f"<li>{escape(mark_text(m, '→'))}</li>" for m in board.marks)
        parts.append(f'<p style="margin:8px 0 2px">Last round:</p><ul style="margin:0">{marks}</ul>')
    return Markup("".join(parts))


def html_board(board: Board) -> Markup:
    return html_table_grid(board) + html_legend(board)
