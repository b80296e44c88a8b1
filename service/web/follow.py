"""Following a public game by mail (service.follow): the ask on the game page, the link's
page that confirms or stops it (a button, so a mail scanner opening the link does nothing)."""

from __future__ import annotations

from flask import redirect, render_template, request, url_for
from flask import session as flask_session
from werkzeug.wrappers import Response

from service import access, csrf, follow
from service.db import get_session
from service.errors import Invalid, NotFound
from service.models import Game
from service.web import bp

ASKED = "follow_asked"  # the session key of the last address a follow link went to


@bp.post("/games/<game_id>/follow")
def follow_ask(game_id: str) -> Response:
    reader = access.reader(get_session(), game_id)  # a private game: 404 without its token
    email = follow.ask(get_session(), game_id, request.form.get("email", ""), reader.spectator_id)
    flask_session[ASKED] = {"game": game_id, "email": email}
    return redirect(url_for("web.follow_done", game_id=game_id, what="asked"), 303)


@bp.get("/games/<game_id>/follow/<what>")
def follow_done(game_id: str, what: str) -> str:
    if what not in ("asked", "stopped"):
        raise Invalid(f"{what!r}: nothing to show here", "what")
    session = get_session()
    with session.begin():
        try:
            title = access.readable_game(session, game_id)[0].title
        except NotFound:  # a private game's title is for its readers only
            title = game_id
    kept = flask_session.get(ASKED) or {}
    email = kept.get("email") if kept.get("game") == game_id else None
    return render_template("web/follow.html", mode=what, game_id=game_id, title=title, email=email)


@bp.route("/follow/<token>", methods=["GET", "POST"])
def follow_link(token: str) -> Response | str:
    session = get_session()
    if request.method == "POST":
        if request.form.get("action") == "stop":
            game_id = follow.stop(session, token)
            return redirect(url_for("web.follow_done", game_id=game_id, what="stopped"), 303)
        follow.confirm(session, token)
        return redirect(url_for("web.follow_link", token=token), 303)
    with session.begin():
        follower = follow.by_token(session, token)
        access.remember_through(session, follower)
        game = session.get(Game, follower.game_id)
        title = game.title if game is not None else follower.game_id
        following = {"email": follower.email, "confirmed": follower.confirmed_at is not None}
        game_id = follower.game_id
    return render_template("web/follow.html", mode="link", game_id=game_id, title=title, token=token,
                           following=following)


@bp.post("/follow/<token>/stop")
def follow_stop(token: str) -> Response:
    """The one-click stop of List-Unsubscribe (RFC 8058): the mail client POSTs without a
    CSRF token; the link's token is the proof, as for the players' unsubscribe links."""
    game_id = follow.stop(get_session(), token)
    return redirect(url_for("web.follow_done", game_id=game_id, what="stopped"), 303)


csrf.exempt(follow_stop)
