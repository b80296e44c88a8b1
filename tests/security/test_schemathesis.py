"""Schemathesis against /api/openapi.json on a test instance (WSGI, embedded mode), on
SQLite and on PostgreSQL.

Every operation of the spec (the API, the GM console, inbound mail) gets generated
requests, valid and invalid, twice: as generated (random ids and tokens, with every
default check of schemathesis but positive_data_acceptance) and aimed at a
real started game with its real player or GM token, so the handlers past the lookups run
too. Each response must be no 5xx and conform to the spec (status, content type, body
schema). The rate limiter is off here (its 429 is in the spec and tested in
test_impersonation.py): otherwise the fuzzer would soon see nothing but 429s.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from flask import Flask
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    positive_data_acceptance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from service import create_app
from service.db import engine_of
from tests.conftest import base_config, empty_tables, migrated_sqlite
from tests.service.play import start

# The inbound mail webhook takes the raw message: sent as text, like text/plain.
schemathesis.serializer.alias("message/rfc822", "text/plain")

# Schemathesis reads the spec when the module is collected: the instance is made then,
# on an SQLite file of its own, removed when the module's tests are done.
WHERE = Path(tempfile.mkdtemp(prefix="dicepost_schemathesis_"))
SETTINGS = {"PROPAGATE_EXCEPTIONS": False, "RATELIMIT_ENABLED": False, "INBOUND_SECRET": "fuzz-secret"}
APP = create_app(base_config(migrated_sqlite(WHERE / "api.sqlite3"), **SETTINGS))
schema = schemathesis.openapi.from_wsgi("/api/openapi.json", APP)


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def fuzzed_app(request: pytest.FixtureRequest) -> Iterator[Flask]:
    """The spec's app on SQLite, and the same settings on PostgreSQL (which refuses text and
    numbers SQLite stores), each with a real started game."""
    if request.param == "sqlite":
        app = APP
    else:
        app = create_app(base_config(request.getfixturevalue("pg_url"), **SETTINGS))
        empty_tables(app)
    app.config["REAL_GAME"] = start(app.test_client())
    yield app
    engine_of(app).dispose()
    if app is APP:
        shutil.rmtree(WHERE, ignore_errors=True)


# positive_data_acceptance wants every schema-valid body accepted, but the schema cannot say
# which rulesets, names or durations exist: such bodies get the spec's 422. The requests
# aimed at the real game changed their case after generation, so only the checks that look
# at the response alone apply to them.
AIMED_CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
                response_schema_conformance, response_headers_conformance]


@schema.parametrize()
@settings(max_examples=20, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
def test_api_conforms_to_its_spec(case: Any, fuzzed_app: Flask) -> None:
    case.call_and_validate(app=fuzzed_app, excluded_checks=[positive_data_acceptance])
    real = fuzzed_app.config["REAL_GAME"]
    if "game_id" in (case.path_parameters or {}):
        # Schemathesis may hand the same case to each backend's run: aim it, then put it back.
        given_id, given_headers = case.path_parameters["game_id"], case.headers
        case.path_parameters["game_id"] = real.id
        token = real.created["gm_token"] if "/gm" in case.path else real.tokens["alice"]
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {token}"}
        try:
            case.call_and_validate(app=fuzzed_app, checks=AIMED_CHECKS)
        finally:
            case.path_parameters["game_id"], case.headers = given_id, given_headers
