"""Acting for another player, and guessing tokens.

A seat is proven only by its own secret: the player token (API bearer, player page URL)
or a signed mail token; nothing a request says about itself (a seat named in the body or
the form, a From header) chooses the seat. Guessing is rate limited per client address
(service.ratelimit): memory in embedded mode, Redis shared by every web process in full
mode. Mail impersonation is covered in tests/mail/test_inbound.py (forged tokens, the
From header alone, a token line from another address, replayed deliveries) and
tests/mail/test_tokens_headers.py (tampered and cross-purpose tokens).
"""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from sqlalchemy import select

from service import create_app
from service.db import engine_of, session_scope
from service.models import Seat, Submission
from tests.conftest import empty_tables, full_config
from tests.service.play import counts, start


def _submissions(app: Flask, game_id: str) -> dict[str, list[str]]:
    with session_scope(app) as s, s.begin():
        rows = s.execute(select(Seat.name, Submission.text).join(Submission, Submission.seat_id == Seat.id)
                         .where(Seat.game_id == game_id).order_by(Submission.id)).all()
    found: dict[str, list[str]] = {}
    for name, text in rows:
        found.setdefault(name, []).append(text)
    return found


def test_the_body_cannot_choose_the_seat(app: Flask, client: Any) -> None:
    table = start(client)
    r = client.put(f"/api/games/{table.id}/orders", headers=table.auth("alice"),
                   json={"round": 1, "orders": "pass # from alice", "seat": "bob", "player": "bob",
                         "seat_id": 2, "name": "bob", "token": table.tokens["bob"]})
    assert r.status_code == 200
    player = f"/games/{table.id}/player/{table.tokens['alice']}"
    r = client.post(player, data={"round": "1", "free": "pass # form from alice", "seat": "bob",
                                  "seat_id": "2", "player": "bob"}, follow_redirects=True)
    assert r.status_code == 200
    assert _submissions(app, table.id) == {"alice": ["pass # from alice", "pass # form from alice"]}
    assert client.get(f"/api/games/{table.id}/orders", headers=table.auth("bob")).json["current"] == ""


def test_only_the_right_secret_proves_a_seat(app: Flask, client: Any) -> None:
    table, other = start(client), start(client)
    before = counts(app)
    wrong = {
        "another game's player token": other.tokens["alice"],
        "the GM token": table.created["gm_token"],
        "an invitation token": table.created["seats"][0]["invite_token"],
        "a token with one character changed": table.tokens["alice"][:-1] + ("A" if table.tokens["alice"][-1] != "A" else "B"),
        "a prefix of the token": table.tokens["alice"][:8],
    }
    for what, token in wrong.items():
        r = client.put(f"/api/games/{table.id}/orders", headers={"Authorization": f"Bearer {token}"},
                       json={"round": 1, "orders": "pass"})
        assert r.status_code == 401, what
        page = client.post(f"/games/{table.id}/player/{token}", data={"round": "1", "free": "pass"})
        assert page.status_code in (401, 404), what
    r = client.get(f"/api/games/{table.id}/gm", headers=table.auth("alice"))
    assert r.status_code == 401, "a player token is not the GM's"
    r = client.post(f"/api/games/{table.id}/gm/pause", headers=table.auth("bob"))
    assert r.status_code == 401
    assert counts(app) == before


def _guess(client: Any, game_id: str, n: int, address: str) -> list[int]:
    return [client.put(f"/api/games/{game_id}/orders", headers={"Authorization": f"Bearer guess-{i}"},
                       json={"round": 1, "orders": "pass"}, environ_base={"REMOTE_ADDR": address}).status_code
            for i in range(n)]


def test_guessing_tokens_is_rate_limited(sqlite_app: Flask) -> None:
    client = sqlite_app.test_client()
    table = start(client)
    codes = _guess(client, table.id, 35, "203.0.113.7")
    assert codes[:30] == [401] * 30 and codes[30:] == [429] * 5
    r = client.get(f"/games/{table.id}/player/guess-page", environ_base={"REMOTE_ADDR": "203.0.113.7"})
    assert r.status_code == 429 and int(r.headers["Retry-After"]) > 0
    r = client.put(f"/api/games/{table.id}/orders", headers={"Authorization": "Bearer x"},
                   json={"round": 1, "orders": "pass"}, environ_base={"REMOTE_ADDR": "203.0.113.7"})
    assert r.status_code == 429 and "too many refused requests" in r.json["error"]
    # Another address is not affected, and successful requests never count.
    for _ in range(40):
        r = client.get(f"/api/games/{table.id}", environ_base={"REMOTE_ADDR": "198.51.100.2"})
        assert r.status_code == 200 and "Retry-After" not in r.headers
    assert table.put("alice", "pass").status_code == 200  # 127.0.0.1: a player going on as usual
    # URL tokens count the same way: the player page, the GM page.
    codes = [client.get(f"/games/{table.id}/gm/guess{i}", environ_base={"REMOTE_ADDR": "192.0.2.9"}).status_code
             for i in range(32)]
    assert codes[-1] == 429 and set(codes[:30]) <= {401, 404}


@pytest.mark.slow
def test_the_limit_is_shared_by_web_processes_through_redis(pg_url: str, redis_env: dict[str, str]) -> None:
    """Two app instances (two web processes) on the same Redis: the budget is one."""
    import secrets

    import redis

    prefix = f"{redis_env['DICEPOST_REDIS_PREFIX']}rl{secrets.token_hex(3)}:"
    env = {**redis_env, "DICEPOST_REDIS_PREFIX": prefix}
    first = create_app(full_config(pg_url, env))
    second = create_app(full_config(pg_url, env))
    empty_tables(first)
    try:
        table = start(first.test_client())
        address = "203.0.113.50"
        assert _guess(first.test_client(), table.id, 15, address) == [401] * 15
        assert _guess(second.test_client(), table.id, 15, address) == [401] * 15
        assert _guess(first.test_client(), table.id, 1, address) == [429]
        assert _guess(second.test_client(), table.id, 1, address) == [429]
        keys = list(redis.Redis.from_url(redis_env["REDIS_URL"]).scan_iter(match=prefix + "*"))
        assert keys, "the counts live in Redis, under the app's prefix"
    finally:
        engine_of(first).dispose()
        engine_of(second).dispose()


def _full_app(pg_url: str, redis_env: dict[str, str], **extra: Any) -> Flask:
    """A full-mode app (PostgreSQL, the limit's counts in Redis) with its own count keys."""
    import secrets

    env = {**redis_env, "DICEPOST_REDIS_PREFIX": f"{redis_env['DICEPOST_REDIS_PREFIX']}rl{secrets.token_hex(3)}:"}
    app = create_app(full_config(pg_url, env, **extra))
    empty_tables(app)
    return app


def test_a_guesser_does_not_lock_out_valid_tokens_on_its_address(pg_url: str, redis_env: dict[str, str]) -> None:
    """Only refusals are counted and only refusals are refused: after 30 guesses from an
    address, a player on the same address (a school, a NAT) goes on as usual."""
    app = _full_app(pg_url, redis_env)
    try:
        client = app.test_client()
        table = start(client)
        shared = {"REMOTE_ADDR": "203.0.113.60"}
        assert _guess(client, table.id, 31, shared["REMOTE_ADDR"]) == [401] * 30 + [429]
        for n in range(5):
            r = client.put(f"/api/games/{table.id}/orders", headers=table.auth("alice"),
                           json={"round": 1, "orders": f"pass # {n}"}, environ_base=shared)
            assert r.status_code == 200 and "Retry-After" not in r.headers, r.json
        page = client.get(f"/games/{table.id}/player/{table.tokens['bob']}", environ_base=shared)
        assert page.status_code == 200
        assert _guess(client, table.id, 2, shared["REMOTE_ADDR"]) == [429, 429]  # the guesser still waits
    finally:
        engine_of(app).dispose()


def _guess_via_proxy(client: Any, game_id: str, n: int, forwarded_for: str) -> list[int]:
    return [client.put(f"/api/games/{game_id}/orders", headers={"Authorization": f"Bearer guess-{i}",
                                                                "X-Forwarded-For": forwarded_for},
                       json={"round": 1, "orders": "pass"}, environ_base={"REMOTE_ADDR": "10.0.0.2"}).status_code
            for i in range(n)]


def test_behind_a_proxy_each_client_has_its_own_budget(pg_url: str, redis_env: dict[str, str]) -> None:
    """DICEPOST_PROXY_HOPS=1: the address the proxy saw is counted, not the proxy's own."""
    app = _full_app(pg_url, redis_env, PROXY_HOPS=1)
    try:
        client = app.test_client()
        table = start(client)
        assert _guess_via_proxy(client, table.id, 31, "203.0.113.70") == [401] * 30 + [429]
        assert _guess_via_proxy(client, table.id, 3, "198.51.100.9") == [401] * 3  # another client
        # Only the last hop is trusted: a guesser cannot pick a new address with the header.
        assert _guess_via_proxy(client, table.id, 1, "192.0.2.1, 203.0.113.70") == [429]
    finally:
        engine_of(app).dispose()

    app = _full_app(pg_url, redis_env)  # no proxy configured: the header is the client's word only
    try:
        client = app.test_client()
        table = start(client)
        codes = [_guess_via_proxy(client, table.id, 1, f"198.51.100.{i}")[0] for i in range(31)]
        assert codes == [401] * 30 + [429]
    finally:
        engine_of(app).dispose()
