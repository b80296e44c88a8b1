"""The JSON API blueprint (/api): its exact shapes are described by /api/openapi.json.

Every refusal is JSON naming the field or line: 400 bad JSON, 401 token, 404 unknown,
409 round not open, 413 body too large, 422 content refused. A refused request
changes nothing (each service call is one transaction).
"""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request
from werkzeug.exceptions import HTTPException

from service import access, forces, games, submit, views
from service.catalog import rulesets_json
from service.db import get_session
from service.errors import BadRequest, Invalid, ServiceError
from service.gm.actions import checked_policy
from service.openapi import spec
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


def json_body() -> dict[str, Any]:
    if not request.is_json:
        raise BadRequest("send a JSON object with Content-Type: application/json")
    data = request.get_json(silent=True)
    if data is None:
        raise BadRequest("the body is not valid JSON")
    if not isinstance(data, dict):
        raise BadRequest("the body must be a JSON object")
    return data


def bearer() -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


def seat_specs(value: Any) -> list[games.SeatSpec]:
    if not isinstance(value, list) or not value:
        raise Invalid("seats must be a non-empty list of {\"name\", \"email\"}", "seats")
    specs = []
    for i, item in enumerate(value):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise Invalid("each seat is an object with a \"name\"", f"seats[{i}]")
        email = item.get("email")
        if email is not None and not isinstance(email, str):
            raise Invalid("email must be text", f"seats[{i}].email")
        unknown = set(item) - {"name", "email", "force"}
        if unknown:
            raise Invalid(f"unknown seat field {sorted(unknown)[0]!r}", f"seats[{i}]")
        specs.append(games.SeatSpec(item["name"], email or None, item.get("force")))
    return specs


@bp.get("/games")
def list_games() -> Response:
    return jsonify(views.public_games_json(get_session()))


@bp.post("/games")
def create_game() -> tuple[Response, int]:
    data = json_body()
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise Invalid("options must be a JSON object", "options")
    public = data.get("public", True)
    if not isinstance(public, bool):
        raise Invalid("public must be true or false", "public")
    title = data.get("title")
    if title is not None and not isinstance(title, str):
        raise Invalid("title must be text", "title")

    policy = checked_policy(data["deadline_policy"]) if data.get("deadline_policy") is not None else None
    created = games.create_game(get_session(), data.get("ruleset"), title, seat_specs(data.get("seats")),
                                options, public, join_url, deadline_policy=policy)
    return jsonify({
        "id": created.id,
        "commitment": created.commitment,
        "gm_token": created.gm_token,
        "seats": [{"name": name, "invite_token": token, "join_url": join_url(created.id, token)}
                  for name, token in created.invites],
    }), 201


@bp.post("/games/<game_id>/join")
def join(game_id: str) -> Response:
    data = json_body()
    joined = games.join(get_session(), game_id, data.get("invite_token"), data.get("entropy"),
                        data.get("force"))
    return jsonify({"player_token": joined.player_token,
                    "player_url": player_url(game_id, joined.player_token)})


@bp.get("/games/<game_id>")
def game(game_id: str) -> Response:
    access.reader(get_session(), game_id)  # a private game: 404 without its token
    return jsonify(views.game_json(get_session(), game_id))


@bp.get("/games/<game_id>/orders")
def get_orders(game_id: str) -> Response:
    session = get_session()
    with session.begin():
        seat = games.seat_by_token(session, game_id, bearer())
        return jsonify(views.orders_json(session, seat))


@bp.put("/games/<game_id>/orders")
def put_orders(game_id: str) -> Response:
    token = bearer()
    if token is None:
        games.seat_by_token(get_session(), game_id, None)  # 404 or 401, before reading the body
    data = json_body()
    if "round" not in data:
        raise Invalid("round is missing: the number of the round these orders are for", "round")
    if "orders" not in data:
        raise Invalid("orders is missing: the order text, one order a line", "orders")
    accepted = submit.submit(get_session(), game_id, token, data["round"], data["orders"], "api")
    answer: dict[str, Any] = {"round": accepted.round, "accepted": accepted.lines,
                              "version": accepted.version, "at": accepted.at}
    if accepted.receipt:  # keep it: it proves which text was yours (dicepost verify --receipt)
        answer["receipt"] = accepted.receipt
    return jsonify(answer)


@bp.get("/games/<game_id>/rounds/<int:number>")
def round_(game_id: str, number: int) -> Response:
    access.reader(get_session(), game_id)
    return jsonify(views.round_json(get_session(), game_id, number))


@bp.get("/games/<game_id>/record")
def record(game_id: str) -> Response:
    """The record as its reader may read it: a player's holds the private messages they sent
    or got, the GM's every message, anyone else's the public talk."""
    reader = access.reader(get_session(), game_id)
    response = jsonify(views.record_json(get_session(), game_id, reader.viewer))
    if reader.viewer is not None:  # private messages: never kept by a shared cache
        response.headers["Cache-Control"] = "private, no-store"
    return response


@bp.get("/rulesets")
def rulesets() -> Response:

    return jsonify(rulesets_json())


def _ruleset_options(ruleset_id: str, given: Any) -> tuple[Any, dict[str, Any]]:
    ruleset = games.ruleset_or_invalid(ruleset_id)
    if not isinstance(given, dict):
        raise Invalid("options must be a JSON object", "options")
    return ruleset, games.check_options(ruleset, given)[0]


@bp.get("/rulesets/<ruleset_id>/force-schema")
def force_schema(ruleset_id: str) -> Response:
    """The ruleset's force schema for a game with these options (`?options=` JSON), and
    the force a first seat gets when it brings none."""
    try:
        given = json.loads(request.args.get("options") or "{}")
    except json.JSONDecodeError as exc:
        raise BadRequest(f"options is not valid JSON: {exc.msg}", "options") from None
    ruleset, options = _ruleset_options(ruleset_id, given)
    return jsonify({"ruleset": ruleset.info.id, "schema": ruleset.force_schema(options),
                    "default": ruleset.default_force(0, options)})


@bp.post("/rulesets/<ruleset_id>/force-check")
def force_check(ruleset_id: str) -> Response:
    """A force judged as joining would judge it (`{"force", "options"}`): every refusal
    with the field it is about (its path, dotted), and its cost against the budget."""
    body = json_body()
    ruleset, options = _ruleset_options(ruleset_id, body.get("options") or {})
    return jsonify(forces.check(ruleset, body.get("force"), options).to_json())


@bp.get("/openapi.json")
def openapi() -> Response:

    return jsonify(spec())
