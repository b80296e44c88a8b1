"""The force builder at join: made from the ruleset's published force schema, judged by the
ruleset's own validate_force (the API's join runs the same), each refusal at its field."""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import select
from werkzeug.datastructures import MultiDict

from engine import find_ruleset
from service.db import session_scope
from service.forces import check
from service.models import Seat
from service.web import force_form
from tests.service.play import create

RULESETS = ("universal", "jep1", "fivedice", "heroes")


def posted(w: force_form.Widget, out: list[tuple[str, str]] | None = None) -> list[tuple[str, str]]:
    """What a browser posts for the form as it is filled in (no script)."""
    out = [] if out is None else out
    name = force_form.PREFIX + w.name
    if w.kind in ("number", "text", "select", "cards", "slot"):
        out.append((name, str(w.value)))
    elif w.kind == "checks":
        out += [(name + ".shown", "1"), *((name, v) for v in w.value)]
    for child in w.children:
        posted(child, out)
    for _, _, fields in w.alternatives:
        for child in fields:
            posted(child, out)
    return out


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_the_default_force_reads_back_from_its_form(ruleset_id: str) -> None:
    """The builder filled with the default force posts that same force (as the ruleset reads it)."""
    ruleset = find_ruleset(ruleset_id)
    options = ruleset.options({})
    default = ruleset.default_force(0, options)
    schema = ruleset.force_schema(options)
    force = force_form.read(schema, MultiDict(posted(force_form.build(schema, default))))
    spec = ruleset.force_spec(options)
    assert check(ruleset, force, options).ok
    assert spec.read(force) == spec.read(default)


def test_a_refusal_sits_at_its_field_and_the_budget_at_the_force() -> None:
    """universal: Pw 0 is under the least power, 1; ten Pw 3 characters cost 4 points each
    ("1/1/5 character - 1 point", power +1 1 point, +2 2 points): 40, over the budget of 20."""
    ruleset = find_ruleset("universal")
    options = ruleset.options({})
    schema = ruleset.force_schema(options)
    bad = {"units": [{"name": "Tank", "pw": 0}, {"name": "Ok"}]}
    root = force_form.build(schema, bad)
    placed = force_form.place(root, check(ruleset, bad, options))
    assert placed == {"units.0.pw": ["unit 1 (Tank): Pw must be between 1 and 30, not 0"]}
    pw = next(w for w in root.walk() if w.at == "units.0.pw" and w.kind == "number")
    assert pw.refusals == placed["units.0.pw"]
    over = check(ruleset, {"units": [{"pw": 3}] * 10}, options)
    assert [f for f, _ in over.refusals] == [""] and over.cost is not None
    assert (over.cost.spent, over.cost.budget, over.cost.over) == ("40", "20", True)


def test_the_api_publishes_the_schema_and_judges_a_force(app: Flask, client: Any) -> None:
    r = client.get('/api/rulesets/jep1/force-schema?options={"points": 100}')
    assert r.status_code == 200 and r.json["default"] == {"units": ["warrior", "warrior", "archer",
                                                                    "knight", "scout"]}
    assert "budget of 100 points" in r.json["schema"]["description"]
    r = client.post("/api/rulesets/jep1/force-check",
                    json={"force": {"units": [{"stats": {"I": 9}}]}, "options": {}})
    assert r.status_code == 200 and not r.json["ok"]
    assert r.json["refusals"][0] == {"field": "units.0.stats.I",
                                     "message": "unit 1: I must be between 0 and 6, not 9"}
    # A knight: I1 2, M3 12, R0 0, S4 12, T6 18, A1 8, H4 16 (costs.py) and shield 6: 74 points.
    r = client.post("/api/rulesets/jep1/force-check", json={"force": {"units": ["knight"]}})
    assert r.json == {"ok": True, "refusals": [], "cost": {"spent": "74", "budget": "300", "over": False}}
    assert client.get("/api/rulesets/nope/force-schema").status_code == 422
    assert client.get("/api/rulesets/jep1/force-schema?options={").status_code == 400
    assert client.get('/api/rulesets/jep1/force-schema?options={"points": "x"}').status_code == 422
    heroes = client.get("/api/rulesets/heroes/force-schema").json["schema"]["properties"]["hero"]
    assert heroes["enumDescriptions"][0].startswith("A flying powerhouse. S 4, U 4, P 3, E 3, R 2; ATT 2, ARM 2")


def test_joining_without_javascript_shows_the_refusal_at_its_field(app: Flask, client: Any) -> None:
    """A plain form: a bad field posts back 422 with the ruleset's sentence right after the
    field; the default force is one button; the built force is the seat's."""
    table = create(client)
    alice, bob = table.created["seats"][0], table.created["seats"][1]
    path = f"/games/{table.id}/join/{alice['invite_token']}"
    page = client.get(path).get_data(as_text=True)
    assert 'name="f.units.0.$"' in page and "Join with the default force" in page
    assert "Advanced: the force as JSON" in page
    form = [("entropy", ""), ("f.units.0.$", "u"), ("f.units.0.u.name", "Tank"),
            ("f.units.0.u.pw", "0"), ("f.units.1.$", "u"), ("f.units.1.u.pw", "2")]
    r = client.post(path, data=MultiDict(form))
    html = r.get_data(as_text=True)
    assert r.status_code == 422
    assert re.search(r'name="f\.units\.0\.u\.pw"[^>]*value="0"', html.replace("\n", " ")) or \
        re.search(r'value="0"[^>]*name="f\.units\.0\.u\.pw"', html.replace("\n", " "))
    at_field = html.split('name="f.units.0.u.pw"', 1)[1].split("</p>", 1)[0]
    assert "unit 1 (Tank): Pw must be between 1 and 30, not 0" in at_field
    live = client.post(path + "/force-check", data=MultiDict(form)).json
    assert live["at"] == {"units.0.pw": ["unit 1 (Tank): Pw must be between 1 and 30, not 0"]}
    form[3] = ("f.units.0.u.pw", "3")  # Pw 3: 1 + 1 + 2 points; Pw 2: 1 + 1; the page's running total
    assert client.post(path + "/force-check", data=MultiDict(form)).json["cost"] == {
        "spent": "6", "budget": "20", "over": False}
    assert client.post(path, data=MultiDict(form)).status_code == 303
    r = client.post(f"/games/{table.id}/join/{bob['invite_token']}",
                    data={"entropy": "", "use_default": "1", "f.units.0.$": "u", "f.units.0.u.pw": "0"})
    assert r.status_code == 303
    with session_scope(app) as s, s.begin():
        forces = {seat.name: seat.force for seat in s.scalars(select(Seat).where(Seat.game_id == table.id))}
    assert forces["alice"] == {"units": [{"name": "Tank", "pw": 3}, {"pw": 2}]}
    assert forces["bob"] == find_ruleset("universal").default_force(1, {})


@pytest.mark.parametrize("ruleset_id", RULESETS)
def test_the_builder_speaks_to_players_not_developers(client: Any, ruleset_id: str) -> None:
    """No file names and no talk of the seed on the join page; every preset shows its stats
    and cost, every skill, weapon and unit type what it does."""
    table = create(client, ruleset_id)
    page = client.get(f"/games/{table.id}/join/{table.created['seats'][0]['invite_token']}").get_data(as_text=True)
    for developer in ("skills.json", "roster.json", "seed", "data/"):
        assert developer not in page, developer
    expected = {
        "universal": ["<strong>mortar</strong>: +3 Power; hits only enemies more than 3 squares away",
                      "the first costs 1 point, the second 3"],
        "jep1": ['data-alt="p:preset:warrior"', "I 2, M 2, R 0, S 3, T 5, A 0, H 3, reach 8; skills "
                 "berserk, parry; 59 points.", "<strong>berserk</strong>: Roll one more attack die. "
                 "(before the hit roll, when it attacks; 2 uses a game; 6 points)"],
        "fivedice": ['data-alt="p:preset:knight"', "attack 4, initiative 2, defence 4, skill 3, movement 2, "
                     "life 18; sword, plate, potion; 73 points",
                     "<strong>sword</strong>: melee, +3 attack, reach 1, speed 7; 3 points"],
        "heroes": ["Movement A.P. 2, General A.P. 2; Vitality 6; close combat. Nemesis: Nadir.",
                   "Flight (any number of times)"],
    }[ruleset_id]
    for text in expected:
        assert text in page, text


def test_a_hero_or_tile_another_seat_holds_is_refused_naming_the_field(app: Flask, client: Any) -> None:
    """Heroes United has one card of each hero (each hunts its own Nemesis) and one of each
    corner tile ("Each other player will also choose a game tile"): a second Zenith! is
    refused at the hero field, by the API, the join form and its live check; a seat that
    brings no force gets a hero nobody holds."""
    table = create(client, "heroes", ("alice", "bob", "carol"))
    alice, bob, carol = table.created["seats"]
    r = client.post(f"/api/games/{table.id}/join", json={"invite_token": alice["invite_token"],
                                                         "force": {"hero": "puck", "tile": "docks"}})
    assert r.status_code == 200, r.json
    r = client.post(f"/api/games/{table.id}/join", json={"invite_token": bob["invite_token"],
                                                         "force": {"hero": "puck", "tile": "docks"}})
    assert r.status_code == 422 and r.json["field"] == "force"
    message = r.json["error"]
    assert "hero: Puck is already alice's hero; there is one of each, so pick another" in message
    assert "tile: The Docks is already alice's tile" in message
    assert "Zenith!, Silver Siren, King Castro, Army Soldier are free" in message
    path = f"/games/{table.id}/join/{bob['invite_token']}"
    form = MultiDict([("entropy", ""), ("f.hero", "puck"), ("f.tile", "park")])
    live = client.post(path + "/force-check", data=form).json
    assert list(live["at"]) == ["hero"] and live["at"]["hero"][0].startswith("hero: Puck is already alice's")
    page = client.post(path, data=form)
    assert page.status_code == 422 and "Puck is already alice&#39;s hero" in page.get_data(as_text=True)
    assert client.post(path, data=MultiDict([("entropy", ""), ("f.hero", "zenith"),
                                             ("f.tile", "park")])).status_code == 303
    # carol's default (seat 2: Puck, Central Park) is held twice over: the first free ones.
    assert client.post(f"/api/games/{table.id}/join", json={"invite_token": carol["invite_token"]}).status_code == 200
    with session_scope(app) as s, s.begin():
        held = {seat.name: seat.force for seat in s.scalars(select(Seat).where(Seat.game_id == table.id))}
    assert held["carol"] == {"hero": "silver_siren", "tile": "downtown"}


def test_the_gm_cannot_give_two_seats_one_hero(client: Any) -> None:
    r = client.post("/api/games", json={"ruleset": "heroes", "title": "Twins", "seats": [
        {"name": "alice", "force": {"hero": "zenith"}}, {"name": "bob", "force": {"hero": "zenith"}}]})
    assert r.status_code == 422 and r.json["field"] == "seats[1].force"
    assert "hero: Zenith! is already alice's hero" in r.json["error"]
