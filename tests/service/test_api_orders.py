"""Orders through the API: shapes, amendments (every version kept), refusals that change nothing."""

from __future__ import annotations

from typing import Any

from flask import Flask
from sqlalchemy import select

from engine.dice import NEW_GAME_PROFILE, receipt
from service.db import session_scope
from service.models import Outbox, Step, Submission
from tests.service.play import counts, start


def _first_move(table: Any, seat: str) -> tuple[str, str]:
    r = table.client.get(f"/api/games/{table.id}/orders", headers=table.auth(seat))
    unit, lines = sorted(r.json["units"].items())[0]
    return unit, next(line for line in lines if " move " in line)


def test_get_orders_shape(client: Any) -> None:
    table = start(client)
    r = client.get(f"/api/games/{table.id}/orders", headers=table.auth("alice"))
    assert r.status_code == 200
    assert set(r.json) == {"round", "units", "legal", "current"}
    assert r.json["round"] == 1 and r.json["current"] == ""
    assert r.json["units"] and all(isinstance(v, list) and all(isinstance(x, str) for x in v)
                                   for v in r.json["units"].values())


def test_get_orders_gives_each_legal_order_as_a_value_with_its_role_and_target(client: Any) -> None:
    """Pages that tap orders on the grid read each order's role and the square or unit it
    aims at, without knowing the ruleset's verbs; its text is the line `units` lists."""
    table = start(client)
    r = client.get(f"/api/games/{table.id}/orders", headers=table.auth("alice"))
    legal, units = r.json["legal"], r.json["units"]
    assert legal.keys() == units.keys()
    for unit, orders in legal.items():
        assert [o["text"] for o in orders] == units[unit]
        for o in orders:
            assert o["unit"] == unit and o["text"] == " ".join([unit, o["verb"], *o["args"]])
            if o["role"] == "move":  # universal: `A1 move c3`
                assert o["square"] == o["args"][-1] and o["target"] is None
            else:  # universal: `A1 attack B2`
                assert (o["role"], o["target"], o["square"]) == ("attack", o["args"][0], None)
    assert any(o["role"] == "move" for orders in legal.values() for o in orders)


def test_put_orders_and_amend(app: Flask, client: Any) -> None:
    table = start(client)
    _unit, move = _first_move(table, "alice")
    r = table.put("alice", "# first try\n" + move.lower())
    assert r.status_code == 200
    assert r.json == {"round": 1, "accepted": [move], "version": 1, "at": r.json["at"], "ready": True,
                      "receipt": receipt(table.id, 1, "alice", 1, move, NEW_GAME_PROFILE).hex()}
    assert table.status()["seats"][0] == {"name": "alice", "joined": True, "submitted": True}
    r = table.put("alice", "pass")
    assert r.status_code == 200 and r.json["accepted"] == [] and r.json["version"] == 2
    assert r.json["receipt"] == receipt(table.id, 1, "alice", 2, "", NEW_GAME_PROFILE).hex()  # no orders: ""
    r = table.put("alice", move)
    assert r.json["accepted"] == [move]
    current = client.get(f"/api/games/{table.id}/orders", headers=table.auth("alice")).json["current"]
    assert current == move
    with session_scope(app) as s, s.begin():
        versions = s.scalars(select(Submission).order_by(Submission.version)).all()
        assert [(v.version, v.accepted, v.source) for v in versions] == [
            (1, move, "api"), (2, "pass", "api"), (3, move, "api")]
        assert versions[0].text == "# first try\n" + move.lower()
        assert len(s.scalars(select(Outbox).where(Outbox.kind == "confirmation")).all()) == 3
    # bob's last word closes the round: the latest version of each counts.
    assert table.put("bob", "pass").status_code == 200
    with session_scope(app) as s, s.begin():
        step = s.scalars(select(Step).where(Step.t == 2)).one()
        assert step.inputs == {"alice": move, "bob": ""}  # the canonical text of no orders
    assert table.status()["round"] == 2


def test_bad_orders_are_refused_by_line_and_not_stored(app: Flask, client: Any) -> None:
    table = start(client)
    unit, move = _first_move(table, "alice")
    before = counts(app)
    r = table.put("alice", f"{move}\nZ9 move a1\n{unit} fly a1")
    assert r.status_code == 422
    errors = r.json["errors"]
    assert [e["line"] for e in errors] == [2, 3]
    assert errors[0]["text"] == "Z9 move a1" and "Z9" in errors[0]["message"]
    assert errors[1]["text"] == f"{unit} fly a1" and "fly" in errors[1]["message"]
    assert counts(app) == before


def test_a_clash_between_lines_is_refused_on_its_line_naming_the_other(app: Flask, client: Any) -> None:
    """fivedice: "At most one line per unit for each action group": a second move of the
    same unit is refused on its own line, with its text, naming the first move's line."""
    table = start(client, "fivedice")
    legal = client.get(f"/api/games/{table.id}/orders", headers=table.auth("alice")).json["legal"]
    unit = min(legal)
    first, second = [o["text"] for o in legal[unit] if o["role"] == "move"][:2]
    before = counts(app)
    r = table.put("alice", f"# two moves\n{first}\n{second}")
    assert r.status_code == 422
    assert r.json["errors"] == [{"line": 3, "text": second, "others": [2],
                                 "message": f"{unit} already has a move order on line 2"}]
    assert counts(app) == before


def test_wrong_round_is_409(app: Flask, client: Any) -> None:
    table = start(client)
    before = counts(app)
    for number in (0, 2, 99):
        r = table.put("alice", "pass", number=number)
        assert r.status_code == 409 and r.json["field"] == "round" and "open round is 1" in r.json["error"]
    r = client.put(f"/api/games/{table.id}/orders", headers=table.auth("alice"),
                   json={"round": "one", "orders": "pass"})
    assert r.status_code == 422 and r.json["field"] == "round"
    r = client.put(f"/api/games/{table.id}/orders", headers=table.auth("alice"), json={"round": 1})
    assert r.status_code == 422 and r.json["field"] == "orders"
    r = client.put(f"/api/games/{table.id}/orders", headers=table.auth("alice"),
                   json={"round": 1, "orders": ["pass"]})
    assert r.status_code == 422 and r.json["field"] == "orders"
    assert counts(app) == before


def test_tokens(app: Flask, client: Any) -> None:
    table = start(client)
    other = start(client)
    before = counts(app)
    url = f"/api/games/{table.id}/orders"
    for headers in ({}, {"Authorization": "Bearer nope"}, {"Authorization": "Basic abc"},
                    {"Authorization": f"Bearer {table.created['gm_token']}"},
                    {"Authorization": f"Bearer {other.tokens['alice']}"}):
        r = client.put(url, headers=headers, json={"round": 1, "orders": "pass"})
        assert r.status_code == 401 and "token" in r.json["error"], headers
        assert client.get(url, headers=headers).status_code == 401
    r = client.put(url, data="{bad", content_type="application/json")
    assert r.status_code == 401  # the token is checked before the body
    r = client.put(url, headers=table.auth("alice"), data="{bad", content_type="application/json")
    assert r.status_code == 400
    r = client.put(url, headers=table.auth("alice"), json={"round": 1, "orders": "A1 move a1\n" * 8000})
    assert r.status_code == 413
    assert counts(app) == before


def test_oversized_order_text_within_body_limit_is_422(app: Flask, client: Any) -> None:
    table = start(client)
    before = counts(app)
    r = table.put("alice", "# " + "x" * 25_000)
    assert r.status_code == 422 and "20000" in r.json["errors"][0]["message"]
    assert counts(app) == before


def test_not_expected_player_is_409(app: Flask, client: Any) -> None:
    table = start(client, options={"turn_mode": "alternating"})
    assert table.status()["expected"] == ["alice"]
    r = table.put("bob", "pass")
    assert r.status_code == 409 and "not expected" in r.json["error"]
    assert client.get(f"/api/games/{table.id}/orders", headers=table.auth("bob")).json["units"] == {}
    assert table.put("alice", "pass").status_code == 200
    assert table.status()["expected"] == ["bob"] and table.status()["round"] == 2


def test_orders_before_start_and_after_the_end(app: Flask, client: Any) -> None:
    from tests.service.play import create

    waiting = create(client)
    seat = waiting.created["seats"][0]
    token = client.post(f"/api/games/{waiting.id}/join", json={"invite_token": seat["invite_token"]}).json
    r = client.put(f"/api/games/{waiting.id}/orders", headers={"Authorization": f"Bearer {token['player_token']}"},
                   json={"round": 1, "orders": "pass"})
    assert r.status_code == 409 and "seats are still being filled" in r.json["error"]
    table = start(client, options={"max_rounds": 1})
    assert table.put("alice", "pass").status_code == 200
    assert table.put("bob", "pass").status_code == 200
    status = table.status()
    assert status["status"] == "finished" and status["winner"] is None and status["outcome"]["draw"]
    r = table.put("alice", "pass", number=1)
    assert r.status_code == 409 and "game is over" in r.json["error"]
