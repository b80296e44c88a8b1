"""The server-rendered web pages (readable without JavaScript; CSRF on every form)."""

from __future__ import annotations

from functools import cache
from importlib.resources import files

from flask import Blueprint, render_template
from markupsafe import Markup

from service.errors import ServiceError
from service.render.grid_legend import mark_text, piece_rows
from service.render.svg import board_caption
from service.timekeeping.wording import deadline_text

bp = Blueprint("web", __name__)


@cache
def stylesheet() -> Markup:
    """The one stylesheet (templates/web/dicepost.css), inlined in every page and HTML mail
    so nothing is fetched from elsewhere."""
    # Our own package file, never user input.
    return Markup(files("templates").joinpath("web/dicepost.css").read_text(encoding="utf-8"))  # noqa: S704


@bp.app_context_processor
def board_helpers() -> dict[str, object]:
    return {"piece_rows": piece_rows, "mark_text": mark_text, "board_caption": board_caption,
            "deadline_text": deadline_text, "stylesheet": stylesheet}


@bp.app_errorhandler(ServiceError)
def service_error(exc: ServiceError) -> tuple[str, int, dict[str, str]]:
    return render_template("web/error.html", error=exc), exc.status, exc.headers


from service.web import follow, lobby, mailbox, pages, play, settings, talk  # noqa: E402,F401  (routes register on bp)
