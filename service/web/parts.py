"""The parts of the game and round pages that every viewer of one step sees alike, drawn
once per process and step (service.statecache, kind "page").

A step row is written once, so a part is keyed by the game, the step's id, its state hash
and revealed key, and what else the part shows (the caption, the frame's id); the state is
loaded only when the part is drawn. A row changed in place behind the service shows what it
held when first drawn until the entry is evicted; the record and the verifier read the rows.
"""

from __future__ import annotations

from dataclasses import replace

from flask import render_template
from markupsafe import Markup

from service import statecache
from service.models import Game, Step
from service.render.svg import board_svg
from service.views import board_of


def _key(game: Game, step: Step, *rest: object) -> tuple[object, ...]:
    return (game.id, step.id, step.state_hash, step.key, *rest)


def board_part(game: Game, step: Step | None, caption: str, board_id: str, board_name: str = "",
               legend_summary: str | None = None, marks: bool = True) -> Markup:
    """The grid's SVG with its zoom button, legend and marks in words (web/_board.html);
    marks=False draws the step's state without last round's arrows (a round's before grid)."""
    if step is None:
        return Markup("")
    found = step

    def draw() -> Markup:
        board = board_of(game, found)
        if board is None:
            return Markup("")
        if not marks:
            board = replace(board, marks=[])
        html = render_template("web/_board.html", game=game, board=board, svg=board_svg(board, caption),
                               board_id=board_id, board_name=board_name, legend_summary=legend_summary)
        return Markup(html)  # noqa: S704  (our template's output)

    return statecache.cached_by("page", _key(game, step, "board", caption, board_id, board_name,
                                             legend_summary, marks), draw)


def step_part(game: Game, step: Step) -> Markup:
    """A step's events and roll log (web/_step.html)."""
    return statecache.cached_by("page", _key(game, step, "step"),
                                lambda: Markup(render_template("web/_step.html", game=game, step=step)))  # noqa: S704
