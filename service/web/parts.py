"""The parts of the game and round pages that every viewer of one step sees alike, drawn
once per process and step (service.statecache, kind "page").

A step row is written once, so a part is keyed by the game, the step's id, its state hash
and revealed key, and what else the part shows (the caption, the frame's id); the state is
loaded only when the part is drawn. A row changed in place behind the service shows what it
held when first drawn until the entry is evicted; the record and the verifier read the rows.

A part is most of its page's bytes (the grid and the legend grow with the army), so it is
kept encoded too, and a page puts it in as bytes (`Splice`) rather than copying and encoding
it again with the rest of the page on every view.
"""

from __future__ import annotations

import secrets
from dataclasses import replace

from flask import render_template
from markupsafe import Markup
from sqlalchemy import inspect
from sqlalchemy.orm import object_session

from service import statecache
from service.models import Game, Step
from service.render.svg import board_svg
from service.views import board_of

CONTENT = ("state", "events", "rolls")  # what a part is drawn from: JSON that grows with the army


class Part:
    """A drawn part, kept as its HTML's UTF-8: what a page puts in (`Splice`), and no larger
    than the string (half of it where one character is past U+00FF, as a grid's arrows
    are); rendered in place, it is that HTML."""

    __slots__ = ("encoded",)

    def __init__(self, html: str) -> None:
        self.encoded = html.encode()

    def __html__(self) -> str:
        return self.encoded.decode()


Html = Markup | Part  # what a page shows in a part's place
NO_PART = Part("")


class Splice:
    """Parts put into a page as bytes. `mark(part)` is what the template renders in the part's
    place: a comment naming this page's mark (random, so no other text of the page can be
    one) and the part's number; `page(html)` is the rendered page's UTF-8 with each mark
    replaced by its part's bytes, the bytes rendering the parts in place would give."""

    def __init__(self) -> None:
        self.token = secrets.token_hex(8)
        self.parts: list[bytes] = []

    def mark(self, part: Html) -> Markup:
        self.parts.append(part.encoded if isinstance(part, Part) else str(part).encode())
        return Markup(f"<!--{self.token}:{len(self.parts) - 1}-->")  # noqa: S704  (ours: hex and a number)

    def page(self, html: str) -> bytes:
        first, *rest = html.encode().split(f"<!--{self.token}:".encode())
        out = [first]
        for piece in rest:  # each begins with its mark's number
            number, _, after = piece.partition(b"-->")
            out += [self.parts[int(number)], after]
        return b"".join(out)


def _key(game: Game, step: Step, *rest: object) -> tuple[object, ...]:
    return (game.id, step.id, step.state_hash, step.key, *rest)


def _drawable(step: Step) -> Step:
    """The step with its state, events and rolls: a page reads its steps without them (they
    are needed only to draw a part the first time), so they are loaded here, in one statement."""
    missing = [name for name in CONTENT if name in inspect(step).unloaded]
    session = object_session(step)
    if missing and session is not None:
        session.refresh(step, missing)
    return step


def board_part(game: Game, step: Step | None, caption: str, board_id: str, board_name: str = "",
               legend_summary: str | None = None, marks: bool = True) -> Part:
    """The grid's SVG with its zoom button, legend and marks in words (web/_board.html);
    marks=False draws the step's state without last round's arrows (a round's before grid)."""
    if step is None:
        return NO_PART
    found = step

    def draw() -> Part:
        board = board_of(game, _drawable(found))
        if board is None:
            return NO_PART
        if not marks:
            board = replace(board, marks=[])
        html = render_template("web/_board.html", game=game, board=board, svg=board_svg(board, caption),
                               board_id=board_id, board_name=board_name, legend_summary=legend_summary)
        return Part(html)

    return statecache.cached_by("page", _key(game, step, "board", caption, board_id, board_name,
                                             legend_summary, marks), draw)


def step_part(game: Game, step: Step) -> Part:
    """A step's events and roll log (web/_step.html)."""
    def draw() -> Part:
        return Part(render_template("web/_step.html", game=game, step=_drawable(step)))

    return statecache.cached_by("page", _key(game, step, "step"), draw)
