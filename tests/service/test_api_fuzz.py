"""Any JSON at the write endpoints: a clear 4xx (never a 5xx), and a refusal changes nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import sqlite_app_with
from tests.service.play import counts, create, start

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.floats(allow_nan=False)
    | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture
def sqlite_app(tmp_path: Path) -> Iterator[Flask]:
    """The guessing limit is off here: sixty refused bodies from one address within a
    minute would trip it (it is tested in tests/security), and these tests are about
    what each body alone gets back."""
    yield from sqlite_app_with(tmp_path, RATELIMIT_ENABLED=False)


def _maybe(keys: list[str]) -> Any:
    return st.fixed_dictionaries({}, optional={k: JSON for k in keys})


def _check(app: Flask, response: Any, before: dict[str, int]) -> None:
    assert response.status_code < 500, response.get_data(as_text=True)
    body = response.json
    assert isinstance(body, dict)
    if response.status_code >= 400:
        assert body.get("error") or body.get("errors"), body
        assert counts(app) == before


@SETTINGS
@given(body=_maybe(["ruleset", "title", "seats", "options", "public"]) | JSON)
def test_create_game_any_json(sqlite_app: Flask, body: Any) -> None:
    client = sqlite_app.test_client()
    before = counts(sqlite_app)
    _check(sqlite_app, client.post("/api/games", json=body), before)


@SETTINGS
@given(body=_maybe(["invite_token", "entropy", "force"]) | JSON)
def test_join_any_json(sqlite_app: Flask, body: Any) -> None:
    client = sqlite_app.test_client()
    table = create(client)
    if isinstance(body, dict) and body.get("invite_token") == "":
        body["invite_token"] = table.created["seats"][0]["invite_token"]
    before = counts(sqlite_app)
    _check(sqlite_app, client.post(f"/api/games/{table.id}/join", json=body), before)


@SETTINGS
@given(body=_maybe(["round", "orders"]) | JSON, text=st.text(max_size=80))
def test_orders_any_json(sqlite_app: Flask, body: Any, text: str) -> None:
    client = sqlite_app.test_client()
    table = start(client)
    headers = table.auth("alice")
    before = counts(sqlite_app)
    _check(sqlite_app, client.put(f"/api/games/{table.id}/orders", json=body, headers=headers), before)
    before = counts(sqlite_app)
    r = client.put(f"/api/games/{table.id}/orders", json={"round": 1, "orders": text}, headers=headers)
    _check(sqlite_app, r, before)
