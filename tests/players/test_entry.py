"""Entry rules (docs/players.md, "Entry rules"): a game's creator asks for a least
reliability or rating and a most running games; a seat that does not meet them is refused
with the reason, naming the rule's field, by web and API."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask

from service import players
from service.db import session_scope
from tests.dashboard.test_signin import sign_in
from tests.service.play import Table, start

BOB = "bob@example.org"


def _gm(table: Table) -> dict[str, str]:
    return {"Authorization": f"Bearer {table.created['gm_token']}"}


def _bob_misses(app: Flask, client: Any) -> None:
    """A game where bob never sends orders (the GM closes the rounds): bob's reliability 0%."""
    table = start(client, seats=("alice", "bob"), options={"max_rounds": 5})
    while table.status()["status"] == "active":
        assert table.put("alice", table.bot(app, "alice")).status_code == 200
        if table.status()["status"] == "active":
            assert client.post(f"/api/games/{table.id}/gm/resolve", headers=_gm(table)).status_code == 200
    with session_scope(app) as s, s.begin():
        assert players.history(s, BOB).reliability == 0


def _create(client: Any, entry: dict[str, Any], seats: tuple[str, ...] = ("bob", "carol")) -> Any:
    return client.post("/api/games", json={
        "ruleset": "universal", "title": "Choosy", "entry": entry,
        "seats": [{"name": s, "email": f"{s}@example.org"} for s in seats]})


def _join(client: Any, created: Any, seat: str) -> Any:
    invite = next(s["invite_token"] for s in created.json["seats"] if s["name"] == seat)
    return client.post(f"/api/games/{created.json['id']}/join", json={"invite_token": invite})


def test_the_api_refuses_a_seat_below_the_floor_naming_the_rule(sqlite_app: Flask) -> None:
    """"a seat (invitation join, lobby open-seat take, API) that does not meet them is refused
    with the reason (field named)"."""
    client = sqlite_app.test_client()
    _bob_misses(sqlite_app, client)
    created = _create(client, {"min_reliability": 50})
    assert created.status_code == 201, created.json
    refused = _join(client, created, "bob")
    assert refused.status_code == 403
    assert refused.json["field"] == "min_reliability"
    assert "at least 50%; yours is 0%" in refused.json["error"]
    assert _join(client, created, "carol").status_code == 200  # new: unknown, not unreliable
    page = client.get(f"/games/{created.json['id']}").get_data(as_text=True)
    assert "reliability at least 50%" in page

    rated = _create(client, {"min_rating": 1.5})
    refused = _join(client, rated, "carol")
    assert refused.status_code == 403 and refused.json["field"] == "min_rating"
    assert "yours is unrated (counted as 0)" in refused.json["error"]

    busy = _create(client, {"max_running": 0}, seats=("carol", "dan"))
    refused = _join(client, busy, "carol")  # carol sits in "Choosy", waiting to start
    assert refused.status_code == 403 and refused.json["field"] == "max_running"
    assert "you have 1" in refused.json["error"]
    assert _join(client, busy, "dan").status_code == 200

    lobby = client.get("/lobby").get_data(as_text=True)
    assert "rating at least 1.5" in lobby and "at most 0 other running games" in lobby


@pytest.mark.parametrize(("entry", "field"), [({"min_reliability": 101}, "entry.min_reliability"),
                                              ({"min_rating": "high"}, "entry.min_rating"),
                                              ({"max_running": -1}, "entry.max_running")])
def test_the_api_checks_the_rules_fields(sqlite_app: Flask, entry: dict[str, Any], field: str) -> None:
    r = _create(sqlite_app.test_client(), entry)
    assert r.status_code == 422 and r.json["field"] == field, r.json


def test_the_web_form_sets_the_rules_and_the_join_page_refuses_with_the_reason(sqlite_app: Flask) -> None:
    client = sqlite_app.test_client()
    _bob_misses(sqlite_app, client)
    bad = client.post("/games", data={"ruleset": "universal", "seats": "bob bob@example.org\ncarol",
                                      "min_reliability": "lots", "public": "on"})
    assert bad.status_code == 422 and "min_reliability: a whole number from 0 to 100" in bad.get_data(as_text=True)
    made = client.post("/games", data={"ruleset": "universal", "title": "Reliable only", "public": "on",
                                       "seats": "bob bob@example.org\ncarol carol@example.org",
                                       "min_reliability": "60"})
    assert made.status_code == 303
    game_id = made.headers["Location"].split("/")[2]
    with client.session_transaction() as kept:
        invites = {name: url for name, url, _ in kept["created"]["invites"]}
    path = "/" + invites["bob"].split("/", 3)[3]
    assert "reliability at least 60%" in client.get(path).get_data(as_text=True)  # told before joining
    refused = client.post(path, data={"use_default": "1"})
    text = refused.get_data(as_text=True)
    assert refused.status_code == 403 and "at least 60%; yours is 0%" in text
    lobby = client.get("/lobby").get_data(as_text=True)
    assert "reliability at least 60%" in lobby and game_id in lobby


def test_a_lobby_seat_of_a_game_with_rules_needs_a_signed_in_player_who_meets_them(sqlite_app: Flask) -> None:
    client = sqlite_app.test_client()
    _bob_misses(sqlite_app, client)
    created = _create(client, {"min_reliability": 50}, seats=("ann", "carol"))
    for seat in ("ann", "carol"):
        assert _join(client, created, seat).status_code == 200
    game_id = created.json["id"]
    opened = client.post(f"/api/games/{game_id}/gm/replace",
                         headers={"Authorization": f"Bearer {created.json['gm_token']}"}, json={"seat": "ann"})
    assert opened.status_code == 200, opened.json
    take = f"/games/{game_id}/seats/ann/take"
    anonymous = client.post(take)
    assert anonymous.status_code == 403 and "sign in to Your games" in anonymous.get_data(as_text=True)
    sign_in(sqlite_app, client, BOB)
    refused = client.post(take)
    assert refused.status_code == 403 and "yours is 0%" in refused.get_data(as_text=True)
