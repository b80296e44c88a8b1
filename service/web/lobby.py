"""The lobby page (public games by filter) and a visitor taking an open seat from the game
page (Post/Redirect/Get: the player link is shown once, to this browser)."""

from __future__ import annotations

from flask import redirect, render_template, request, url_for
from flask import session as flask_session
from werkzeug.wrappers import Response

from service import lobby, sign_ins
from service.catalog import rulesets_json
from service.db import get_session
from service.errors import Invalid
from service.sendlimits import count_seat_taken
from service.urls import player_url
from service.web import bp

TOOK = "took_seat"  # the session key of the last taken seat's player link, shown until replaced


@bp.get("/lobby")
def lobby_page() -> str:
    show = request.args.get("show") or "all"
    ruleset = request.args.get("ruleset") or None
    known = [r["id"] for r in rulesets_json()]
    if show not in lobby.SHOWS:
        raise Invalid(f"show: {show!r} is not a filter; choose one of {', '.join(lobby.SHOWS)}", "show")
    if ruleset is not None and ruleset not in known:
        raise Invalid(f"ruleset: there is no ruleset {ruleset!r}; choose one of {', '.join(known)}",
                      "ruleset")
    return render_template("web/lobby.html", games=lobby.lobby_games(get_session(), show, ruleset),
                           show=show, ruleset=ruleset, rulesets=rulesets_json(), labels=lobby.SHOW_LABELS)


@bp.post("/games/<game_id>/seats/<seat>/take")
def take_seat(game_id: str, seat: str) -> Response:
    count_seat_taken()
    name, token = lobby.take_open_seat(get_session(), game_id, seat, sign_ins.signed_in_address())
    flask_session[TOOK] = {"game": game_id, "seat": name, "token": token}
    return redirect(url_for("web.took_seat", game_id=game_id, seat=name), 303)


@bp.get("/games/<game_id>/seats/<seat>/taken")
def took_seat(game_id: str, seat: str) -> Response | str:
    kept = flask_session.get(TOOK)
    if not kept or kept.get("game") != game_id or kept.get("seat") != seat:
        return redirect(url_for("web.game", game_id=game_id), 303)
    return render_template("web/seat_taken.html", game_id=game_id,
                           taken={**kept, "url": player_url(game_id, kept["token"])})
