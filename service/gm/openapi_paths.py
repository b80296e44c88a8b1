"""OpenAPI descriptions of the GM console and player-settings routes (merged by service.openapi)."""

from __future__ import annotations

from typing import Any

from service.openapi import BEARER, GAME_ID, STR, _errors, _json

OBJ: dict[str, Any] = {"type": "object"}
DONE = _json({"type": "object", "required": ["action"], "properties": {"action": STR}},
             "done: the action and what it changed (also written to the audit log)")
POLICY = {"type": "object", "description": "a deadline policy (docs/schedule.md)", "required": ["kind"],
          "properties": {"kind": {"enum": ["duration", "calendar", "none"]}}}
SETTINGS = {"type": "object", "properties": {
    "wait": {"type": "boolean"}, "reminder_lead": {"type": "string", "description": "ISO 8601 duration"},
    "absences": {"type": "array", "items": {"type": "object", "properties": {"from": STR, "to": STR}}},
    "mail_pref": {"enum": ["all", "results", "none"],
                  "description": "mail from this game: every mail, results only, or none"},
    "message_pref": {"enum": ["each", "digest", "none"],
                     "description": "table talk by mail (within mail_pref): each message, a digest in "
                                    "the results mail, or none"},
    "zone": {"type": ["string", "null"],
             "description": "the player's IANA time zone for mail (for every seat with this address); "
                            "null or empty: UTC and the game's zone"},
    "email": {"type": "string", "description": "the seat's address; giving one clears its bounce record"},
    "mail_failing": {"type": ["object", "null"], "readOnly": True,
                     "description": "since when and why mail to the address bounces (null: it does not)",
                     "properties": {"since": STR, "reason": STR}}}}


def _gm(summary: str, body: dict[str, Any] | None = None, method: str = "post") -> dict[str, Any]:
    op: dict[str, Any] = {"summary": summary, "parameters": [GAME_ID], "security": BEARER,
                          "description": "Authorization: Bearer <gm_token>",
                          "responses": {"200": DONE, **_errors(400, 401, 404, 409, 422)}}
    if body is not None:
        op["requestBody"] = {"required": True, "content": {"application/json": {"schema": body}}}
    return {method: op}


OPENAPI_PATHS: dict[str, Any] = {
    "/api/games/{game_id}/gm": {"get": {
        "summary": "The GM console: policy, deadline, pause, seats and the schedule/GM log",
        "parameters": [GAME_ID], "security": BEARER,
        "responses": {"200": _json(OBJ, "the console"), **_errors(401, 404)}}},
    "/api/games/{game_id}/gm/pause": _gm("Pause: no round closes and no reminders until resumed"),
    "/api/games/{game_id}/gm/resume": _gm("Resume: the deadline moves by the pause's length"),
    "/api/games/{game_id}/gm/extend": _gm("Move the open round's deadline later", {
        "type": "object", "properties": {"by": {"type": "string",
                                                "description": "a duration: ISO 8601 or words like '1 day'"},
                                         "until": {"type": "string", "description": "ISO 8601 time"}}}),
    "/api/games/{game_id}/gm/resolve": _gm("Close the open round now; missing players hold"),
    "/api/games/{game_id}/gm/replace": _gm("Open a seat for a replacement (invitation mailed if email)", {
        "type": "object", "required": ["seat"], "properties": {"seat": STR, "email": STR}}),
    "/api/games/{game_id}/gm/remove": _gm("Remove a player; their units hold or go to the bot", {
        "type": "object", "required": ["seat"],
        "properties": {"seat": STR, "units": {"enum": ["hold", "bot"]}}}),
    "/api/games/{game_id}/gm/end": _gm("End the game as a draw"),
    "/api/games/{game_id}/gm/announce": _gm("A message to every player, on the game's pages and by mail", {
        "type": "object", "required": ["text"],
        "properties": {"text": {"type": "string", "maxLength": 2000}}}),
    "/api/games/{game_id}/gm/policy": _gm("Set the deadline policy for rounds opened from now on",
                                          POLICY, "put"),
    "/api/games/{game_id}/settings": {
        "get": {"summary": "The player's settings (schedule, mail, messages, time zone)",
                "parameters": [GAME_ID], "security": BEARER,
                "responses": {"200": _json(SETTINGS, "the settings"), **_errors(401, 404)}},
        "put": {"summary": "Change wait / reminder_lead / absences / mail_pref / message_pref / zone / email "
                "(all checked first)",
                "parameters": [GAME_ID], "security": BEARER,
                "requestBody": {"required": True, "content": {"application/json": {"schema": SETTINGS}}},
                "responses": {"200": _json(SETTINGS, "stored"), **_errors(400, 401, 404, 422)}}},
    "/api/games/{game_id}/takeover": {"post": {
        "summary": "A replacement takes an open seat with its invitation", "parameters": [GAME_ID],
        "requestBody": {"required": True, "content": {"application/json": {"schema": {
            "type": "object", "required": ["invite_token"], "properties": {"invite_token": STR}}}}},
        "responses": {"200": _json({"type": "object", "properties": {"seat": STR, "player_token": STR}},
                                   "the seat is yours"), **_errors(400, 401, 404, 409)}}},
}
