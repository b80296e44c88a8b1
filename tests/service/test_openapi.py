"""/api/openapi.json describes every route under /api, with its methods, and is made
from the same declarations that check the request bodies (service.api_schema)."""

from __future__ import annotations

import re
from typing import Any, get_args

from flask import Blueprint, Flask, Response, jsonify

from service import api_models
from service.api import service_error
from service.api_models import OrdersAccepted, OrdersIn
from service.api_schema import DECLARED, operation
from service.errors import ServiceError
from tests.service.play import create


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


def test_every_answer_of_a_whole_game_is_what_its_route_declares(sqlite_app: Flask) -> None:
    """A game played through the API, the GM's actions included: each answer validates
    against the model its route declares (what /api/openapi.json says it is)."""
    client = sqlite_app.test_client()

    def declared(method: str, path: str, status: int = 200, **kw: Any) -> Any:
        r = client.open(path, method=method, **kw)
        assert r.status_code == status, (path, r.json)
        adapter = sqlite_app.url_map.bind("dicepost.test")
        endpoint, _args = adapter.match(path.partition("?")[0], method=method)
        DECLARED[sqlite_app.view_functions[endpoint]].answer.model_validate(r.json, strict=True)
        return r.json

    table = create(client)
    base = f"/api/games/{table.id}"
    for seat in table.created["seats"]:
        joined = declared("POST", f"{base}/join", json={"invite_token": seat["invite_token"]})
        table.tokens[seat["name"]] = joined["player_token"]
    gm = {"Authorization": f"Bearer {table.created['gm_token']}"}
    declared("GET", "/api/games")
    declared("GET", "/api/rulesets")
    declared("GET", "/api/rulesets/universal/force-schema?options=%7B%22width%22%3A%2010%7D")
    declared("POST", "/api/rulesets/universal/force-check", json={"force": {"units": []}})
    declared("GET", "/api/openapi.json")
    declared("GET", base)
    declared("GET", f"{base}/orders", headers=table.auth("alice"))
    declared("PUT", f"{base}/orders", headers=table.auth("alice"), json={"round": 1, "orders": "pass"})
    declared("PUT", f"{base}/orders", headers=table.auth("bob"), json={"round": 1, "orders": "pass"})
    declared("GET", f"{base}/rounds/1")
    declared("PUT", f"{base}/settings", headers=table.auth("alice"),
             json={"wait": True, "absences": [{"from": "2030-01-01", "to": "2030-01-02"}], "zone": "Europe/Berlin"})
    declared("GET", f"{base}/settings", headers=table.auth("alice"))
    declared("POST", f"{base}/gm/pause", headers=gm)
    declared("POST", f"{base}/gm/resume", headers=gm)
    declared("POST", f"{base}/gm/extend", headers=gm, json={"by": "PT2H"})
    declared("POST", f"{base}/gm/announce", headers=gm, json={"text": "Next round on Friday."})
    declared("PUT", f"{base}/gm/policy", headers=gm, json={"kind": "calendar", "days": ["fri"], "time": "18:00",
                                                          "quiet_hours": {"start": "23:00", "end": "07:00"}})
    invite = declared("POST", f"{base}/gm/replace", headers=gm, json={"seat": "bob"})["invite_token"]
    declared("POST", f"{base}/takeover", json={"invite_token": invite})
    declared("POST", f"{base}/gm/remove", headers=gm, json={"seat": "bob", "units": "bot"})
    declared("POST", f"{base}/gm/resolve", headers=gm)
    declared("GET", f"{base}/gm", headers=gm)
    declared("POST", f"{base}/messages", 201, headers=table.auth("alice"), json={"to": "gm", "text": "Hi GM"})
    assert declared("GET", f"{base}/record", headers=table.auth("alice"))["messages"]
    declared("POST", f"{base}/gm/end", headers=gm)
    record = declared("GET", f"{base}/record", headers=gm)
    assert record["schedule_log"] and record["steps"]
