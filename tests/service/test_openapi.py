"""/api/openapi.json describes every route under /api, with its methods, and is made
from the same declarations that check the request bodies (service.api_schema)."""

from __future__ import annotations

import re
from typing import Any, get_args

from flask import Blueprint, Flask, Response, jsonify

from service import api_models
from service.api import service_error
from service.api_models import OrdersAccepted, OrdersIn
from service.api_schema import operation
from service.errors import ServiceError


def test_every_api_route_is_described(sqlite_app: Flask) -> None:
    """Every route under /api, whichever blueprint serves it, and nothing that is not served."""
    spec = sqlite_app.test_client().get("/api/openapi.json").json
    assert spec["openapi"].startswith("3.")
    described = {(path, method) for path, ops in spec["paths"].items() for method in ops}
    for rule in sqlite_app.url_map.iter_rules():
        if not rule.rule.startswith("/api/"):
            continue
        path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule)
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            assert (path, method.lower()) in described, f"{method} {path} is not in openapi.json"
    for path, method in described:
        flask_path = re.sub(r"\{(\w+)\}", r"<\1>", path)
        assert any(re.sub(r"<(?:\w+:)?(\w+)>", r"<\1>", r.rule) == flask_path and method.upper() in r.methods
                   for r in sqlite_app.url_map.iter_rules()), f"{method} {path} has no route"


def test_paths_have_responses(sqlite_app: Flask) -> None:
    spec: dict[str, Any] = sqlite_app.test_client().get("/api/openapi.json").json
    for ops in spec["paths"].values():
        for op in ops.values():
            assert op["responses"] and op["summary"]


def test_a_route_declared_on_any_blueprint_is_described_and_its_body_checked(sqlite_app: Flask) -> None:
    """The declaration is both the document and the check: a blueprint of its own gets both."""
    bp = Blueprint("extra", __name__, url_prefix="/api/extra")
    bp.register_error_handler(ServiceError, service_error)

    @bp.post("/echo")
    @operation("Echo the round", body=OrdersIn, answer=OrdersAccepted, refusals=(409,))
    def echo(body: OrdersIn) -> Response:
        return jsonify({"round": body.round, "accepted": [], "version": 1, "at": ""})

    sqlite_app.register_blueprint(bp)
    client = sqlite_app.test_client()
    described = client.get("/api/openapi.json").json["paths"]["/api/extra/echo"]["post"]
    assert described["summary"] == "Echo the round"
    assert described["requestBody"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/OrdersIn"}
    assert set(described["responses"]) == {"200", "400", "409", "413", "422", "429", "503"}
    assert client.post("/api/extra/echo", json={"round": 3, "orders": ""}).json["round"] == 3
    r = client.post("/api/extra/echo", json={"round": "3", "orders": ""})
    assert (r.status_code, r.json) == (422, {"error": "round must be a whole number", "field": "round"})


def test_the_documented_choices_are_the_services() -> None:
    """The models name the choices the service functions check (one list each, kept equal here)."""
    from service import seats
    from service.schedule.policy import NMR_ACTIONS

    assert get_args(api_models.MailPref) == tuple(seats.PREFS)
    assert get_args(api_models.MessagePref) == tuple(seats.MESSAGE_PREFS)
    assert get_args(api_models.NmrAction) == NMR_ACTIONS


def _schemas(spec: dict[str, Any]) -> dict[str, Any]:
    return spec["components"]["schemas"]  # type: ignore[no-any-return]


def test_the_deadline_policy_is_a_union_over_its_kinds(sqlite_app: Flask) -> None:
    spec = sqlite_app.test_client().get("/api/openapi.json").json
    policy = _schemas(spec)["PolicyIn"]
    assert policy["discriminator"]["propertyName"] == "kind"
    assert set(policy["discriminator"]["mapping"]) == {"duration", "calendar", "none"}
    for kind in ("DurationPolicy", "CalendarPolicy", "NoDeadline"):
        assert _schemas(spec)[kind]["additionalProperties"] is False  # a typo is refused, not ignored
    put = spec["paths"]["/api/games/{game_id}/gm/policy"]["put"]
    assert put["requestBody"]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/PolicyIn"}
