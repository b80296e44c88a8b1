"""/api/openapi.json describes every route of the API blueprint, with its methods."""

from __future__ import annotations

import re
from typing import Any

from flask import Flask


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


def test_other_blueprints_describe_their_routes(sqlite_app: Flask, monkeypatch: Any) -> None:
    import sys

    from service import api

    monkeypatch.setattr(sys.modules[api.bp.import_name], "OPENAPI_PATHS",
                        {"/api/extra": {"get": {"summary": "x", "responses": {"200": {}}}}}, raising=False)
    spec = sqlite_app.test_client().get("/api/openapi.json").json
    assert spec["paths"]["/api/extra"]["get"]["summary"] == "x"
