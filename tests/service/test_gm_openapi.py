"""Every GM and settings route is in /api/openapi.json, and nothing there lacks a route."""

from __future__ import annotations

import re

from tests.service.schedule_world import World


def test_every_gm_route_is_described(tmp_path):
    app = World(tmp_path).app
    spec = app.test_client().get("/api/openapi.json").json
    described = {(path, method) for path, ops in spec["paths"].items() for method in ops}
    mine = set()
    for rule in app.url_map.iter_rules():
        if rule.endpoint.startswith("gm_api."):
            path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule)
            mine |= {(path, m.lower()) for m in rule.methods - {"HEAD", "OPTIONS"}}
    assert len(mine) == 18  # announce and rollback joined the GM routes; then the webhooks (add, list, test, delete)
    assert mine <= described
    assert {(p, m) for p, m in described if "/gm" in p or "/webhooks" in p or p.endswith(("/settings", "/takeover"))} == mine
