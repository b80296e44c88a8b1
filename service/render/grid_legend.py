"""What both text pictures of a board share: terrain symbols, piece names, side colours.

The ASCII grid (plain-text mail) and the HTML table grid (HTML mail) draw the same
squares with the same symbols and list the same legend, so a player reading either
part of a mail sees the same board.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.contract import Board, Mark, Piece
from engine.grid import column_name
from engine.looks import UNIT_KIND
from service.render.design import tokens

CELL = 3  # characters a square takes in the ASCII grid; labels are at most this long
EMPTY = "."

# Symbols for terrain kinds rulesets commonly use; other kinds get a free character.
_KNOWN_SYMBOLS = {
    "wall": "#", "building": "#", "rock": "#", "blocked": "#",
    "water": "~", "river": "~", "lake": "~",
    "forest": "^", "wood": "^", "woods": "^", "trees": "^",
    "rough": ":", "rubble": ":", "difficult": ":",
    "hill": "/", "high": "/",
    "cover": "+", "low_wall": "=", "fence": "=",
    "objective": "*", "hazard": "!", "fire": "!",
}
_SPARE = "%&=+:;!?$@*/\\|<>o0xXzZ"

# Seat inks and fills from the stylesheet's tokens (they keep AA contrast on white and on
# their fill); the pictures take them from here.
DS = tokens()
SIDE_COLOURS = DS.sides
SIDE_FILLS = DS.side_fills
GAME_COLOURS = (DS.side_game, DS.surface_2)  # pieces the game runs: ink, fill
TERRAIN_FILLS = {"#": DS.terrain_wall, "~": DS.terrain_water, "^": DS.terrain_forest, ":": DS.terrain_rough,
                 "/": DS.terrain_hill}


@dataclass(frozen=True)
class PieceRow:
    """One legend line. `note` is the ruleset's note, led by the facing where the piece
    has one ("facing ne; Zenith!: 2 civvies saved"), so every legend shows it."""

    label: str
    square: str
    side: str  # player id, or "game" for pieces the game runs
    health: str  # "3/4", "3" or ""
    note: str
    kind: str

    @property
    def kind_shown(self) -> str:
        """The ruleset's word for the piece where it tells pieces apart; plain units: ""."""
        return "" if self.kind == UNIT_KIND else self.kind


def natural_key(text: str) -> list[tuple[int, str]]:
    """`A2` before `A10`: digit runs compare as numbers."""
    return [(int(part), "") if part.isdigit() else (-1, part) for part in re.split(r"(\d+)", text) if part]


def short_label(piece: Piece) -> str:
    label = "".join(ch for ch in piece.label if ch.isprintable() and not ch.isspace())
    return (label or "?")[:CELL]


def terrain_symbols(board: Board) -> dict[str, str]:
    """Terrain kind → one printable character, stable for a given board."""
    out: dict[str, str] = {}
    used = {EMPTY}
    kinds = sorted(set(board.terrain.values()) | set(board.legend))
    for kind in kinds:
        sym = _KNOWN_SYMBOLS.get(kind.lower())
        if sym is None or sym in used:
            sym = next((c for c in kind[:1].lower() + _SPARE if c not in used and c.isprintable()), "?")
        out[kind] = sym
        used.add(sym)
    return out


def side_index(board: Board, side: str | None) -> int | None:
    if side is None or side not in board.sides:
        return None
    return board.sides.index(side)


def side_colours(board: Board, side: str | None) -> tuple[str, str]:
    """A seat's ink and fill; the game's for a piece of no seat."""
    idx = side_index(board, side)
    if idx is None:
        return GAME_COLOURS
    return SIDE_COLOURS[idx % len(SIDE_COLOURS)], SIDE_FILLS[idx % len(SIDE_FILLS)]


def pieces_at(board: Board) -> dict[str, list[Piece]]:
    """Square name → pieces there; players' pieces, then units, first: the first is drawn."""
    out: dict[str, list[Piece]] = {}
    for piece in board.pieces:
        out.setdefault(piece.square.lower(), []).append(piece)
    for stack in out.values():  # a player's piece is drawn over the game's on a shared square
        stack.sort(key=lambda p: (p.side is None, p.kind != UNIT_KIND, p.label))
    return out


def piece_rows(board: Board) -> list[PieceRow]:
    """One legend line per piece, grouped by seat order then label."""
    def order(p: Piece) -> tuple[int, list[tuple[int, str]]]:
        idx = side_index(board, p.side)
        return (len(board.sides) if idx is None else idx, natural_key(p.label))

    rows = []
    for p in sorted(board.pieces, key=order):
        if p.health is not None and p.max_health is not None:
            health = f"{p.health}/{p.max_health}"
        else:
            health = "" if p.health is None else str(p.health)
        note = "; ".join(x for x in (f"facing {p.facing}" if p.facing else "", p.note) if x)
        rows.append(PieceRow(short_label(p), p.square.lower(), p.side or "game", health, note, p.kind))
    return rows


def mark_text(mark: Mark, arrow: str = "->") -> str:
    """`move b2 -> c3 -> d4 (alice)`: a mark of last round in words."""
    who = f" ({mark.side})" if mark.side else ""
    return f"{mark.kind} " + f" {arrow} ".join(s.lower() for s in mark.squares) + who


def columns(board: Board) -> list[str]:
    return [column_name(c) for c in range(board.width)]


def square_key(col: int, row: int) -> str:
    return f"{column_name(col)}{row + 1}"
