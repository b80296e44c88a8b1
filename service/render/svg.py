"""The grid as inline SVG for the web pages, drawn from an engine Board.

Terrain fills, pieces in side colours with their label and health written on them
(colour is never the only signal: each piece carries its label, and its shape and
outline are the ones its ruleset declares in `Piece.look`; a black triangle on the edge
shows a piece's facing), and last round's marks as arrows drawn as each `Mark.look`
says; the caption puts the looks into words and the page adds a legend table naming
each piece's side. Nothing here knows a ruleset's piece or mark kinds. Every text is escaped. Shares
symbols and colours with the mail pictures through service.render.grid_legend.
The root carries its geometry (data-cell, data-margin, data-rows, data-columns) so the
player page's square picker can turn a click into a square name.
"""

from __future__ import annotations

from markupsafe import Markup, escape

from engine.contract import Board, Mark, Piece
from engine.grid import DIRECTIONS, SquareError, parse_square
from engine.looks import TONES, MarkLook, Outline, PieceLook, Shape, Tone
from service.render.grid_legend import (
    DS,
    TERRAIN_FILLS,
    columns,
    pieces_at,
    short_label,
    side_colours,
    terrain_symbols,
)

CELL = 44
MARGIN = 22
TONE_COLOURS: dict[Tone, str] = {"ink": "#333333", "red": "#c62828", "purple": "#6a1b9a", "teal": "#00838f",
                                 "blue": "#1565c0", "green": "#2e7d32", "orange": "#e65100"}
OUTLINES: dict[Outline, str] = {
    "solid": 'stroke-width="2"', "dashed": 'stroke-width="2" stroke-dasharray="3 2"',
    "dotted": 'stroke-width="2" stroke-dasharray="1 2"', "heavy": 'stroke-width="4"'}


def _centre(board: Board, square: str) -> tuple[float, float] | None:
    try:
        sq = parse_square(square)
    except SquareError:
        return None
    x = MARGIN + sq.col * CELL + CELL / 2
    y = MARGIN + (board.height - 1 - sq.row) * CELL + CELL / 2
    return float(x), float(y)


def _terrain(board: Board) -> list[str]:
    symbols = terrain_symbols(board)
    out = []
    for square, kind in sorted(board.terrain.items()):
        c = _centre(board, square)
        if c is None:
            continue
        fill = TERRAIN_FILLS.get(symbols.get(kind, ""), DS.terrain_other)
        x, y = c[0] - CELL / 2, c[1] - CELL / 2
        out.append(f'<rect x="{x:g}" y="{y:g}" width="{CELL}" height="{CELL}" fill="{fill}">'
                   f"<title>{escape(square)}: {escape(kind)}</title></rect>"
                   f'<text x="{x + 3:g}" y="{y + 11:g}" class="terrain">'
                   f"{escape(symbols.get(kind, '?'))}</text>")
    return out


def _grid_lines(board: Board) -> list[str]:
    w, h = board.width * CELL, board.height * CELL
    out = [f'<rect x="{MARGIN}" y="{MARGIN}" width="{w}" height="{h}" fill="none" stroke="#555"/>']
    for i in range(1, board.width):
        x: float = MARGIN + i * CELL
        out.append(f'<line x1="{x}" y1="{MARGIN}" x2="{x}" y2="{MARGIN + h}" stroke="#bbb"/>')
    for i in range(1, board.height):
        y: float = MARGIN + i * CELL
        out.append(f'<line x1="{MARGIN}" y1="{y}" x2="{MARGIN + w}" y2="{y}" stroke="#bbb"/>')
    for i, name in enumerate(columns(board)):
        x = MARGIN + i * CELL + CELL / 2
        out.append(f'<text x="{x:g}" y="{MARGIN - 6}" class="axis">{escape(name)}</text>')
    for row in range(board.height):
        y = MARGIN + (board.height - 1 - row) * CELL + CELL / 2 + 4
        out.append(f'<text x="{MARGIN / 2:g}" y="{y:g}" class="axis">{row + 1}</text>')
    return out


def _piece(board: Board, piece: Piece, stacked: int) -> str:
    c = _centre(board, piece.square)
    if c is None:
        return ""
    x, y = c[0] + stacked * 5, c[1] + stacked * 5
    stroke, fill = side_colours(board, piece.side)
    r = CELL * 0.4
    shape = _shape(piece.look, x, y, r, f'fill="{fill}" stroke="{stroke}" {OUTLINES[piece.look.outline]}')
    health = ""
    if piece.health is not None:
        hp = f"{piece.health}/{piece.max_health}" if piece.max_health is not None else str(piece.health)
        health = f'<text x="{x:g}" y="{y + 13:g}" class="hp">{escape(hp)}</text>'
    owner = piece.side or "game"
    title = f"{piece.label} ({owner}, {piece.kind}) on {piece.square}"
    if piece.health is not None:
        title += f", health {piece.health}" + (f"/{piece.max_health}" if piece.max_health else "")
    if piece.note:
        title += f": {piece.note}"
    return (f'<g class="piece {escape(piece.kind)}" data-id="{escape(piece.id)}" '
            f'data-square="{escape(piece.square.lower())}"><title>{escape(title)}</title>{shape}'
            f"{_facing(piece, x, y, r)}"
            f'<text x="{x:g}" y="{y + 1:g}" class="label" fill="{stroke}">{escape(short_label(piece))}</text>'
            f"{health}</g>")


def _shape(look: PieceLook, x: float, y: float, r: float, paint: str) -> str:
    if look.shape == "square":
        return f'<rect x="{x - r:g}" y="{y - r:g}" width="{2 * r:g}" height="{2 * r:g}" rx="3" {paint}/>'
    if look.shape == "diamond":
        return f'<polygon points="{x:g},{y - r:g} {x + r:g},{y:g} {x:g},{y + r:g} {x - r:g},{y:g}" {paint}/>'
    return f'<circle cx="{x:g}" cy="{y:g}" r="{r:g}" {paint}/>'


def _facing(piece: Piece, x: float, y: float, r: float) -> str:
    """A small triangle on the piece's edge pointing where it faces (heroes' front)."""
    step = DIRECTIONS.get(piece.facing or "")
    if step is None:
        return ""
    dx, dy = step[0], -step[1]  # rows grow upwards on the board, downwards in SVG
    length = (dx * dx + dy * dy) ** 0.5
    ux, uy = dx / length, dy / length
    tip = (x + ux * (r + 6), y + uy * (r + 6))
    left = (x + ux * (r - 1) - uy * 5, y + uy * (r - 1) + ux * 5)
    right = (x + ux * (r - 1) + uy * 5, y + uy * (r - 1) - ux * 5)
    points = " ".join(f"{px:.1f},{py:.1f}" for px, py in (tip, left, right))
    return (f'<polygon class="facing" points="{points}" fill="#111111">'
            f"<title>facing {escape(piece.facing)}</title></polygon>")


def _toward(p: tuple[float, float], q: tuple[float, float], by: float) -> tuple[float, float]:
    """p moved `by` towards q (not past it)."""
    dx, dy = q[0] - p[0], q[1] - p[1]
    length = (dx * dx + dy * dy) ** 0.5
    if length <= by * 2:
        return p
    return p[0] + dx * by / length, p[1] + dy * by / length


# Aimed arrows (dashed) of different tones also differ in their dash, so four crossing
# colours stay apart where colour alone would not.
TONE_DASHES: dict[Tone, str] = {"ink": "9 3", "red": "6 4", "purple": "2 4", "teal": "10 3 2 3",
                                "blue": "4 4", "green": "12 4", "orange": "3 3"}


def _steps(a: tuple[float, float], b: tuple[float, float]) -> list[tuple[float, float]]:
    """The square centres from a to b, one square at a time (a diagonal step where both
    columns and rows change): two squares given far apart are walked through, not jumped."""
    out = []
    x, y = a
    while (x, y) != b:
        x += max(-CELL, min(CELL, b[0] - x))
        y += max(-CELL, min(CELL, b[1] - y))
        out.append((x, y))
    return out


def fallen_squares(board: Board) -> set[str]:
    """Squares where the piece an aimed arrow (dashed: an attack, a shot, a spell) ended on
    fell: nothing stands there now, or (after an attack, the red arrows) only the attacker's
    side, which took the square; and no arrow leaves it (the piece did not move away)."""
    left = {m.squares[0].lower() for m in board.marks if m.squares}
    standing: dict[str, set[str | None]] = {}
    for piece in board.pieces:
        standing.setdefault(piece.square.lower(), set()).add(piece.side)
    fallen = set()
    for m in board.marks:
        end = m.squares[-1].lower() if len(m.squares) >= 2 else ""
        if m.look.line != "dashed" or not end or end in left:
            continue
        there = standing.get(end, set())
        if not there or (m.look.tone == "red" and there == {m.side}):
            fallen.add(end)
    return fallen


def _fallen(board: Board, square: str) -> str:
    """A red cross where a piece fell: over the square's middle, or in its top right corner
    where a piece (the winner's token) now stands, so the cross never hides its label."""
    c = _centre(board, square)
    if c is None:
        return ""
    taken = any(p.square.lower() == square for p in board.pieces)
    x, y, r = (c[0] + CELL * 0.36, c[1] - CELL * 0.36, CELL * 0.1) if taken else (c[0], c[1], CELL * 0.22)
    cross = f"M{x - r:g},{y - r:g} L{x + r:g},{y + r:g} M{x - r:g},{y + r:g} L{x + r:g},{y - r:g}"
    return (f'<g class="fallen" data-square="{escape(square)}">'
            f"<title>a piece fell on {escape(square)}</title>"
            f'<path d="{cross}" stroke="#ffffff" stroke-width="6" stroke-linecap="round"/>'
            f'<path d="{cross}" stroke="{TONE_COLOURS["red"]}" stroke-width="3" stroke-linecap="round"/></g>')


def _mark(board: Board, mark: Mark, fallen: set[str]) -> str:
    given = [p for p in (_centre(board, s) for s in mark.squares) if p is not None]
    if len(given) < 2:
        return ""
    points = [given[0]]
    if mark.look.line == "solid":  # a move: through every square it entered
        for q in given[1:]:
            points.extend(_steps(points[-1], q))
    else:
        points.extend(given[1:])
    if len(points) < 2:
        return ""
    dots = "".join(f'<circle cx="{x:g}" cy="{y:g}" r="3" fill="{TONE_COLOURS[mark.look.tone]}"/>'
                   for x, y in points[1:-1]) if mark.look.line == "solid" else ""
    # The head stops at the piece's edge, or at the cross where the piece aimed at fell.
    end = mark.squares[-1].lower()
    empty = end in fallen and not any(p.square.lower() == end for p in board.pieces)
    end_gap = CELL * (0.3 if empty else 0.45)
    points[-1] = _toward(points[-1], points[-2], end_gap)
    points[0] = _toward(points[0], points[1], CELL * 0.25)
    colour = TONE_COLOURS[mark.look.tone]
    dash = "" if mark.look.line == "solid" else f' stroke-dasharray="{TONE_DASHES[mark.look.tone]}"'
    pts = " ".join(f"{x:g},{y:g}" for x, y in points)
    title = f"{mark.kind}: {' → '.join(mark.squares)}" + (f" ({mark.side})" if mark.side else "")
    return (f'<g class="mark {escape(mark.kind)}"><title>{escape(title)}</title>'
            f'<polyline points="{pts}" fill="none" stroke="#ffffff" stroke-width="6" '
            f'stroke-linejoin="round" stroke-opacity="0.8"/>'
            f'<polyline points="{pts}" fill="none" stroke="{colour}" stroke-width="3" '
            f'stroke-linejoin="round"{dash} marker-end="url(#arrow-{mark.look.tone})"/>{dots}</g>')


SHAPE_WORDS: dict[Shape, str] = {"circle": "circles", "square": "squares", "diamond": "diamonds"}
OUTLINE_WORDS: dict[Outline, str] = {"solid": "", "dashed": "dashed ", "dotted": "dotted ", "heavy": "heavy "}


def _and(words: list[str]) -> str:
    return ", ".join(words[:-1]) + " and " + words[-1] if len(words) > 1 else "".join(words)


def _piece_words(board: Board) -> list[str]:
    """'circles are units', 'dashed squares are tokens': one phrase per look on the board."""
    names: dict[tuple[Shape, Outline], list[str]] = {}
    for look in sorted({p.look for p in board.pieces}, key=lambda k: (list(SHAPE_WORDS).index(k.shape),
                                                                       list(OUTLINES).index(k.outline))):
        said = names.setdefault((look.shape, look.outline), [])
        if look.name not in said:
            said.append(look.name)
    return [f"{OUTLINE_WORDS[outline]}{SHAPE_WORDS[shape]} are {_and(words)}"
            for (shape, outline), words in names.items()]


def _mark_words(looks: set[MarkLook], line: str) -> list[str]:
    """Last round's arrows of one line, in words: 'moves', 'attacks (red)'."""
    return [look.name + ("" if look.tone == "ink" else f" ({look.tone})")
            for look in sorted(looks, key=lambda k: (TONES.index(k.tone), k.name)) if look.line == line]


def board_caption(board: Board) -> str:
    """What the picture shows, in words, naming only what is on this board."""
    said = _piece_words(board)
    if board.pieces:
        health = any(p.health is not None for p in board.pieces)
        said.append("each piece carries its label" + (", and its health where it has one" if health else ""))
    if any(p.facing in DIRECTIONS for p in board.pieces):
        said.append("a black triangle on a piece's edge points the way it faces")
    symbols = terrain_symbols(board)
    kinds = sorted(set(board.terrain.values()))
    if kinds:
        said.append("the letter in a square's corner is its terrain ("
                    + ", ".join(f"{symbols.get(k, '?')} {k}" for k in kinds) + ")")
    looks = {m.look for m in board.marks}
    solid, dashed = _mark_words(looks, "solid"), _mark_words(looks, "dashed")
    if solid:
        said.append("solid arrows are last round's " + ", ".join(solid))
    if dashed:
        said.append(("dashed arrows last round's " if solid else "dashed arrows are last round's ")
                    + ", ".join(dashed))
    if solid:
        said.append("a dot marks each square a move passed through")
    if fallen_squares(board):
        said.append("a red cross marks where a piece fell")
    if not said:
        return "An empty grid."
    text = "; ".join(said) + "."
    return text[0].upper() + text[1:]


# The board's own stylesheet: a fixed text, so the pages' Content-Security-Policy allows it
# by its hash (service.csp).
BOARD_STYLE = (".axis{font:11px sans-serif;text-anchor:middle;fill:#555}"
               ".label{font:bold 12px sans-serif;text-anchor:middle}"
               ".hp{font:bold 11px sans-serif;text-anchor:middle;fill:#222}"
               ".terrain{font:9px monospace;fill:#333}")


def board_svg(board: Board, caption: str = "") -> Markup:
    width = board.width * CELL + 2 * MARGIN
    height = board.height * CELL + 2 * MARGIN
    markers = "".join(
        f'<marker id="arrow-{tone}" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="6" '
        f'markerHeight="6" orient="auto-start-reverse">'
        f'<path d="M0,0 L10,5 L0,10 z" fill="{colour}"/></marker>'
        for tone, colour in TONE_COLOURS.items() if tone in {m.look.tone for m in board.marks})
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="board" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label="{escape(caption or "the grid")}" '
        f'data-cell="{CELL}" data-margin="{MARGIN}" data-rows="{board.height}" '
        f'data-columns="{escape(" ".join(columns(board)))}">',
        f"<style>{BOARD_STYLE}</style>",
        f"<defs>{markers}</defs>",
        *_terrain(board),
        *_grid_lines(board),
    ]
    # Arrows first, pieces over them: an arrow never hides a label or a health number.
    fallen = fallen_squares(board)
    parts.extend(_mark(board, m, fallen) for m in board.marks)
    for stack in pieces_at(board).values():
        for depth, piece in enumerate(stack):
            parts.append(_piece(board, piece, depth))
    parts.extend(_fallen(board, square) for square in sorted(fallen))
    parts.append("</svg>")
    return Markup("".join(parts))
