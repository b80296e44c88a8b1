"""Fuzzing the two parsers that read what strangers write: order text (on SQLite and on
PostgreSQL) and email.

Orders, through PUT /api/games/<id>/orders for every registered ruleset: any text gets
200 (stored exactly as the answer says) or 422 naming lines (nothing stored), or, for
text no database can store (a NUL, a lone surrogate), 400 naming the field; never a
5xx. Email, through service.inbound.receive.receive: random bytes, and real replies with
their headers, body and reply token mutated, always come back as an Outcome with a known
status, never an exception; a reply whose token was changed never stores orders. The engine's own parser round trips are in tests/engine/test_orders.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select

from engine import ruleset_ids
from service import create_app
from service.db import engine_of, session_scope
from service.inbound.receive import receive
from service.inputs import text_problem
from service.models import Submission
from tests.conftest import base_config, empty_tables, migrated_sqlite
from tests.mail.conftest import start_game
from tests.service.play import Table, start

FUZZ = settings(max_examples=60, deadline=None, derandomize=True,
                suppress_health_check=list(HealthCheck))
STATUSES = {"processed", "refused", "ignored", "failed", "duplicate", "too_large"}


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def fuzz_app(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Flask]:
    """Each backend in turn: PostgreSQL refuses text that SQLite stores (a NUL)."""
    if request.param == "sqlite":
        where: Path = tmp_path_factory.mktemp("fuzz")
        app = create_app(base_config(migrated_sqlite(where / "fuzz.sqlite3"), PROPAGATE_EXCEPTIONS=False,
                                     RATELIMIT_ENABLED=False))
    else:
        app = create_app(base_config(request.getfixturevalue("pg_url"), PROPAGATE_EXCEPTIONS=False,
                                     RATELIMIT_ENABLED=False))
        empty_tables(app)
    yield app
    engine_of(app).dispose()


def _submissions(app: Flask) -> int:
    with session_scope(app) as s, s.begin():
        return int(s.scalar(select(func.count()).select_from(Submission)) or 0)


ORDER_WORDS = ["move", "attack", "shoot", "hold", "pass", "cast", "charge", "A1", "B2", "a1", "e10", "Z99",
               "#", "*", "->", "to", "at", "1", "-1", "0x10", "\t", "  ", "\u00e9", "\u202e", "\x00", "%s", "{}"]
order_texts = st.one_of(
    st.text(max_size=300),
    st.lists(st.lists(st.sampled_from(ORDER_WORDS), max_size=6).map(" ".join), max_size=8).map("\n".join),
)


@pytest.mark.parametrize("ruleset", ruleset_ids())
def test_any_order_text_is_stored_or_refused_by_line(fuzz_app: Flask, ruleset: str) -> None:
    table = start(fuzz_app.test_client(), ruleset)

    @FUZZ
    @given(text=order_texts)
    def check(text: str) -> None:
        before = _submissions(fuzz_app)
        r = table.put("alice", text, number=1) if "alice" in table.tokens else _first_seat_put(table, text)
        if text_problem(text):  # NUL or a lone surrogate: no backend can store it
            assert (r.status_code, r.json["field"]) == (400, "orders"), r.data[:300]
            assert _submissions(fuzz_app) == before
            return
        assert r.status_code in (200, 409, 422), (r.status_code, r.data[:300])
        if r.status_code == 200:
            assert _submissions(fuzz_app) == before + 1
            assert isinstance(r.json["accepted"], list)
        else:
            assert _submissions(fuzz_app) == before, "a refused text stores nothing"
            if r.status_code == 422:
                assert all(isinstance(e["line"], int) and e["message"] for e in r.json["errors"])

    check()


def _first_seat_put(table: Table, text: str) -> Any:
    seat = sorted(table.tokens)[0]
    return table.put(seat, text, number=1)


def _mutate(raw: bytes, data: st.DataObject) -> bytes:
    kind = data.draw(st.sampled_from(["flip", "cut", "insert", "header", "token"]))
    if kind == "flip" and raw:
        i = data.draw(st.integers(0, len(raw) - 1))
        return raw[:i] + bytes([raw[i] ^ data.draw(st.integers(1, 255))]) + raw[i + 1:]
    if kind == "cut":
        return raw[:data.draw(st.integers(0, len(raw)))]
    if kind == "insert":
        i = data.draw(st.integers(0, len(raw)))
        return raw[:i] + data.draw(st.binary(max_size=200)) + raw[i:]
    if kind == "header":
        name = data.draw(st.sampled_from([b"Content-Type", b"Content-Transfer-Encoding", b"From", b"To",
                                          b"Subject", b"In-Reply-To", b"Message-ID"]))
        value = data.draw(st.binary(max_size=120)).replace(b"\n", b" ")
        return name + b": " + value + b"\r\n" + raw
    return raw  # token: handled by the caller


def test_mail_parser_never_crashes(sqlite_app: Flask) -> None:
    game = start_game(sqlite_app)
    alice = game.players["alice"]
    start_mail = game.start_mail("alice")
    reply_to = str(start_mail["Reply-To"].addresses[0].addr_spec)
    captured: list[bytes] = []
    alice.send = captured.append  # type: ignore[method-assign]
    alice.reply(start_mail, "pass")
    real = captured[0]

    local = reply_to.partition("@")[0].encode()

    @settings(max_examples=80, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        if data.draw(st.booleans()):
            raw = data.draw(st.binary(max_size=2000))
        else:
            raw = _mutate(real, data)
            if data.draw(st.booleans()):  # change the reply token's last characters
                forged = local[:-3] + data.draw(st.binary(min_size=3, max_size=3).filter(
                    lambda b: b.isalnum() and b.isascii()))
                raw = raw.replace(local, forged)
            raw = raw.replace(b"Message-ID: <", b"Message-ID: <" + str(data.draw(st.integers(0, 10**9))).encode())
        before = _submissions(sqlite_app)
        with sqlite_app.app_context():
            outcome = receive(raw)
        assert outcome.status in STATUSES, outcome
        if local.lower() not in raw.lower():  # no genuine reply token anywhere: nobody is identified
            assert _submissions(sqlite_app) == before, "a changed token stores no orders"

    check()
