"""The JSON API's contract, declared once per route: `@operation(...)` names the models
(service.api_models) of its body, query and answer and the refusals it may give. The
same declaration checks the body before the view runs (the view gets it as `body=`) and
describes the route in /api/openapi.json (`document`), so the two cannot drift apart.

A body that does not fit is refused like every other API refusal, `{"error", "field"}`,
naming the first field in the service's spelling (`seats[0].email`,
`deadline_policy.quiet_hours.start`): 400 when the body is not a JSON object, 422 when a
field is missing, of the wrong type or not one of its choices. Text with NUL or a lone
surrogate and numbers too long to read are refused before any view (service.inputs).

The document is pydantic's own JSON Schema (`models_json_schema` puts every model in
`components/schemas` with the references in place, as FastAPI builds its document)
laid out by route by the small builder below. Chosen over spectree and flask-openapi3,
which own the request parsing and the error answers (a 422 list of pydantic errors, a
body that is not JSON read as `{}`; flask-openapi3 also replaces the Flask app class),
and over apispec, which would add only a dictionary builder here.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal
from weakref import WeakKeyDictionary

from flask import Flask, request
from pydantic import BaseModel, ValidationError
from pydantic.json_schema import models_json_schema

from service.api_models import Error, Inbound
from service.errors import BadRequest, Invalid, ServiceError

# ---------------------------------------------------------------------------- refusals

_TYPES = {"string_type": "must be text", "bool_type": "must be true or false",
          "int_type": "must be a whole number", "list_type": "must be a list",
          "dict_type": "must be a JSON object", "model_type": "must be a JSON object",
          "model_attributes_type": "must be a JSON object"}
_QUOTED = re.compile(r"'((?:[^'\\]|\\.)*)'")


def _path(loc: tuple[int | str, ...], tagged: dict[str, tuple[str, ...]]) -> str:
    """An error's location in the service's spelling, `seats[0].email`, leaving out the
    union tags pydantic puts after each place in `tagged`."""
    path = ""
    tag_at = 0 if "" in tagged else -1
    for i, part in enumerate(loc):
        if i == tag_at:
            continue
        path = f"{path}[{part}]" if isinstance(part, int) else f"{path}.{part}" if path else part
        if path in tagged:
            tag_at = i + 1
    return path


def _refusal(exc: ValidationError, model: type[BaseModel]) -> ServiceError:
    """The first problem pydantic found, as the service's refusal naming its field (under
    the body's `field_prefix`, if it has one)."""
    error = exc.errors(include_url=False)[0]
    kind, ctx, loc = error["type"], error.get("ctx") or {}, error["loc"]
    tagged: dict[str, tuple[str, ...]] = getattr(model, "tagged", {})
    path = _path(loc, tagged)
    prefix: str = getattr(model, "field_prefix", "")
    field = ".".join(p for p in (prefix, path) if p)
    if kind in ("union_tag_invalid", "union_tag_not_found"):
        kinds, field = list(tagged.get(path, ())), f"{field}.kind"
        if "tag" in ctx:
            return Invalid(f"{field}: expected one of {kinds}, got {ctx['tag']!r}", field)
        return Invalid(f"{field} is missing: one of {kinds}", field)
    if kind == "missing":
        top = model.model_fields.get(str(loc[-1])) if len(loc) == 1 else None
        what = f": {top.description}" if top is not None and top.description else ""
        return Invalid(f"{field} is missing{what}", field)
    if kind in _TYPES:
        return Invalid(f"{field} {_TYPES[kind]}", field)
    if kind == "literal_error":
        return Invalid(f"{field}: choose one of: {', '.join(_QUOTED.findall(ctx['expected']))}", field)
    if kind == "extra_forbidden":
        return Invalid(f"{field}: unknown field", field)
    if kind == "too_short":
        return Invalid(f"{field} must not be empty", field)
    if kind == "greater_than_equal":
        return Invalid(f"{field} must be at least {ctx['ge']}", field)
    if kind == "less_than_equal":
        return Invalid(f"{field} must be at most {ctx['le']}", field)
    return Invalid(f"{field}: {error['msg']}", field)


def read_body(model: type[BaseModel]) -> BaseModel:
    """The request's JSON body as `model`; BadRequest or Invalid naming what is wrong."""
    if not request.is_json:
        raise BadRequest("send a JSON object with Content-Type: application/json")
    data = request.get_json(silent=True)
    if data is None:
        raise BadRequest("the body is not valid JSON")
    if not isinstance(data, dict):
        raise BadRequest("the body must be a JSON object")
    return _validated(model, data)


def _validated(model: type[BaseModel], data: Any) -> BaseModel:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise _refusal(exc, model) from None


# ------------------------------------------------------------------------ the document

Security = Literal["none", "bearer", "reader"]
_SECURITY: dict[Security, list[dict[str, list[str]]]] = {
    "none": [], "bearer": [{"bearer": []}],
    # Anyone reads a public game; a private one needs a player's, the GM's or a spectator
    # link's token (404 without, worded as for a game that does not exist).
    "reader": [{}, {"bearer": []}]}
_REFUSALS = {400: "bad JSON, or text that cannot be stored", 401: "missing or invalid token",
             403: "the game's entry rules refuse this player (the rule is named as the field)",
             404: "unknown game, round or seat", 409: "the game or round is not in a state for this",
             413: "body too large", 422: "content refused (the field is named)",
             # service.ratelimit: an address that made too many refused requests is refused for a while
             429: "too many refused requests from this address; see Retry-After",
             # service.outage, service.integrity
             503: "the database is unavailable for a moment, or the game's stored data is damaged "
                  "(docs/reliability.md)"}
View = Callable[..., Any]


@dataclass(frozen=True)
class Operation:
    """What one route takes and answers."""

    summary: str
    answer: type[BaseModel]
    body: type[BaseModel] | None = None
    query: type[BaseModel] | None = None
    refusals: tuple[int, ...] = ()
    security: Security = "none"
    status: int = 200
    description: str = ""
    raw_body: str = ""  # the media type of a body that is not JSON (an inbound mail)

    def all_refusals(self) -> list[int]:
        body = (400, 413, 422) if self.body else (400, 422) if self.query else ()
        return sorted({*self.refusals, *body, 429, 503})


DECLARED: WeakKeyDictionary[View, Operation] = WeakKeyDictionary()  # each declared view's contract


Model = type[BaseModel]


def operation(summary: str, *, answer: Model, body: Model | None = None,
              query: Model | None = None, refusals: tuple[int, ...] = (), security: Security = "none",
              status: int = 200, description: str = "") -> Callable[[View], View]:
    """Declare a view's contract. With `body` (or `query`), the view is called with the
    request's body (query) validated as that model, as `body=` (`query=`)."""
    declared = Operation(summary, answer, body, query, refusals, security, status, description)

    def declare(view: View) -> View:
        if body is None and query is None:
            DECLARED[view] = declared
            return view

        @functools.wraps(view)
        def checked(**args: Any) -> Any:
            if query is not None:
                args["query"] = _validated(query, request.args.to_dict())
            if body is not None:
                args["body"] = read_body(body)
            return view(**args)

        DECLARED[checked] = declared
        return checked

    return declare


# Routes under /api whose view is written elsewhere (the mail part's webhook takes a raw
# mail, not JSON, and answers in its own words), by endpoint.
ELSEWHERE = {"mail.inbound_email": Operation(
    "Inbound mail from a provider's webhook", Inbound, refusals=(400, 401, 404, 413), security="bearer",
    raw_body="message/rfc822",
    description="The raw RFC 5322 message as the body, or a form with it in `email` (SendGrid raw) or "
                "`body-mime` (Mailgun). Authenticated by INBOUND_SECRET as a Bearer token, an "
                "X-Dicepost-Secret header or the basic-auth password. `status` says how it was handled.")}

_PARAMETER = re.compile(r"<(?:(\w+)(?:\([^)]*\))?:)?(\w+)>")


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _operations(app: Flask) -> list[tuple[str, str, Operation]]:
    found = []
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/api/"):
            continue
        declared = DECLARED.get(app.view_functions[rule.endpoint]) or ELSEWHERE.get(rule.endpoint)
        if declared is not None:
            for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
                found.append((rule.rule, method.lower(), declared))
    return found


def _build(app: Flask) -> dict[str, Any]:
    operations = _operations(app)
    models: set[tuple[type[BaseModel], Literal["validation", "serialization"]]] = {(Error, "serialization")}
    for _rule, _method, op in operations:
        models.add((op.answer, "serialization"))
        if op.body is not None:
            models.add((op.body, "validation"))
    refs, definitions = models_json_schema(sorted(models, key=lambda m: (m[0].__name__, m[1])),
                                           ref_template="#/components/schemas/{model}")
    error = refs[(Error, "serialization")]
    paths: dict[str, dict[str, Any]] = {}
    for rule, method, op in operations:
        parameters: list[dict[str, Any]] = [
            {"name": name, "in": "path", "required": True,
             "schema": {"type": "integer"} if converter == "int" else {"type": "string"}}
            for converter, name in _PARAMETER.findall(rule)]
        if op.query is not None:
            properties = op.query.model_json_schema()["properties"]
            parameters += [{"name": name, "in": "query", "required": field.is_required(),
                            "description": field.description, "schema": properties[name]}
                           for name, field in op.query.model_fields.items()]
        described: dict[str, Any] = {
            "summary": op.summary, "parameters": parameters,
            "responses": {str(op.status): _json(refs[(op.answer, "serialization")], "done"),
                          **{str(code): _json(error, _REFUSALS[code]) for code in op.all_refusals()}}}
        if op.description:
            described["description"] = op.description
        if op.security != "none":
            described["security"] = _SECURITY[op.security]
        if op.body is not None:
            described["requestBody"] = {"required": True, "content": {"application/json": {
                "schema": refs[(op.body, "validation")]}}}
        elif op.raw_body:
            described["requestBody"] = {"required": True,
                                        "content": {op.raw_body: {"schema": {"type": "string"}}}}
        paths.setdefault(_PARAMETER.sub(r"{\2}", rule), {})[method] = described
    return {
        "openapi": "3.1.0",
        "info": {"title": "dicepost API", "version": "1",
                 "description": "Play-by-email skirmish games with verifiable dice. Every refusal is "
                                "JSON naming the field or line it is about."},
        "components": {"securitySchemes": {"bearer": {
            "type": "http", "scheme": "bearer",
            "description": "a player_token from join, a gm_token from create, or a spectator link's token"}},
            "schemas": definitions.get("$defs", {})},
        "paths": paths,
    }


def document(app: Flask) -> dict[str, Any]:
    """The OpenAPI 3.1 document of every route under /api, built once per app."""
    built: dict[str, Any] | None = app.extensions.get("dicepost.openapi")
    if built is None:
        built = app.extensions["dicepost.openapi"] = _build(app)
    return built
