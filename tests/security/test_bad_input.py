"""Bad input is a 4xx naming the field on both backends, never a 500 or a driver's message.

Each case here gave a 500 on PostgreSQL (and some on SQLite too) before the input checks
(service.inputs): NUL bytes and lone surrogates in any text, numbers beyond the columns,
over-long addresses.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.service.play import counts, start

NUL = "a\x00b"
SURROGATE = "a\ud800b"


def assert_refused(r: Any, field: str | None = None) -> None:
    assert 400 <= r.status_code < 500, (r.status_code, r.get_data(as_text=True)[:500])
    text = r.get_data(as_text=True)
    for leak in ("SELECT", "INSERT", "UPDATE", "psycopg", "sqlite3", "Traceback", "[SQL"):
        assert leak not in text, text
    if field is not None:
        assert r.is_json, text
        assert r.json.get("field") == field, r.json


def game_body(**over: Any) -> dict[str, Any]:
    body = {"ruleset": "universal", "title": "A game",
            "seats": [{"name": "alice", "email": "alice@example.org"}, {"name": "bob"}]}
    body.update(over)
    return body


@pytest.mark.parametrize("bad", [NUL, SURROGATE], ids=["nul", "surrogate"])
def test_title_with_nul_or_surrogate_is_refused_naming_the_field(client: Any, app: Any, bad: str) -> None:
    before = counts(app)
    r = client.post("/api/games", json=game_body(title=bad))
    assert_refused(r, "title")
    assert counts(app) == before


@pytest.mark.parametrize("bad", ["al\x00ice@example.org", "al\ud800ice@example.org"], ids=["nul", "surrogate"])
def test_seat_address_with_nul_or_surrogate_is_refused(client: Any, bad: str) -> None:
    r = client.post("/api/games", json=game_body(seats=[{"name": "alice", "email": bad}, {"name": "bob"}]))
    assert_refused(r, "seats[0].email")


def test_seat_address_over_320_characters_is_refused_on_both_backends(client: Any, app: Any) -> None:
    before = counts(app)
    long = "a" * 64 + "@" + ".".join(["b" * 60] * 5) + ".org"
    assert len(long) > 320
    r = client.post("/api/games", json=game_body(seats=[{"name": "alice", "email": long}, {"name": "bob"}]))
    assert_refused(r, "seats[0].email")
    assert "long" in r.json["error"]
    assert counts(app) == before


def test_seat_address_without_a_dot_domain_gets_the_validators_reason(client: Any) -> None:
    r = client.post("/api/games", json=game_body(seats=[{"name": "alice", "email": "alice@@x"}, {"name": "bob"}]))
    assert_refused(r, "seats[0].email")


def test_addresses_are_kept_in_one_normal_form(client: Any, app: Any) -> None:
    from sqlalchemy import select

    from service.db import session_scope
    from service.models import Seat

    r = client.post("/api/games", json=game_body(seats=[{"name": "alice", "email": " Alice@Example.ORG "},
                                                         {"name": "bob"}]))
    assert r.status_code == 201, r.json
    with session_scope(app) as s, s.begin():
        assert s.scalars(select(Seat.email).where(Seat.name == "alice")).one() == "alice@example.org"


@pytest.mark.parametrize("bad", [NUL, SURROGATE], ids=["nul", "surrogate"])
def test_order_text_with_nul_or_surrogate_is_refused(client: Any, bad: str) -> None:
    table = start(client)
    r = client.put(f"/api/games/{table.id}/orders", headers=table.auth("alice"),
                   json={"round": 1, "orders": f"A1 move {bad}"})
    assert_refused(r, "orders")


@pytest.mark.parametrize("number", [2**31, -(2**31) - 1, 10**30], ids=["2^31", "-2^31-1", "10^30"])
def test_round_beyond_the_column_is_refused(client: Any, number: int) -> None:
    table = start(client)
    r = client.put(f"/api/games/{table.id}/orders", headers=table.auth("alice"),
                   json={"round": number, "orders": ""})
    assert_refused(r, "round")


@pytest.mark.parametrize("number", [2**31, 10**30])
def test_round_page_beyond_the_column_is_not_found(client: Any, number: int) -> None:
    table = start(client)
    assert_refused(client.get(f"/api/games/{table.id}/rounds/{number}"))
    assert_refused(client.get(f"/games/{table.id}/rounds/{number}"))


@pytest.mark.parametrize("path", ["/api/games/ab%00cd", "/games/ab%00cd", "/api/games/ab%00cd/record",
                                  "/games/x/player/ab%00cd", "/mail/preferences/a%00b"])
def test_url_with_a_nul_byte_is_refused(client: Any, path: str) -> None:
    assert_refused(client.get(path))


def test_query_with_a_nul_byte_is_refused_naming_it(client: Any) -> None:
    r = client.get("/api/games?x=a%00b")
    assert_refused(r, "x")


def test_form_with_a_nul_byte_is_refused_naming_the_field(client: Any, app: Any) -> None:
    before = counts(app)
    r = client.post("/games", data={"ruleset": "universal", "title": "t\x00", "seats": "alice\nbob"})
    assert_refused(r)
    assert "title" in r.get_data(as_text=True)
    assert counts(app) == before


def test_form_seat_address_over_320_characters_is_refused(client: Any, app: Any) -> None:
    before = counts(app)
    long = "a" * 64 + "@" + ".".join(["b" * 60] * 5) + ".org"
    r = client.post("/games", data={"ruleset": "universal", "title": "t", "seats": f"alice {long}\nbob"})
    assert_refused(r)
    assert counts(app) == before


def test_gm_replace_with_a_bad_address_is_refused_naming_it(client: Any) -> None:
    table = start(client)
    gm = {"Authorization": f"Bearer {table.created['gm_token']}"}
    r = client.post(f"/api/games/{table.id}/gm/replace", headers=gm,
                    json={"seat": "bob", "email": "b" * 330 + "@example.org"})
    assert_refused(r, "email")


def test_an_unexpected_error_answers_a_generic_message(app: Any) -> None:
    """The last-resort handler: logged, and the caller sees no exception text."""
    app.config["PROPAGATE_EXCEPTIONS"] = False

    @app.get("/boom-for-test")
    def boom() -> str:
        raise RuntimeError("SELECT secret FROM somewhere")

    for path in ("/boom-for-test",):
        r = app.test_client().get(path)
        assert r.status_code == 500
        assert "SELECT" not in r.get_data(as_text=True)


LONG = "9" * 5001  # more digits than Python reads as one int (sys.get_int_max_str_digits)


def with_long(body: Any) -> str:
    """`body` as JSON text with each 123456789 written as a number of 5,001 digits."""
    return json.dumps(body).replace("123456789", LONG)


def test_a_number_too_long_to_read_is_refused_naming_its_field(client: Any, app: Any) -> None:
    table = start(client)
    before = counts(app)
    r = client.put(f"/api/games/{table.id}/orders", headers=table.auth("alice"),
                   data=with_long({"round": 123456789, "orders": "pass"}), content_type="application/json")
    assert_refused(r, "round")
    assert r.status_code == 400 and "5001 digits" in r.json["error"]
    body = with_long(game_body(options={"width": -123456789}))
    r = client.post("/api/games", data=body, content_type="application/json")
    assert r.status_code == 400 and r.json["field"] == "options.width"
    # With text no backend stores beside it: still a 400, nothing stored.
    body = with_long(game_body(title=NUL, x=[123456789]))
    assert_refused(client.post("/api/games", data=body, content_type="application/json"))
    assert counts(app) == before


def test_a_number_too_long_to_read_in_a_form_field_is_refused_as_json(client: Any, app: Any) -> None:
    """JSON typed into a form (the GM page's policy): the form's own refusal, not a 500."""
    table = start(client)
    page = f"/games/{table.id}/gm/{table.created['gm_token']}"
    policy = with_long({"kind": "duration", "duration": "PT1H", "missed_turns": {"after": 123456789}})
    r = client.post(page + "/policy", data={"policy": policy}, follow_redirects=True)
    assert r.status_code < 500 and "policy: not valid JSON" in r.get_data(as_text=True)
