"""Talk at the table on the web: a player writes from their page, the GM from the console;
every form redirects back (Post/Redirect/Get) with what happened."""

from __future__ import annotations

from collections.abc import Callable

from flask import flash, redirect, request, url_for
from sqlalchemy.orm import Session
from werkzeug.wrappers import Response

from service import games
from service.db import get_session
from service.errors import ServiceError
from service.gm.auth import gm_game
from service.gm.news import local_time
from service.messages import mark_read, post, private_words, shown, unread
from service.models import Game, Seat
from service.timekeeping.state import policy_of
from service.web import bp

FLASH = "talk"  # the flash category of the messages form's outcome
KEPT = "talk-text"  # a refused message's text, offered again in the form


def _said(to: str) -> str:
    return "everyone" if to == "all" else "the GM" if to == "gm" else to


def _send(sender: Callable[[Session], tuple[Game, str]], back: str) -> Response:
    """Post the form's message as the sender found in the session, then go back to the page:
    a refusal is flashed with the text kept; a bad link (401, 404) is the error page."""
    session = get_session()
    try:
        with session.begin():
            game, name = sender(session)
            row = post(session, game, name, request.form.get("to"), request.form.get("text"), "web")
            flash(f"Your message to {_said(row.recipient)} is sent.", FLASH)
    except ServiceError as exc:
        if exc.status in (401, 404):
            raise
        flash(f"Not sent: {exc.message}", FLASH)
        flash(request.form.get("text", ""), KEPT)
    return redirect(back + "#messages", 303)


@bp.post("/games/<game_id>/player/<token>/messages")
def player_message(game_id: str, token: str) -> Response:
    def sender(session: Session) -> tuple[Game, str]:
        seat = games.seat_by_token(session, game_id, token)
        return seat.game, seat.name

    return _send(sender, url_for("web.player", game_id=game_id, token=token))


@bp.post("/games/<game_id>/gm/<token>/messages")
def gm_message(game_id: str, token: str) -> Response:
    return _send(lambda session: (gm_game(session, game_id, token, lock=False), "gm"),
                 url_for("gm.page", game_id=game_id, token=token))


@bp.app_context_processor
def talk_helpers() -> dict[str, object]:
    """`table_talk(game, viewer, seat=None)` for the `_messages.html` partial: what `viewer`
    (a seat's name, "gm", or None for a visitor) may read, newest first; a seat's page and
    the GM's mark them read (in the page's transaction). `unread_messages(game, seat=None)`:
    the count a page shows on top, the seat's or the GM's."""
    def table_talk(game: Game, viewer: str | None, seat: Seat | None = None) -> dict[str, object]:
        session = get_session()
        messages = shown(session, game, viewer, seat)
        if session.in_transaction():
            mark_read(session, game, viewer, seat, messages)
        return {"messages": messages, "unread": sum(1 for m in messages if m.unread),
                "zone": policy_of(game).zone, "private": private_words(game, viewer)}

    def unread_messages(game: Game, seat: Seat | None = None) -> int:
        """The seat's unread count; without a seat, the GM's."""
        return unread(get_session(), game, seat.name if seat is not None else "gm", seat)

    return {"table_talk": table_talk, "local_time": local_time, "unread_messages": unread_messages}
