"""The server-rendered web pages (readable without JavaScript; CSRF on every form)."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from flask import Blueprint, render_template
from markupsafe import Markup, escape

from engine import ruleset_info
from service.catalog import gloss, glossary_used
from service.errors import ServiceError
from service.render.design import stylesheet_text
from service.render.grid_legend import mark_text, piece_rows
from service.render.sentences import plain
from service.render.svg import board_caption
from service.timekeeping.wording import deadline_text

bp = Blueprint("web", __name__)


@cache
def stylesheet() -> Markup:
    """The one stylesheet (templates/web/dicepost.css), inlined in every page so nothing is
    fetched from elsewhere. The HTML mails cannot carry it (mail clients strip <style>):
    they take its tokens as inline values, see service.render.design."""
    # Our own package file, never user input.
    return Markup(stylesheet_text())  # noqa: S704


def glossed(text: str, ruleset_id: str) -> Markup:
    """A stat string with each word of the ruleset's glossary in an <abbr> whose title is
    its meaning (the tooltip; the glossary below the table says the same in text)."""
    runs = gloss(text or "", ruleset_info(ruleset_id).glossary)
    return Markup("").join(Markup('<abbr title="{}">{}</abbr>').format(meaning, run) if meaning
                           else escape(run) for run, _word, meaning in runs)


def newest_revision(ruleset_id: str) -> int:
    """The rules revision new games of this ruleset play (a game keeps its own)."""
    return ruleset_info(ruleset_id).revision


def words_of(texts: Iterable[str], ruleset_id: str) -> list[tuple[str, str]]:
    """The ruleset's glossary entries these stat strings use."""
    return glossary_used(texts, ruleset_info(ruleset_id).glossary)


@bp.app_context_processor
def board_helpers() -> dict[str, object]:
    return {"piece_rows": piece_rows, "mark_text": mark_text, "board_caption": board_caption,
            "deadline_text": deadline_text, "stylesheet": stylesheet, "glossed": glossed,
            "words_of": words_of, "newest_revision": newest_revision, "plain": plain}


@bp.app_errorhandler(ServiceError)
def service_error(exc: ServiceError) -> tuple[str, int, dict[str, str]]:
    return render_template("web/error.html", error=exc), exc.status, exc.headers


from service.web import (  # noqa: E402,F401  (routes register on bp)
    confirm,
    follow,
    lobby,
    mailbox,
    pages,
    play,
    players,
    push,
    settings,
    talk,
    tournaments,
)
