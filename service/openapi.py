"""GET /api/openapi.json: a hand-written OpenAPI 3.1 description of every API route.

tests/service/test_openapi.py checks that every route of the api blueprint is here.
Other blueprints serving under /api (GM console, inbound mail) describe their routes
in a module-level dict `OPENAPI_PATHS` ({path: {method: operation}}) in the module
that defines the blueprint; `spec()` merges them in.
"""

from __future__ import annotations

import sys
from typing import Any

from flask import current_app, has_app_context

ERROR = {"$ref": "#/components/schemas/Error"}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _errors(*codes: int) -> dict[str, Any]:
    text = {400: "bad JSON", 401: "missing or invalid token", 404: "unknown game or round",
            409: "the round is not open", 413: "body too large", 422: "content refused"}
    return {str(c): _json(ERROR, text[c]) for c in codes}


RULESET_ID = {"name": "ruleset_id", "in": "path", "required": True, "schema": {"type": "string"}}
GAME_ID = {"name": "game_id", "in": "path", "required": True, "schema": {"type": "string"}}
BEARER: list[dict[str, list[str]]] = [{"bearer": []}]
# Anyone reads a public game; a private one needs a player's, the GM's or a spectator
# link's token (404 without, worded as for a game that does not exist).
READER: list[dict[str, list[str]]] = [{}, *BEARER]
PRIVATE = " A private game: send a player's, the GM's or a spectator link's token."
STR = {"type": "string"}
STRS = {"type": "array", "items": STR}
NULLABLE_STR = {"type": ["string", "null"]}
# One legal order as a value (engine.orders.Order.to_json): `text` is what to send.
LEGAL_ORDER = {"type": "object", "properties": {
    "text": STR, "unit": NULLABLE_STR, "verb": STR, "args": STRS,
    "role": {"enum": ["move", "attack", "shot", "spell", "action", "setting", None]},
    "square": NULLABLE_STR, "target": NULLABLE_STR,
    "cost": {"type": "string", "description": "what giving it costs the unit beyond the order "
             "itself (its attack or defence this round, a modifier on its strikes); empty "
             "when nothing"}}}


def blueprint_paths() -> dict[str, Any]:
    """OPENAPI_PATHS of every registered blueprint's module (see the module doc)."""
    paths: dict[str, Any] = {}
    if not has_app_context():
        return paths
    for bp in current_app.blueprints.values():
        module = sys.modules.get(bp.import_name)
        for path, ops in dict(getattr(module, "OPENAPI_PATHS", {}) or {}).items():
            paths.setdefault(path, {}).update(ops)
    return paths


def spec() -> dict[str, Any]:
    rolls = {"type": "array", "items": {"type": "object", "properties": {
        "step": {"type": "integer"}, "j": {"type": "integer"}, "n": {"type": "integer"},
        "face": {"type": "integer"}, "label": STR}}}
    document: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {"title": "dicepost API", "version": "1",
                 "description": "Play-by-email skirmish games with verifiable dice."},
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer",
                                           "description": "the player_token from join"}},
            "schemas": {"Error": {"type": "object", "properties": {
                "error": STR, "field": STR,
                "errors": {"type": "array", "items": {"type": "object", "properties": {
                    # line 0: the text as a whole; others: the lines a clash spans
                    "line": {"type": "integer"}, "text": STR, "message": STR,
                    "others": {"type": "array", "items": {"type": "integer"}}}}}}}},
        },
        "paths": {
            "/api/games": {"get": {
                "summary": "The newest public games",
                "responses": {"200": _json({"type": "array", "items": {"type": "object", "properties": {
                    "id": STR, "title": STR, "ruleset": STR,
                    "status": {"enum": ["waiting", "active", "finished"]},
                    "round": {"type": ["integer", "null"]}, "commitment": STR}}}, "public games")}},
                "post": {
                "summary": "Create a game; the dice commitment S_0 is published at once",
                "requestBody": {"required": True, "content": {"application/json": {"schema": {
                    "type": "object", "required": ["ruleset", "seats"], "properties": {
                        "ruleset": STR, "title": STR, "public": {"type": "boolean"},
                        "options": {"type": "object", "description":
                                    "ruleset options (GET /api/rulesets) and chain_length"},
                        "deadline_policy": {"type": "object", "description":
                                            "deadlines, quiet hours, missed turns (docs/schedule.md)"},
                        "seats": {"type": "array", "items": {"type": "object", "required": ["name"],
                                  "properties": {"name": STR, "email": STR,
                                                 "force": {"type": "object"}}}}}}}}},
                "responses": {"201": _json({"type": "object", "properties": {
                    "id": STR, "commitment": STR, "gm_token": STR,
                    "seats": {"type": "array", "items": {"type": "object", "properties": {
                        "name": STR, "invite_token": STR, "join_url": STR}}}}}, "created"),
                    **_errors(400, 413, 422)}}},
            "/api/games/{game_id}/join": {"post": {
                "summary": "Take a seat with its invite token; the last join starts the game",
                "parameters": [GAME_ID],
                "requestBody": {"required": True, "content": {"application/json": {"schema": {
                    "type": "object", "required": ["invite_token"], "properties": {
                        "invite_token": STR,
                        "entropy": {"type": "string", "description": "hex, 16 to 64 bytes"},
                        "force": {"type": "object"}}}}}},
                "responses": {"200": _json({"type": "object", "properties": {
                    "player_token": STR, "player_url": STR}}, "joined"),
                    **_errors(400, 401, 404, 409, 422)}}},
            "/api/games/{game_id}": {"get": {
                "summary": "A game's public status", "parameters": [GAME_ID], "security": READER,
                "description": PRIVATE.strip(),
                "responses": {"200": _json({"type": "object", "properties": {
                    "id": STR, "ruleset": STR, "title": STR,
                    "status": {"enum": ["waiting", "active", "finished"]},
                    "round": {"type": ["integer", "null"]}, "commitment": STR,
                    "seats": {"type": "array", "items": {"type": "object", "properties": {
                        "name": STR, "joined": {"type": "boolean"}, "submitted": {"type": "boolean"}}}},
                    "expected": STRS, "deadline": {"type": ["string", "null"]},
                    "winner": {"type": ["string", "null"]}, "outcome": {"type": ["object", "null"]}}},
                    "the game"), **_errors(404)}}},
            "/api/games/{game_id}/orders": {
                "get": {"summary": "The player's legal orders and current submission",
                        "parameters": [GAME_ID], "security": BEARER,
                        "responses": {"200": _json({"type": "object", "properties": {
                            "round": {"type": ["integer", "null"]},
                            "units": {"type": "object", "additionalProperties": STRS},
                            "legal": {"type": "object", "additionalProperties": {
                                "type": "array", "items": LEGAL_ORDER}},
                            "current": STR}}, "orders"), **_errors(401, 404)}},
                "put": {"summary": "Submit or amend orders; the latest version counts",
                        "parameters": [GAME_ID], "security": BEARER,
                        "requestBody": {"required": True, "content": {"application/json": {
                            "schema": {"type": "object", "required": ["round", "orders"], "properties": {
                                "round": {"type": "integer"}, "orders": STR}}}}},
                        "responses": {"200": _json({"type": "object", "properties": {
                            "round": {"type": "integer"}, "accepted": STRS,
                            "version": {"type": "integer"}, "at": STR,
                            # dicepost-dice/v2 games: keep it, it proves which text was yours
                            "receipt": STR}}, "stored"),
                            **_errors(400, 401, 404, 409, 413, 422)}},
            },
            "/api/games/{game_id}/rounds/{number}": {"get": {
                "summary": "A resolved round: events, rolls and the revealed key S_t",
                "security": READER, "description": PRIVATE.strip(),
                "parameters": [GAME_ID, {"name": "number", "in": "path", "required": True,
                                         "schema": {"type": "integer"}}],
                "responses": {"200": _json({"type": "object", "properties": {
                    "round": {"type": "integer"}, "step": {"type": "integer"},
                    "events": {"type": "array"}, "rolls": rolls, "key": STR, "state_hash": STR,
                    "inputs": {"type": "object"}}}, "the round"), **_errors(404)}}},
            "/api/games/{game_id}/record": {"get": {
                "summary": "The game record (dicepost-record/1) for replay and verification",
                "description": ("Its messages are the reader's: a player's token brings the private "
                                "messages they sent or got, the GM's every one, none the public talk."
                                + PRIVATE),
                "parameters": [GAME_ID], "security": READER,
                "responses": {"200": _json({"type": "object", "properties": {
                    "format": {"const": "dicepost-record/1"}, "game_id": STR, "ruleset": STR,
                    "commitment": STR, "chain_length": {"type": "integer"},
                    "entropy": {"type": "object", "additionalProperties": STR},
                    "steps": {"type": "array", "items": {"type": "object", "properties": {
                        "t": {"type": "integer"}, "inputs": {"type": "object"}, "key": STR,
                        "rolls": rolls, "state_hash": STR}}}}}, "the record"), **_errors(404)}}},
            "/api/rulesets": {"get": {
                "summary": "The registered rulesets and their options",
                "responses": {"200": _json({"type": "array", "items": {"type": "object"}},
                                           "rulesets")}}},
            "/api/rulesets/{ruleset_id}/force-schema": {"get": {
                "summary": "The JSON Schema of a force in a game with these options, and the default force",
                "parameters": [RULESET_ID, {"name": "options", "in": "query", "required": False,
                                            "description": "the game's options as JSON", "schema": STR}],
                "responses": {"200": _json({"type": "object", "properties": {
                    "ruleset": STR, "schema": {"type": "object"}, "default": {"type": "object"}}},
                    "the schema"), **_errors(400, 422)}}},
            "/api/rulesets/{ruleset_id}/force-check": {"post": {
                "summary": "A force judged as joining judges it: every refusal with its field, and its cost",
                "parameters": [RULESET_ID],
                "requestBody": {"required": True, "content": {"application/json": {"schema": {
                    "type": "object", "properties": {"force": {}, "options": {"type": "object"}}}}}},
                "responses": {"200": _json({"type": "object", "properties": {
                    "ok": {"type": "boolean"},
                    "refusals": {"type": "array", "items": {"type": "object", "properties": {
                        "field": STR, "message": STR}}},
                    "cost": {"type": ["object", "null"], "properties": {
                        "spent": STR, "budget": STR, "over": {"type": "boolean"}}}}},
                    "the verdict"), **_errors(400, 422)}}},
            "/api/inbound/email": {"post": {
                "summary": "Inbound mail from a provider's webhook (the mail part, service/mail/web.py)",
                "description": "The raw RFC 5322 message as the body, or a form with it in `email` "
                               "(SendGrid raw) or `body-mime` (Mailgun). Authenticated by INBOUND_SECRET "
                               "as a Bearer token, an X-Dicepost-Secret header or the basic-auth password.",
                "security": BEARER,
                "requestBody": {"required": True, "content": {"message/rfc822": {"schema": STR}}},
                "responses": {"200": _json({"type": "object", "properties": {
                    "status": STR, "detail": STR, "inbound_id": {"type": ["integer", "null"]}}},
                    "stored and processed (status says how)"),
                    **_errors(400, 401, 404, 413)}}},
            "/api/openapi.json": {"get": {
                "summary": "This description",
                "responses": {"200": _json({"type": "object"}, "OpenAPI 3.1")}}},
        },
    }
    for path, ops in blueprint_paths().items():
        document["paths"].setdefault(path, {}).update(ops)
    add_common_responses(document)
    return document


def add_common_responses(document: dict[str, Any]) -> None:
    """429 on every operation (service.ratelimit: an address that made too many refused
    requests is refused everything for a while); 503 on every operation (the database
    unreachable, service.outage; or a game's stored data damaged, service.integrity)."""
    for ops in document["paths"].values():
        for op in ops.values():
            responses = op.setdefault("responses", {})
            responses.setdefault("429", _json(ERROR, "too many refused requests from this address; "
                                                     "see Retry-After"))
            responses.setdefault("503", _json(ERROR, "the database is unavailable for a moment, or the "
                                                     "game's stored data is damaged (docs/reliability.md)"))
