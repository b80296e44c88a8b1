"""The JSON API blueprint (/api). Each view declares its contract with
`service.api_schema.operation`: the models (service.api_models) of its body and answer, which check the body
before the view runs and make /api/openapi.json.

Every refusal is JSON naming the field or line: 400 bad JSON, 401 token, 404 unknown,
409 round not open, 413 body too large, 422 content refused. A refused request
changes nothing (each service call is one transaction).
"""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request
from sqlalchemy.orm import Session
from werkzeug.exceptions import HTTPException

from service import access, entry, forces, games, jsonlimits, messages, submit, views
from service import api_models as schema
from service.api_models import CreateGame, ForceCheckIn, ForceSchemaQuery, JoinIn, MessageIn, OrdersIn
from service.api_schema import document, operation
from service.catalog import rulesets_json
from service.db import get_session
from service.errors import BadRequest, Invalid, ServiceError, Unauthorized
from service.models import Game
from service.schedule.policy import checked_policy
from service.tokens import same_hash
from service.urls import join_url, player_url

bp = Blueprint("api", __name__, url_prefix="/api")


@bp.errorhandler(ServiceError)
def service_error(exc: ServiceError) -> tuple[Response, int, dict[str, str]]:
    return jsonify(exc.to_json()), exc.status, exc.headers


@bp.errorhandler(HTTPException)
def http_error(exc: HTTPException) -> tuple[Response, int]:
    status = exc.code or 500
    message = {413: f"the request body is larger than {current_app.config['MAX_CONTENT_LENGTH']} bytes",
               405: "method not allowed here", 404: "no such API endpoint"}.get(status, exc.description)
    return jsonify({"error": message}), status


@bp.app_errorhandler(404)
@bp.app_errorhandler(405)
def unrouted(exc: HTTPException) -> tuple[Response, int] | HTTPException:
    """A URL under /api/ that no route takes (an unknown endpoint, a path parameter of the
    wrong type) answers in JSON like the rest of the API (found by schemathesis); other
    URLs keep the default page."""
    if not request.path.startswith("/api/"):
        return exc
    response, status = http_error(exc)
    for name, value in exc.get_headers():
        if name.lower() == "allow":  # a 405 names the methods that are allowed
            response.headers[name] = value
    return response, status


def bearer() -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


@bp.before_request
def token_before_body() -> None:
    """Orders or a message without a token: 401 (404 for an unknown game) before the body
    is read."""
    if request.endpoint in ("api.put_orders", "api.post_message") and bearer() is None:
        game_id = str((request.view_args or {}).get("game_id", ""))
        if request.endpoint == "api.post_message":
            _writer(get_session(), game_id, None)
        games.seat_by_token(get_session(), game_id, None)


@bp.get("/games")
@operation("The newest public games", answer=schema.PublicGames)
def list_games() -> Response:
    return jsonify(views.public_games_json(get_session()))


@bp.post("/games")
@operation("Create a game; the dice commitment S_0 is published at once", body=CreateGame,
           answer=schema.GameCreated, status=201)
def create_game(body: CreateGame) -> tuple[Response, int]:
    policy = None if body.deadline_policy is None else checked_policy(
        body.deadline_policy.model_dump(exclude_unset=True))
    seats = [games.SeatSpec(s.name, s.email or None, s.force) for s in body.seats]
    rules = entry.checked_rules(body.entry.model_dump() if body.entry else None)
    created = games.create_game(get_session(), body.ruleset, body.title, seats, body.options, body.public,
                                join_url, deadline_policy=policy, entry_rules=rules, gm_email=body.gm_email)
    return jsonify({
        "id": created.id,
        "commitment": created.commitment,
        "gm_token": created.gm_token,
        "seats": [{"name": name, "invite_token": token, "join_url": join_url(created.id, token)}
                  for name, token in created.invites],
    }), 201


@bp.post("/games/<game_id>/join")
@operation("Take a seat with its invite token; the last join starts the game", body=JoinIn,
           answer=schema.Joined, refusals=(401, 403, 404, 409))
def join(game_id: str, body: JoinIn) -> Response:
    joined = games.join(get_session(), game_id, body.invite_token, body.entropy, body.force)
    return jsonify({"player_token": joined.player_token,
                    "player_url": player_url(game_id, joined.player_token)})


READABLE = "A private game: send a player's, the GM's or a spectator link's token."


@bp.get("/games/<game_id>")
@operation("A game's public status", answer=schema.Game, refusals=(404,), security="reader",
           description=READABLE)
def game(game_id: str) -> Response:
    access.reader(get_session(), game_id)  # a private game: 404 without its token
    return jsonify(views.game_json(get_session(), game_id))


@bp.get("/games/<game_id>/orders")
@operation("The player's legal orders and current submission", answer=schema.OrdersView,
           refusals=(401, 404), security="bearer")
def get_orders(game_id: str) -> Response:
    session = get_session()
    with session.begin():
        seat = games.seat_by_token(session, game_id, bearer())
        return jsonify(views.orders_json(session, seat))


@bp.put("/games/<game_id>/orders")
@operation("Submit or amend orders; the latest version counts", body=OrdersIn,
           answer=schema.OrdersAccepted, refusals=(401, 404, 409), security="bearer")
def put_orders(game_id: str, body: OrdersIn) -> Response:
    accepted = submit.submit(get_session(), game_id, bearer(), body.round, body.orders, "api",
                             ready=body.ready)
    answer: dict[str, Any] = {"round": accepted.round, "accepted": accepted.lines,
                              "version": accepted.version, "at": accepted.at, "ready": accepted.player_ready}
    if accepted.receipt:  # keep it: it proves which text was yours (dicepost verify --receipt)
        answer["receipt"] = accepted.receipt
    return jsonify(answer)


def _writer(session: Session, game_id: str, token: str | None) -> tuple[Game, str]:
    """The game and who writes in it: the seat whose player token this is, or the GM."""
    try:
        seat = games.seat_by_token(session, game_id, token)
        return seat.game, seat.name
    except Unauthorized:
        game = session.get(Game, game_id)
        if token and game is not None and same_hash(token, game.gm_token_hash):
            return game, "gm"
        raise Unauthorized("a player's or the GM's token is needed (Authorization: Bearer <token>)") from None


@bp.post("/games/<game_id>/messages")
@operation("Write at the table: to everyone, to the GM or privately to one seat", body=MessageIn,
           answer=schema.Sent, status=201, refusals=(401, 404), security="bearer",
           description="With a player's token (or the GM's). The recipients get it on their pages, and by "
                       "mail as their message preference says.")
def post_message(game_id: str, body: MessageIn) -> tuple[Response, int]:
    session = get_session()
    with session.begin():
        game, sender = _writer(session, game_id, bearer())
        row = messages.post(session, game, sender, body.to, body.text, "api")
        sent = {"id": row.id, "round": row.round, "from": row.sender, "to": row.recipient,
                "at": row.created_at.isoformat(), "text": row.text}
    return jsonify(sent), 201


@bp.get("/games/<game_id>/rounds/<int:number>")
@operation("A resolved round: events, rolls and the revealed key S_t", answer=schema.RoundView,
           refusals=(404,), security="reader", description=READABLE)
def round_(game_id: str, number: int) -> Response:
    access.reader(get_session(), game_id)
    return jsonify(views.round_json(get_session(), game_id, number))


@bp.get("/games/<game_id>/record")
@operation("The game record (dicepost-record/1) for replay and verification", answer=schema.Record,
           refusals=(404,), security="reader",
           description="Its messages are the reader's: a player's token brings the private messages they "
                       "sent or got, the GM's every one, none the public talk. " + READABLE)
def record(game_id: str) -> Response:
    """The record as its reader may read it: a player's holds the private messages they sent
    or got, the GM's every message, anyone else's the public talk."""
    reader = access.reader(get_session(), game_id)
    response = jsonify(views.record_json(get_session(), game_id, reader.viewer))
    if reader.viewer is not None:  # private messages: never kept by a shared cache
        response.headers["Cache-Control"] = "private, no-store"
    return response


@bp.get("/rulesets")
@operation("The registered rulesets and their options", answer=schema.Rulesets)
def rulesets() -> Response:
    return jsonify(rulesets_json())


def _ruleset_options(ruleset_id: str, given: Any) -> tuple[Any, dict[str, Any]]:
    ruleset = games.ruleset_or_invalid(ruleset_id)
    if not isinstance(given, dict):
        raise Invalid("options must be a JSON object", "options")
    return ruleset, games.check_options(ruleset, given)[0]


@bp.get("/rulesets/<ruleset_id>/force-schema")
@operation("The JSON Schema of a force in a game with these options, and the default force",
           query=ForceSchemaQuery, answer=schema.ForceSchema)
def force_schema(ruleset_id: str, query: ForceSchemaQuery) -> Response:
    """The ruleset's force schema for a game with these options (`?options=` JSON), and
    the force a first seat gets when it brings none."""
    try:
        given = jsonlimits.loads(query.options or "{}")
    except json.JSONDecodeError as exc:
        raise BadRequest(f"options is not valid JSON: {exc.msg}", "options") from None
    ruleset, options = _ruleset_options(ruleset_id, given)
    return jsonify({"ruleset": ruleset.info.id, "schema": ruleset.force_schema(options),
                    "default": ruleset.default_force(0, options)})


@bp.post("/rulesets/<ruleset_id>/force-check")
@operation("A force judged as joining judges it: every refusal with its field, and its cost",
           body=ForceCheckIn, answer=schema.ForceVerdict)
def force_check(ruleset_id: str, body: ForceCheckIn) -> Response:
    """A force judged as joining would judge it (`{"force", "options"}`): every refusal
    with the field it is about (its path, dotted), and its cost against the budget."""
    ruleset, options = _ruleset_options(ruleset_id, body.options or {})
    return jsonify(forces.check(ruleset, body.force, options).to_json())


@bp.get("/openapi.json")
@operation("This description", answer=schema.Document)
def openapi() -> Response:
    return jsonify(document(current_app))
