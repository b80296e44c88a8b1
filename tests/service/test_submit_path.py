"""The submission's request path kept cheap without changing what it answers: a request
without a cookie builds no session serializer, a pooled connection is pinged only once it
has sat idle (and replaced when that fails)."""

from __future__ import annotations

import time
from typing import Any

import psycopg
import pytest
from flask import Flask
from sqlalchemy import text

from service import CookieSessions
from service.db import PING_AFTER_IDLE_SECONDS, engine_of, make_engine
from tests.service.play import start


def test_an_api_call_without_a_cookie_builds_no_session_serializer(app: Flask,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    client = app.test_client()
    table = start(client)
    built: list[int] = []
    real = CookieSessions.get_signing_serializer

    def counted(self: Any, flask_app: Flask) -> Any:
        built.append(1)
        return real(self, flask_app)

    assert isinstance(app.session_interface, CookieSessions)
    monkeypatch.setattr(CookieSessions, "get_signing_serializer", counted)
    assert table.put("alice", "pass").status_code == 200
    assert built == []
    with client.session_transaction() as session:  # a cookie: the signed session as before
        session["seen"] = True
    assert client.get("/").status_code == 200 and built


def _backend_pid(engine: Any) -> int:
    with engine.connect() as conn:
        return int(conn.execute(text("SELECT pg_backend_pid()")).scalar_one())


def test_a_connection_idle_past_the_limit_is_pinged_and_replaced_when_dead(pg_url: str) -> None:
    engine = make_engine(pg_url, pool_size=1)
    try:
        first = _backend_pid(engine)
        assert _backend_pid(engine) == first  # in steady use: the same connection, no ping needed
        with psycopg.connect(pg_url, autocommit=True) as admin:  # ends the pooled connection's backend
            admin.execute("SELECT pg_terminate_backend(%s)", (first,))
        record = engine.pool._pool.queue[0]  # type: ignore[attr-defined]  # the one idle connection
        record.info["idle_since"] = time.monotonic() - PING_AFTER_IDLE_SECONDS - 1
        assert _backend_pid(engine) != first  # its ping failed: a new connection, no error
    finally:
        engine.dispose()


def test_the_apps_engine_pings_after_idle_only(pg_app: Flask) -> None:
    engine = engine_of(pg_app)
    assert not engine.pool._pre_ping
    pid = _backend_pid(engine)
    assert _backend_pid(engine) == pid
