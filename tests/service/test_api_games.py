"""Creating and joining games through the API: exact shapes, clear refusals."""

from __future__ import annotations

from typing import Any

from flask import Flask
from sqlalchemy import select

from engine import find_ruleset
from engine.dice import NEW_GAME_PROFILE, H, chain_link_ok, server_entropy
from service.db import session_scope
from service.dice_keys import open_tip
from service.models import AuditLog, Game, Outbox, Round, Seat, Step
from service.tokens import token_hash
from tests.service.play import counts, create, start


def test_create_game_shape(app: Flask, client: Any) -> None:
    r = client.post("/api/games", json={"ruleset": "universal", "title": "Skirmish",
                                        "seats": [{"name": "alice", "email": "a@example.org"},
                                                  {"name": "bob", "email": "b@example.org"}],
                                        "options": {"width": 10}, "public": True})
    assert r.status_code == 201
    body = r.json
    assert set(body) == {"id", "commitment", "gm_token", "seats"}
    assert len(body["commitment"]) == 64
    assert [set(s) for s in body["seats"]] == [{"name", "invite_token", "join_url"}] * 2
    assert [s["name"] for s in body["seats"]] == ["alice", "bob"]
    assert body["seats"][0]["join_url"] == (
        f"http://dicepost.test/games/{body['id']}/join/{body['seats'][0]['invite_token']}")
    with session_scope(app) as s, s.begin():
        game = s.get(Game, body["id"])
        assert game is not None and game.status == "waiting" and game.options["width"] == 10
        # Secrets are stored only as hashes; the tip is kept but is not the commitment.
        assert game.gm_token_hash == token_hash(body["gm_token"])
        seats = list(game.seats)
        assert [x.invite_token_hash for x in seats] == [token_hash(x["invite_token"]) for x in body["seats"]]
        assert game.commitment not in game.sealed_tip and game.chain_length == 4096
        invitations = s.scalars(select(Outbox).where(Outbox.kind == "invitation")).all()
        assert sorted(o.to_address for o in invitations) == ["a@example.org", "b@example.org"]
        assert all(o.message_id.startswith("<") and o.payload["join_url"] for o in invitations)
    page = client.get(f"/api/games/{body['id']}").json
    assert page == {"id": body["id"], "ruleset": "universal", "revision": 1, "title": "Skirmish", "status": "waiting",
                    "round": None, "commitment": body["commitment"],
                    "seats": [{"name": "alice", "joined": False, "submitted": False},
                              {"name": "bob", "joined": False, "submitted": False}],
                    "expected": [], "deadline": None, "winner": None, "outcome": None}


def test_commitment_is_the_chain_of_the_stored_tip(app: Flask, client: Any) -> None:
    table = create(client, options={"chain_length": 5})
    with session_scope(app) as s, s.begin():
        game = s.get(Game, table.id)
        assert game is not None
        link = open_tip(bytes.fromhex(app.config["SEAL_KEY"]), game.id, game.sealed_tip)
        for _ in range(5):
            link = H(NEW_GAME_PROFILE, "chain", link)
        assert link.hex() == table.created["commitment"]


def test_refusals_name_the_field(app: Flask, client: Any) -> None:
    before = counts(app)
    cases = [
        ({"ruleset": "chess", "seats": [{"name": "a"}, {"name": "b"}]}, "ruleset", "unknown ruleset 'chess'"),
        ({"ruleset": "universal", "seats": [{"name": "a"}, {"name": "b"}], "options": {"colour": 1}},
         "options.colour", "colour"),
        ({"ruleset": "universal", "seats": [{"name": "a"}, {"name": "b"}], "options": {"width": "x"}},
         "options.width", "width"),
        ({"ruleset": "universal", "seats": [{"name": "a"}, {"name": "b"}], "options": {"chain_length": 1}},
         "options.chain_length", "chain_length"),
        ({"ruleset": "universal", "seats": [{"name": "a"}]}, "seats", "players"),
        ({"ruleset": "universal", "seats": [{"name": "a"}, {"name": "A"}]}, "seats[1].name", "used twice"),
        ({"ruleset": "universal", "seats": [{"name": "a b"}, {"name": "c"}]}, "seats[0].name", "letters"),
        ({"ruleset": "universal", "seats": [{"name": "a", "email": "nope"}, {"name": "c"}]},
         "seats[0].email", "e-mail"),
        ({"ruleset": "universal", "seats": "alice"}, "seats", "list"),
        ({"ruleset": "universal", "seats": [{"name": "a"}, {"name": "b"}], "public": "yes"}, "public", "true"),
    ]
    for body, field, words in cases:
        r = client.post("/api/games", json=body)
        assert r.status_code == 422, (body, r.json)
        assert r.json["field"] == field and words in r.json["error"], r.json
    assert counts(app) == before


def test_bad_json_and_wrong_content(client: Any) -> None:
    r = client.post("/api/games", data="{not json", content_type="application/json")
    assert r.status_code == 400 and r.json["error"] == "the body is not valid JSON"
    r = client.post("/api/games", data="ruleset=universal", content_type="application/x-www-form-urlencoded")
    assert r.status_code == 400 and "application/json" in r.json["error"]
    r = client.post("/api/games", json=[1, 2])
    assert r.status_code == 400 and "object" in r.json["error"]


def test_oversized_body_is_refused(app: Flask, client: Any) -> None:
    before = counts(app)
    big = {"ruleset": "universal", "title": "x" * 70_000, "seats": [{"name": "a"}, {"name": "b"}]}
    r = client.post("/api/games", json=big)
    assert r.status_code == 413 and "larger than" in r.json["error"]
    assert counts(app) == before


def test_join_runs_setup_on_the_last_seat(app: Flask, client: Any) -> None:
    table = create(client)
    alice, bob = table.created["seats"]
    entropy = "ab" * 16
    r = client.post(f"/api/games/{table.id}/join", json={"invite_token": alice["invite_token"], "entropy": entropy})
    assert r.status_code == 200 and set(r.json) == {"player_token", "player_url"}
    assert r.json["player_url"] == f"http://dicepost.test/games/{table.id}/player/{r.json['player_token']}"
    assert table.status()["status"] == "waiting"
    r = client.post(f"/api/games/{table.id}/join", json={"invite_token": bob["invite_token"]})
    assert r.status_code == 200
    status = table.status()
    assert status["status"] == "active" and status["round"] == 1
    assert status["expected"] == ["alice", "bob"]
    assert status["seats"] == [{"name": "alice", "joined": True, "submitted": False},
                               {"name": "bob", "joined": True, "submitted": False}]
    with session_scope(app) as s, s.begin():
        seats = {x.name: x for x in s.scalars(select(Seat).where(Seat.game_id == table.id))}
        assert seats["alice"].entropy == entropy and seats["alice"].entropy_source == "api"
        # No entropy given: the value S_0 fixed before anyone joined, not bytes drawn now.
        made = server_entropy(bytes.fromhex(table.created["commitment"]), table.id, "bob", NEW_GAME_PROFILE)
        assert seats["bob"].entropy_source == "server" and seats["bob"].entropy == made.hex()
        universal = find_ruleset("universal")
        assert seats["alice"].force == universal.default_force(0, universal.options({}))
        assert seats["bob"].force == universal.default_force(1, universal.options({}))
        step = s.scalars(select(Step).where(Step.game_id == table.id)).one()
        assert step.t == 1 and step.inputs["players"] == ["alice", "bob"]
        assert chain_link_ok(bytes.fromhex(step.key), bytes.fromhex(table.created["commitment"]),
                             NEW_GAME_PROFILE)
        rnd = s.scalars(select(Round).where(Round.game_id == table.id)).one()
        assert (rnd.number, rnd.status, rnd.expected) == (1, "open", ["alice", "bob"])
        actions = [a.action for a in s.scalars(select(AuditLog).where(AuditLog.game_id == table.id))]
        assert actions == ["created", "joined", "joined", "started"]


def test_join_refusals(app: Flask, client: Any) -> None:
    table = create(client)
    alice = table.created["seats"][0]
    url = f"/api/games/{table.id}/join"
    before = counts(app)
    r = client.post(url, json={"invite_token": "wrong"})
    assert r.status_code == 401 and r.json["field"] == "invite_token"
    r = client.post(url, json={})
    assert r.status_code == 401 and "missing" in r.json["error"]
    r = client.post("/api/games/nosuchgame/join", json={"invite_token": alice["invite_token"]})
    assert r.status_code == 404
    for bad in ("abc", "zz" * 16, "ab" * 15, "ab" * 65, 12):
        r = client.post(url, json={"invite_token": alice["invite_token"], "entropy": bad})
        assert r.status_code == 422 and r.json["field"] == "entropy", bad
    r = client.post(url, json={"invite_token": alice["invite_token"], "force": {"units": "many"}})
    assert r.status_code == 422 and r.json["field"] == "force"
    assert r.json["error"] == "force refused: units must be a list of at least 1 unit"
    r = client.post(url, json={"invite_token": alice["invite_token"], "force": {"units": [{"pw": 0}]}})
    assert r.status_code == 422 and r.json["error"] == "force refused: unit 1: Pw must be between 1 and 30, not 0"
    r = client.post(url, json={"invite_token": alice["invite_token"], "force": [1]})
    assert r.status_code == 422 and r.json["field"] == "force"
    assert counts(app) == before
    assert client.post(url, json={"invite_token": alice["invite_token"]}).status_code == 200
    r = client.post(url, json={"invite_token": alice["invite_token"]})
    assert r.status_code == 409 and "already joined" in r.json["error"]


def test_unknown_game_is_404(client: Any) -> None:
    for path in ("/api/games/nope", "/api/games/nope/record", "/api/games/nope/rounds/1"):
        r = client.get(path)
        assert r.status_code == 404 and "nope" in r.json["error"]


def test_start_helper_gives_an_active_game(client: Any) -> None:
    table = start(client, seats=("red", "blue", "green"))
    assert table.status()["expected"] == ["red", "blue", "green"]


def test_list_public_games(client: Any) -> None:
    shown = create(client)
    create(client, public=False)
    listed = client.get("/api/games").json
    assert [g["id"] for g in listed] == [shown.id]
    assert listed[0] == {"id": shown.id, "title": "Test game", "ruleset": "universal", "status": "waiting",
                         "round": None, "commitment": shown.created["commitment"]}


def test_refusals_name_nested_fields_in_the_services_spelling(app: Flask, client: Any) -> None:
    """The body's model finds these; the field is written as the service writes it
    (dotted, list items by index, the deadline policy under deadline_policy)."""
    seats = [{"name": "a"}, {"name": "b"}]
    cases = [
        ({"ruleset": None, "seats": seats}, "ruleset", "ruleset is missing: the id of a ruleset"),
        ({"seats": []}, "seats", "seats must not be empty"),
        ({"seats": [{"name": "a"}, {"name": "b", "email": 5}]}, "seats[1].email", "must be text"),
        ({"seats": [{"name": "a", "colour": "red"}, {"name": "b"}]}, "seats[0].colour", "unknown field"),
        ({"seats": [{"name": "a", "force": [1]}, {"name": "b"}]}, "seats[0].force", "JSON object"),
        ({"seats": seats, "options": []}, "options", "must be a JSON object"),
        ({"seats": seats, "title": 7}, "title", "must be text"),
        ({"seats": seats, "deadline_policy": "PT48H"}, "deadline_policy", "JSON object"),
        ({"seats": seats, "deadline_policy": {"kind": "weekly"}}, "deadline_policy.kind",
         "expected one of ['calendar', 'duration', 'none'], got 'weekly'"),
        ({"seats": seats, "deadline_policy": {"duration": "PT4H"}}, "deadline_policy.kind",
         "deadline_policy.kind is missing: one of ['calendar', 'duration', 'none']"),
        ({"seats": seats, "deadline_policy": {"kind": "duration", "duration": "PT4H", "typo": 1}},
         "deadline_policy.typo", "unknown field"),
        ({"seats": seats, "deadline_policy": {"kind": "none", "quiet_hours": {"start": "22:00"}}},
         "deadline_policy.quiet_hours.end", "is missing"),
        ({"seats": seats, "deadline_policy": {"kind": "none", "missed_turns": {"after": 0}}},
         "deadline_policy.missed_turns.after", "at least 1"),
        ({"seats": seats, "deadline_policy": {"kind": "none", "missed_turns": {"action": "panic"}}},
         "deadline_policy.missed_turns.action", "choose one of: hold, extend, bot, replace"),
        ({"seats": seats, "deadline_policy": {"kind": "calendar", "days": [], "time": "20:00"}},
         "deadline_policy.days", "must not be empty"),
        # What the model lets through, the service judges: the same spelling.
        ({"seats": seats, "deadline_policy": {"kind": "calendar", "days": ["funday"], "time": "20:00"}},
         "deadline_policy.days[0]", "funday"),
    ]
    before = counts(app)
    for body, field, words in cases:
        given = {k: v for k, v in {"ruleset": "universal", **body}.items() if v is not None}
        r = client.post("/api/games", json=given)
        assert r.status_code == 422, (body, r.json)
        assert r.json["field"] == field and words in r.json["error"], (body, r.json)
        assert set(r.json) == {"error", "field"}
    assert counts(app) == before
