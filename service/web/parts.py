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
from sqlalchemy import inspect
from sqlalchemy.orm import object_session

from service import statecache
from service.models import Game, Step
from service.render.svg import board_svg
from service.views import board_of

CONTENT = ("state", "events", "rolls")  # what a part is drawn from: JSON that grows with the army


NO_PART = Markup("")


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
               legend_summary: str | None = None, marks: bool = True) -> Markup:
    """The grid's SVG with its zoom button, legend and marks in words (web/_board.html);
    marks=False draws the step's state without last round's arrows (a round's before grid)."""
    if step is None:
        return NO_PART
    found = step

    def draw() -> Markup:
        board = board_of(game, _drawable(found))
        if board is None:
            return NO_PART
        if not marks:
            board = replace(board, marks=[])
        html = render_template("web/_board.html", game=game, board=board, svg=board_svg(board, caption),
                               board_id=board_id, board_name=board_name, legend_summary=legend_summary)
        return Markup(html)  # noqa: S704  (a rendered template: escaped as it rendered)

    return statecache.cached_by("page", _key(game, step, "board", caption, board_id, board_name,
                                             legend_summary, marks), draw)


def step_part(game: Game, step: Step) -> Markup:
    """A step's events and roll log (web/_step.html)."""
    def draw() -> Markup:
        html = render_template("web/_step.html", game=game, step=_drawable(step))
        return Markup(html)  # noqa: S704  (a rendered template: escaped as it rendered)

    return statecache.cached_by("page", _key(game, step, "step"), draw)
