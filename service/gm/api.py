"""JSON endpoints of the GM console and of each player's schedule settings.

GM (Authorization: Bearer <gm_token>):
  POST /api/games/<id>/gm/pause | resume | resolve | end          (no body)
  POST /api/games/<id>/gm/extend     {"by": "PT24H"} or {"until": "2026-12-01T18:00:00Z"}
  POST /api/games/<id>/gm/replace    {"seat": "red", "email": "new@example.org"}  (email optional)
  POST /api/games/<id>/gm/remove     {"seat": "red", "units": "hold" | "bot"}
  PUT  /api/games/<id>/gm/policy     a deadline policy (docs/schedule.md)
  GET  /api/games/<id>/gm            the console's state: policy, deadline, pause, seats, audit
Player (Authorization: Bearer <player_token>):
  GET/PUT /api/games/<id>/settings   {"wait", "reminder_lead", "absences", "mail_pref"}
Replacement:
  POST /api/games/<id>/takeover      {"invite_token": "..."} -> {"seat", "player_token"}
"""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, request
from werkzeug.exceptions import HTTPException

from service import csrf, games, seats
from service.api import bearer, http_error, json_body, service_error
from service.db import get_session
from service.errors import ServiceError
from service.gm import actions
from service.gm.actions import Done
from service.gm.auth import gm_game
from service.gm.console import console_json
from service.gm.openapi_paths import OPENAPI_PATHS

__all__ = ["OPENAPI_PATHS", "bp"]  # OPENAPI_PATHS: merged into /api/openapi.json

bp = Blueprint("gm_api", __name__, url_prefix="/api/games/<game_id>")
bp.register_error_handler(ServiceError, service_error)
bp.register_error_handler(HTTPException, http_error)
csrf.exempt(bp)


@bp.before_request
def authenticate_first() -> None:
    """401 for a missing or wrong token (404 for an unknown game) before any body is read:
    an unauthenticated caller learns nothing from validation (found by schemathesis)."""
    if request.endpoint == "gm_api.takeover":  # proven by the invite token in its body
        return
    game_id = str((request.view_args or {}).get("game_id", ""))
    session = get_session()
    with session.begin():
        if request.endpoint in ("gm_api.get_settings", "gm_api.put_settings"):
            games.seat_by_token(session, game_id, bearer())
        else:
            gm_game(session, game_id, bearer(), lock=False)


def _done(done: Done) -> Response:
    return jsonify({"action": done.action, **done.detail})


@bp.get("/gm")
def console(game_id: str) -> Response:
    return jsonify(console_json(get_session(), game_id, bearer()))


@bp.post("/gm/pause")
def pause(game_id: str) -> Response:
    return _done(actions.pause(get_session(), game_id, bearer()))


@bp.post("/gm/resume")
def resume(game_id: str) -> Response:
    return _done(actions.resume(get_session(), game_id, bearer()))


@bp.post("/gm/extend")
def extend(game_id: str) -> Response:
    data = json_body()
    return _done(actions.extend(get_session(), game_id, bearer(), data.get("by"), data.get("until")))


@bp.post("/gm/resolve")
def resolve(game_id: str) -> Response:
    return _done(actions.resolve_now(get_session(), game_id, bearer()))


@bp.post("/gm/replace")
def replace(game_id: str) -> Response:
    data = json_body()
    return _done(actions.replace(get_session(), game_id, bearer(), data.get("seat"), data.get("email")))


@bp.post("/gm/remove")
def remove(game_id: str) -> Response:
    data = json_body()
    return _done(actions.remove(get_session(), game_id, bearer(), data.get("seat"),
                                data.get("units", "hold")))


@bp.post("/gm/end")
def end(game_id: str) -> Response:
    return _done(actions.end_draw(get_session(), game_id, bearer()))


@bp.post("/gm/announce")
def announce(game_id: str) -> Response:
    return _done(actions.announce(get_session(), game_id, bearer(), json_body().get("text")))


@bp.put("/gm/policy")
def policy(game_id: str) -> Response:
    return _done(actions.set_policy(get_session(), game_id, bearer(), json_body()))


@bp.get("/settings")
def get_settings(game_id: str) -> Response:
    return jsonify(seats.get_settings(get_session(), game_id, bearer()))


@bp.put("/settings")
def put_settings(game_id: str) -> Response:
    return jsonify(seats.update_settings(get_session(), game_id, bearer(), json_body()))


@bp.post("/takeover")
def takeover(game_id: str) -> Response:
    seat, token = seats.claim_seat(get_session(), game_id, json_body().get("invite_token"))
    return jsonify({"seat": seat, "player_token": token})
