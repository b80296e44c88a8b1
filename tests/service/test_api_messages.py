"""Talk at the table through the API: a player (or the GM) writes with their token; the
message reaches whom it is for, and only them, as by web and mail."""

from __future__ import annotations

from typing import Any

import pytest

from service.db import session_scope
from service.models import Outbox
from tests.service.schedule_world import DATABASES, World, database


@pytest.fixture(params=DATABASES)
def world(request: pytest.FixtureRequest, tmp_path: Any) -> World:
    return World(database(request, tmp_path)).start({"kind": "duration", "duration": "PT48H"},
                                                    seats=("red", "blue", "green"))


def write(world: World, token: str | None, body: Any) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return world.client.post(f"/api/games/{world.game_id}/messages", json=body, headers=headers)


def record(world: World, token: str | None = None) -> list[dict[str, Any]]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    r = world.client.get(f"/api/games/{world.game_id}/record", headers=headers)
    return r.json["messages"]  # type: ignore[no-any-return]


def test_a_player_writes_privately_and_to_everyone(world: World) -> None:
    r = write(world, world.tokens["red"], {"to": "Blue", "text": "  Ally against green?  "})
    assert r.status_code == 201
    assert r.json == {"id": r.json["id"], "round": 1, "from": "red", "to": "blue", "at": r.json["at"],
                      "text": "Ally against green?"}
    assert write(world, world.tokens["green"], {"to": "all", "text": "Hello, table!"}).status_code == 201
    said = [(m["from"], m["to"], m["text"]) for m in record(world, world.tokens["blue"])]
    assert said == [("red", "blue", "Ally against green?"), ("green", "all", "Hello, table!")]
    assert [m["text"] for m in record(world, world.tokens["green"])] == ["Hello, table!"]
    assert [m["text"] for m in record(world)] == ["Hello, table!"]
    with session_scope(world.app) as s, s.begin():
        mailed = s.query(Outbox).filter(Outbox.kind == "message").all()
        assert sorted(o.to_address.split("@")[0] for o in mailed) == ["blue", "blue", "red"]


def test_the_gm_writes_with_the_gm_token(world: World) -> None:
    r = write(world, world.gm_token, {"to": "all", "text": "Round 2 closes on Friday."})
    assert r.status_code == 201 and r.json["from"] == "gm"
    for token in (None, "nope"):  # either token will do, and the refusal says so
        r = write(world, token, {"to": "all", "text": "hi"})
        assert r.status_code == 401 and "a player's or the GM's token" in r.json["error"]


@pytest.mark.parametrize(("token", "body", "status", "field"), [
    (None, {"to": "all", "text": "hi"}, 401, None),
    ("nope", {"to": "all", "text": "hi"}, 401, None),
    ("red", {"to": "purple", "text": "hi"}, 422, "to"),
    ("red", {"to": "red", "text": "hi"}, 422, "to"),
    ("red", {"to": "all", "text": "   "}, 422, "text"),
    ("red", {"to": "all", "text": "x" * 2001}, 422, "text"),
    ("red", {"to": "all"}, 422, "text"),
    ("red", {"to": ["all"], "text": "hi"}, 422, "to"),
])
def test_refusals_name_the_field_and_store_nothing(world: World, token: str | None, body: Any, status: int,
                                                  field: str | None) -> None:
    r = write(world, world.tokens.get(token or "", token), body)
    assert r.status_code == status, r.json
    assert r.json.get("field") == field and r.json["error"]
    assert record(world, world.gm_token) == []
