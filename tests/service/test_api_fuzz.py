"""Any JSON at the write endpoints: a clear 4xx (never a 5xx), and a refusal changes nothing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service import create_app
from service.db import engine_of
from tests.conftest import base_config, empty_tables, sqlite_app_with
from tests.service.play import counts, create, start

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.floats(allow_nan=False)
    | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(params=["sqlite", "postgres"])
def fuzz_app(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Flask]:
    """Each backend in turn (PostgreSQL refuses what SQLite stores: NUL, long text, big
    numbers). The guessing limit is off here: sixty refused bodies from one address within
    a minute would trip it (it is tested in tests/security), and these tests are about
    what each body alone gets back."""
    if request.param == "sqlite":
        yield from sqlite_app_with(tmp_path, RATELIMIT_ENABLED=False)
        return
    app = create_app(base_config(request.getfixturevalue("pg_url"), RATELIMIT_ENABLED=False))
    empty_tables(app)
    yield app
    engine_of(app).dispose()


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
def test_create_game_any_json(fuzz_app: Flask, body: Any) -> None:
    client = fuzz_app.test_client()
    before = counts(fuzz_app)
    _check(fuzz_app, client.post("/api/games", json=body), before)


@SETTINGS
@given(body=_maybe(["invite_token", "entropy", "force"]) | JSON)
def test_join_any_json(fuzz_app: Flask, body: Any) -> None:
    client = fuzz_app.test_client()
    table = create(client)
    if isinstance(body, dict) and body.get("invite_token") == "":
        body["invite_token"] = table.created["seats"][0]["invite_token"]
    before = counts(fuzz_app)
    _check(fuzz_app, client.post(f"/api/games/{table.id}/join", json=body), before)


@SETTINGS
@given(body=_maybe(["round", "orders"]) | JSON, text=st.text(max_size=80))
def test_orders_any_json(fuzz_app: Flask, body: Any, text: str) -> None:
    client = fuzz_app.test_client()
    table = start(client)
    headers = table.auth("alice")
    before = counts(fuzz_app)
    _check(fuzz_app, client.put(f"/api/games/{table.id}/orders", json=body, headers=headers), before)
    before = counts(fuzz_app)
    r = client.put(f"/api/games/{table.id}/orders", json={"round": 1, "orders": text}, headers=headers)
    _check(fuzz_app, r, before)
