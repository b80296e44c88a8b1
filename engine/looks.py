"""How a ruleset's pieces and marks look: declared by the ruleset, drawn by any renderer.

The renderers (SVG for pages, an HTML table and plain text for mail) never know a
ruleset's piece kinds or mark kinds: each `Piece` carries a `PieceLook` (shape, outline,
and the words the picture's caption calls such pieces) and each `Mark` a `MarkLook`
(line, tone, words). The badge written on a piece is its `label`; its accessible name
is said from its label, side, kind, square, health and note.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

Shape = Literal["circle", "square", "diamond"]
Outline = Literal["solid", "dashed", "dotted", "heavy"]
Line = Literal["solid", "dashed"]
# Named tones, not colours: the renderer picks the ink for each, and the caption says
# the name ("attacks (red)"), so colour is never the only signal.
Tone = Literal["ink", "red", "purple", "teal", "blue", "green", "orange"]
TONES: tuple[Tone, ...] = ("ink", "red", "purple", "teal", "blue", "green", "orange")

# The kind of a plain figure: legends leave it unsaid and list such figures first on a
# shared square. Any other kind ("token", "hero", ...) is the ruleset's word.
UNIT_KIND = "unit"


@dataclass(frozen=True)
class PieceLook:
    """How pieces of one kind are drawn. `name` is what the caption calls them, plural
    ("units", "tokens", "civvies"); pieces that look alike share one phrase."""

    shape: Shape = "circle"
    outline: Outline = "solid"
    name: str = "figures"


@dataclass(frozen=True)
class MarkLook:
    """How one kind of last round's arrow is drawn. `name`, plural, is what the caption
    calls them ("moves", "attacks")."""

    line: Line = "dashed"
    tone: Tone = "ink"
    name: str = "actions"


PLAIN_PIECE = PieceLook()
PLAIN_ARROW = MarkLook()

# Stock arrows for the order roles most rulesets draw; a ruleset may declare its own.
ARROWS: dict[str, MarkLook] = {
    "move": MarkLook("solid", "ink", "moves"),
    "attack": MarkLook("dashed", "red", "attacks"),
    "shot": MarkLook("dashed", "purple", "shots"),
    "spell": MarkLook("dashed", "teal", "spells"),
}


def arrow_look(kind: str, looks: Mapping[str, MarkLook] = ARROWS) -> MarkLook:
    """The look of a mark of this kind: the declared one, else a dashed ink arrow named
    after the kind."""
    return looks.get(kind) or MarkLook("dashed", "ink", kind + "s")

