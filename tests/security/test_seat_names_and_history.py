"""Seats that pass for the GM, and a taken-over seat's private history (SQLite and PostgreSQL).

Before: a seat named `gm` read every private message of its game (messages name the GM
"gm") and its own posts showed as the GM's; a newcomer taking a seat over read the former
player's private messages, those to and from the GM included.
"""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask

from tests.service.play import start


@pytest.mark.parametrize("name", ["gm", "GM", "The_GM", "the-gm", "g-m", "host", "System", "all", "Admin"])
def test_a_seat_may_not_take_a_name_that_passes_for_the_gm_or_the_table(app: Flask, name: str) -> None:
    client = app.test_client()
    created = client.post("/api/games", json={"ruleset": "universal", "seats": [
        {"name": "alice"}, {"name": name}]})
    assert created.status_code == 422, created.json
    assert created.json["field"] == "seats[1].name" and "reserved" in created.json["error"]
    form = client.post("/games", data={"ruleset": "universal", "seats": f"alice\n{name}"})
    assert form.status_code == 422 and "reserved" in form.get_data(as_text=True)


def _say(client: Any, game_id: str, token: str, to: str, text: str) -> None:
    r = client.post(f"/api/games/{game_id}/messages", headers={"Authorization": f"Bearer {token}"},
                    json={"to": to, "text": text})
    assert r.status_code == 201, r.json


def _texts(client: Any, game_id: str, token: str) -> set[str]:
    record = client.get(f"/api/games/{game_id}/record", headers={"Authorization": f"Bearer {token}"})
    assert record.status_code == 200
    return {m["text"] for m in record.json["messages"]}


def test_a_taken_over_seat_starts_with_no_private_history_but_the_gms_messages(app: Flask) -> None:
    client = app.test_client()
    table = start(client, seats=("alice", "bob", "carol"))
    gm = table.created["gm_token"]
    _say(client, table.id, table.tokens["bob"], "gm", "bob to the GM: my plan is the left flank")
    _say(client, table.id, table.tokens["bob"], "alice", "bob to alice: let us ally against carol")
    _say(client, table.id, table.tokens["alice"], "bob", "alice to bob: agreed")
    _say(client, table.id, gm, "bob", "GM to bob's seat: your units hold the hill")
    _say(client, table.id, table.tokens["alice"], "all", "alice to all: hello")

    replaced = client.post(f"/api/games/{table.id}/gm/replace", headers={"Authorization": f"Bearer {gm}"},
                           json={"seat": "bob"})
    assert replaced.status_code == 200, replaced.json
    taken = client.post(f"/api/games/{table.id}/takeover", json={"invite_token": replaced.json["invite_token"]})
    assert taken.status_code == 200, taken.json
    newcomer = taken.json["player_token"]
    _say(client, table.id, table.tokens["alice"], "bob", "alice to the newcomer: welcome")

    seen = _texts(client, table.id, newcomer)
    assert seen == {"GM to bob's seat: your units hold the hill", "alice to all: hello",
                    "alice to the newcomer: welcome"}
    # alice keeps her side of the talk with the former player; the GM keeps the GM's own talk
    # (this game does not let the GM read the private messages between seats)
    assert {"bob to alice: let us ally against carol", "alice to bob: agreed"} <= _texts(client, table.id,
                                                                                           table.tokens["alice"])
    assert _texts(client, table.id, gm) == {"bob to the GM: my plan is the left flank", "alice to all: hello",
                                            "GM to bob's seat: your units hold the hill"}

    page = client.get(f"/games/{table.id}/player/{newcomer}").get_data(as_text=True)
    assert "alice to the newcomer: welcome" in page and "your units hold the hill" in page
    assert "left flank" not in page and "ally against carol" not in page and "agreed" not in page
    assert "the private messages of the player before you are not shown to you" in page
    assert "the GM&#39;s messages to the seat are" in page or "the GM's messages to the seat are" in page
