"""JSON endpoints of the GM console and of each player's schedule settings.

GM (Authorization: Bearer <gm_token>):
  POST /api/games/<id>/gm/pause | resume | resolve | end          (no body)
  POST /api/games/<id>/gm/extend     {"by": "PT24H"} or {"until": "2026-12-01T18:00:00Z"}
  POST /api/games/<id>/gm/replace    {"seat": "red", "email": "new@example.org"}  (email optional)
  POST /api/games/<id>/gm/remove     {"seat": "red", "units": "hold" | "bot"}
  POST /api/games/<id>/gm/announce   {"text": "..."}
  PUT  /api/games/<id>/gm/policy     a deadline policy (docs/schedule.md)
  GET  /api/games/<id>/gm            the console's state: policy, deadline, pause, seats, audit
  POST /api/games/<id>/webhooks      {"url": "https://...", "kind": "discord" | "slack" | "json"}
  GET  /api/games/<id>/webhooks      the game's webhooks; POST .../webhooks/<n>/test, DELETE .../webhooks/<n>
Player (Authorization: Bearer <player_token>):
  GET/PUT /api/games/<id>/settings   {"wait", "reminder_lead", "absences", "mail_pref", ...}
Replacement:
  POST /api/games/<id>/takeover      {"invite_token": "..."} -> {"seat", "player_token"}

The exact shapes are the models of service.api_schema (and /api/openapi.json).
"""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, request
from werkzeug.exceptions import HTTPException

from service import api_models as schema
from service import csrf, games, seats
from service.api import bearer, http_error, service_error
from service.api_models import (
    AnnounceIn,
    ExtendIn,
    PolicyIn,
    RemoveIn,
    ReplaceIn,
    RollbackIn,
    SettingsIn,
    TakeoverIn,
    WebhookIn,
)
from service.api_schema import operation
from service.db import get_session
from service.errors import ServiceError
from service.gm import actions
from service.gm.actions import Done
from service.gm.auth import gm_game
from service.gm.console import console_json
from service.gm.rollback import roll_back
from service.webhooks import deliver as webhook_posts
from service.webhooks import store as webhooks

bp = Blueprint("gm_api", __name__, url_prefix="/api/games/<game_id>")
bp.register_error_handler(ServiceError, service_error)
bp.register_error_handler(HTTPException, http_error)
csrf.exempt(bp)
GM = "Authorization: Bearer <gm_token>"
ACTION = (401, 404, 409, 422)  # what a GM action may be refused with, besides a body's refusals


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


@bp.post("/webhooks")
@operation("Add a webhook: the game's public news posted to Discord, Slack or a JSON receiver",
           body=WebhookIn, answer=schema.WebhookAdded, status=201, refusals=(401, 404, 422),
           security="bearer", description=GM + ". A json hook's signing secret is in this answer only.")
def add_webhook(game_id: str, body: WebhookIn) -> tuple[Response, int]:
    session = get_session()
    with session.begin():
        gm_game(session, game_id, bearer(), lock=False)
        hook, secret = webhooks.add(session, game_id, body.url, body.kind)
        shown = {**webhooks.view(hook), "secret": secret}
    return jsonify(shown), 201


@bp.get("/webhooks")
@operation("The game's webhooks and how their posts fare", answer=schema.WebhookList, refusals=(401, 404),
           security="bearer", description=GM)
def list_webhooks(game_id: str) -> Response:
    session = get_session()
    with session.begin():
        gm_game(session, game_id, bearer(), lock=False)
        return jsonify({"webhooks": [webhooks.view(h) for h in webhooks.hooks_of(session, game_id)]})


@bp.post("/webhooks/<int:hook_id>/test")
@operation("Post a test message to the webhook now; a failing hook that gets it works again",
           answer=schema.WebhookTested, refusals=(401, 404), security="bearer", description=GM)
def test_webhook(game_id: str, hook_id: int) -> Response:
    result, hook = webhook_posts.try_post(get_session(), game_id, hook_id)
    return jsonify({"result": result, "webhook": hook})


@bp.delete("/webhooks/<int:hook_id>")
@operation("Delete a webhook: nothing more is posted to it", answer=schema.WebhookDeleted,
           refusals=(401, 404), security="bearer", description=GM)
def delete_webhook(game_id: str, hook_id: int) -> Response:
    session = get_session()
    with session.begin():
        gm_game(session, game_id, bearer(), lock=False)
        webhooks.delete(session, game_id, hook_id)
    return jsonify({"deleted": hook_id})


def _done(done: Done) -> Response:
    return jsonify({"action": done.action, **done.detail})


@bp.get("/gm")
@operation("The GM console: policy, deadline, pause, seats and the schedule/GM log", answer=schema.Console,
           refusals=(401, 404), security="bearer", description=GM)
def console(game_id: str) -> Response:
    return jsonify(console_json(get_session(), game_id, bearer()))


@bp.post("/gm/pause")
@operation("Pause: no round closes and no reminders until resumed", answer=schema.Paused,
           refusals=ACTION, security="bearer", description=GM)
def pause(game_id: str) -> Response:
    return _done(actions.pause(get_session(), game_id, bearer()))


@bp.post("/gm/resume")
@operation("Resume: the deadline moves by the pause's length", answer=schema.Resumed,
           refusals=ACTION, security="bearer", description=GM)
def resume(game_id: str) -> Response:
    return _done(actions.resume(get_session(), game_id, bearer()))


@bp.post("/gm/extend")
@operation("Move the open round's deadline later", body=ExtendIn, answer=schema.Extended,
           refusals=ACTION, security="bearer", description=GM)
def extend(game_id: str, body: ExtendIn) -> Response:
    return _done(actions.extend(get_session(), game_id, bearer(), body.by, body.until))


@bp.post("/gm/resolve")
@operation("Close the open round now; missing players hold", answer=schema.Resolving,
           refusals=ACTION, security="bearer", description=GM)
def resolve(game_id: str) -> Response:
    return _done(actions.resolve_now(get_session(), game_id, bearer()))


@bp.post("/gm/replace")
@operation("Open a seat for a replacement (invitation mailed if email)", body=ReplaceIn,
           answer=schema.Replaced, refusals=ACTION, security="bearer", description=GM)
def replace(game_id: str, body: ReplaceIn) -> Response:
    return _done(actions.replace(get_session(), game_id, bearer(), body.seat, body.email))


@bp.post("/gm/remove")
@operation("Remove a player; their units hold or go to the bot", body=RemoveIn, answer=schema.Removed,
           refusals=ACTION, security="bearer", description=GM)
def remove(game_id: str, body: RemoveIn) -> Response:
    return _done(actions.remove(get_session(), game_id, bearer(), body.seat, body.units))


@bp.post("/gm/end")
@operation("End the game as a draw", answer=schema.Ended, refusals=ACTION, security="bearer", description=GM)
def end(game_id: str) -> Response:
    return _done(actions.end_draw(get_session(), game_id, bearer()))


@bp.post("/gm/rollback")
@operation("Roll the game back to the start of an earlier round (public: every player is told, the "
           "record keeps the superseded rounds; the rounds played again get new dice)", body=RollbackIn,
           answer=schema.RolledBack, refusals=ACTION, security="bearer", description=GM)
def rollback(game_id: str, body: RollbackIn) -> Response:
    return _done(roll_back(get_session(), game_id, bearer(), body.round, body.reason, body.confirm))


@bp.post("/gm/announce")
@operation("A message to every player, on the game's pages and by mail", body=AnnounceIn,
           answer=schema.Announced, refusals=ACTION, security="bearer", description=GM)
def announce(game_id: str, body: AnnounceIn) -> Response:
    return _done(actions.announce(get_session(), game_id, bearer(), body.text))


@bp.put("/gm/policy")
@operation("Set the deadline policy for rounds opened from now on", body=PolicyIn, answer=schema.PolicySet,
           refusals=ACTION, security="bearer", description=GM)
def policy(game_id: str, body: PolicyIn) -> Response:
    given = body.root.model_dump(exclude_unset=True)
    return _done(actions.set_policy(get_session(), game_id, bearer(), given))


@bp.get("/settings")
@operation("The player's settings (schedule, mail, messages, time zone)", answer=schema.Settings,
           refusals=(401, 404), security="bearer")
def get_settings(game_id: str) -> Response:
    return jsonify(seats.get_settings(get_session(), game_id, bearer()))


@bp.put("/settings")
@operation("Change wait / reminder_lead / absences / mail_pref / message_pref / zone / email "
           "(all checked first); a new address gets a confirmation link, and the time zone of an "
           "address waits for it (409)", body=SettingsIn, answer=schema.Settings, refusals=(401, 404, 409),
           security="bearer")
def put_settings(game_id: str, body: SettingsIn) -> Response:
    changes = body.model_dump(by_alias=True, exclude_unset=True)
    return jsonify(seats.update_settings(get_session(), game_id, bearer(), changes))


@bp.post("/takeover")
@operation("A replacement takes an open seat with its invitation", body=TakeoverIn, answer=schema.SeatTaken,
           refusals=(401, 404, 409))
def takeover(game_id: str, body: TakeoverIn) -> Response:
    seat, token = seats.claim_seat(get_session(), game_id, body.invite_token)
    return jsonify({"seat": seat, "player_token": token})
