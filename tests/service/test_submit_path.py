"""The submission's request path kept cheap without changing what it answers: a re-sent
text is not parsed again, a request without a cookie builds no session serializer, a
pooled connection is pinged only once it has sat idle (and replaced when that fails)."""

from __future__ import annotations

import time
from typing import Any

import psycopg
import pytest
from flask import Flask
from sqlalchemy import text

from engine import find_ruleset
from engine.contract import Ruleset
from service import CookieSessions, caches
from service.db import PING_AFTER_IDLE_SECONDS, engine_of, make_engine
from tests.service.play import start


def _first_move(table: Any, seat: str) -> str:
    r = table.client.get(f"/api/games/{table.id}/orders", headers=table.auth(seat))
    _unit, lines = sorted(r.json["units"].items())[0]
    return str(next(line for line in lines if " move " in line))


def test_a_resent_text_is_parsed_once_and_answered_alike(client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    caches.clear_all()
    table = start(client)
    move = _first_move(table, "alice")
    parses: list[str] = []
    real = Ruleset.parse_orders

    def counted(self: Ruleset[Any], state: Any, player: str, orders: str) -> Any:
        parses.append(orders)
        return real(self, state, player, orders)

    monkeypatch.setattr(type(find_ruleset("universal")), "parse_orders", counted)
    first, again = table.put("alice", move), table.put("alice", move)
    assert first.status_code == again.status_code == 200
    assert again.json["accepted"] == first.json["accepted"] and again.json["version"] == first.json["version"] + 1
    assert parses == [move]
    changed = table.put("alice", "pass")  # another text: parsed
    assert changed.status_code == 200 and parses == [move, "pass"]


def test_a_refused_text_is_refused_alike_every_time(client: Any) -> None:
    caches.clear_all()
    table = start(client)
    answers = [table.put("alice", "A1 move z99\nflee") for _ in range(2)]
    assert [a.status_code for a in answers] == [422, 422]
    assert answers[0].json == answers[1].json and len(answers[0].json["errors"]) == 2


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
