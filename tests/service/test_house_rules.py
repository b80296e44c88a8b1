"""A universal game with its own unit types and terrain, through the API and the pages."""

from __future__ import annotations

from typing import Any

from flask import Flask

from engine.verify import verify
from tests.service.play import counts, create, start

TYPES = [{"name": "berserker", "cost": 1, "effects": {"power_counterattacking": 2}}]
FORCE = {"units": [{"name": "Axe", "pw": 2, "types": ["berserker"]}, {"name": "Bow", "types": ["mortar"]}]}


def test_a_house_rules_game_plays_and_verifies(app: Flask, client: Any) -> None:
    options = {"unit_types": TYPES, "terrain": "ruins"}
    table = start(client, seats=("alice", "bob"), options=options)
    state = table.state(app)
    assert state["options"]["unit_types"] == TYPES and state["terrain"]["d6"] == "wall"
    page = client.get(f"/games/{table.id}").get_data(as_text=True)
    assert "House rules" in page and "berserker" in page and "power_counterattacking 2" in page
    assert "ruins" in page
    for _ in range(3):
        for seat in ("alice", "bob"):
            r = table.put(seat, table.bot(app, seat))
            assert r.status_code == 200, r.json
    record = client.get(f"/api/games/{table.id}/record")
    assert record.status_code == 200
    assert verify(record.json).ok


def test_a_custom_type_in_a_force(app: Flask, client: Any) -> None:
    table = create(client, options={"unit_types": TYPES},
                   seats=("alice", "bob"))
    alice = table.created["seats"][0]
    join_page = client.get(f"/games/{table.id}/join/{alice['invite_token']}").get_data(as_text=True)
    assert "own unit types" in join_page and "power_counterattacking 2" in join_page
    r = client.post(f"/api/games/{table.id}/join",
                    json={"invite_token": alice["invite_token"], "force": FORCE})
    assert r.status_code == 200, r.json
    bob = table.created["seats"][1]
    r = client.post(f"/api/games/{table.id}/join",
                    json={"invite_token": bob["invite_token"], "force": {"units": [{"types": ["ninja"]}]}})
    assert r.status_code == 422
    assert "'ninja' is not a unit type (mortar, runner, support, defender, berserker)" in r.json["error"]


def test_a_bad_unit_type_is_refused_naming_the_field(app: Flask, client: Any) -> None:
    before = counts(app)
    bad = [{"name": "brute", "cost": 1, "effects": {"power": 11}}]
    r = client.post("/api/games", json={"ruleset": "universal", "seats": [{"name": "a"}, {"name": "b"}],
                                        "options": {"unit_types": bad}})
    assert r.status_code == 422
    assert r.json["field"] == "options.unit_types[0].effects.power"
    assert "must be from 1 to 10, not 11" in r.json["error"]
    assert counts(app) == before


def test_the_creation_form_takes_unit_types_as_one_line(client: Any) -> None:
    home = client.get("/").get_data(as_text=True)
    assert "unit_types" in home and "power_counterattacking" in home and "scattered" in home
