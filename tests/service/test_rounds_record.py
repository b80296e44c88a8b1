"""Resolved rounds and the game record: exact shapes, replayable by the engine."""

from __future__ import annotations

from typing import Any

from flask import Flask
from sqlalchemy import select

from engine import replay
from engine.dice import NEW_GAME_PROFILE, chain_link_ok, inputs_digest
from service.db import session_scope
from service.models import Outbox, Step
from tests.service.play import start


def _play_rounds(app: Flask, table: Any, n: int) -> None:
    for _ in range(n):
        number = table.status()["round"]
        for seat in table.status()["expected"]:
            assert table.put(seat, table.bot(app, seat), number).status_code == 200
        if table.status()["status"] == "finished":
            return


def test_round_shape_and_404_before(app: Flask, client: Any) -> None:
    table = start(client)
    r = client.get(f"/api/games/{table.id}/rounds/1")
    assert r.status_code == 404 and "not resolved" in r.json["error"]
    _play_rounds(app, table, 1)
    r = client.get(f"/api/games/{table.id}/rounds/1")
    assert r.status_code == 200
    body = r.json
    assert set(body) == {"round", "step", "events", "rolls", "key", "state_hash", "inputs"}
    assert body["round"] == 1 and body["step"] == 2
    assert all(set(roll) == {"step", "j", "n", "face", "label"} for roll in body["rolls"])
    assert [roll["j"] for roll in body["rolls"]] == list(range(len(body["rolls"])))
    setup = client.get(f"/api/games/{table.id}/record").json["steps"][0]
    assert chain_link_ok(bytes.fromhex(body["key"]), bytes.fromhex(setup["key"]), NEW_GAME_PROFILE)
    assert client.get(f"/api/games/{table.id}/rounds/2").status_code == 404


def test_record_replays_and_holds_what_dice_md_needs(app: Flask, client: Any) -> None:
    table = start(client)
    _play_rounds(app, table, 3)
    record = client.get(f"/api/games/{table.id}/record").json
    assert record["format"] == "dicepost-record/1"
    assert record["game_id"] == table.id and record["ruleset"] == "universal"
    assert record["commitment"] == table.created["commitment"] and record["chain_length"] == 4096
    assert set(record["entropy"]) == {"alice", "bob"}
    assert [s["t"] for s in record["steps"]] == [1, 2, 3, 4]
    for s in record["steps"]:
        assert {"t", "inputs", "key", "rolls", "state_hash"} <= set(s)
    assert "chain_tip" not in str(record)
    report = replay(record)
    assert report.ok, report.difference
    with session_scope(app) as s, s.begin():
        steps = s.scalars(select(Step).where(Step.game_id == table.id).order_by(Step.t)).all()
        assert [st.inputs_digest for st in steps] == [inputs_digest(st.inputs, NEW_GAME_PROFILE).hex()
                                                    for st in steps]
        # The tip is never revealed: only keys of played steps are.
        assert all(st.key != steps[0].key for st in steps[1:])


def test_a_tampered_record_fails_replay(client: Any, app: Flask) -> None:
    table = start(client)
    _play_rounds(app, table, 1)
    record = client.get(f"/api/games/{table.id}/record").json
    record["steps"][1]["key"] = "00" * 32
    report = replay(record)
    assert not report.ok and report.difference is not None
    assert (report.difference.step, report.difference.where) == (2, "chain")


def test_outbox_rows_for_the_whole_life_of_a_game(app: Flask, client: Any) -> None:
    table = start(client, options={"max_rounds": 2})
    _play_rounds(app, table, 5)
    assert table.status()["status"] == "finished"
    with session_scope(app) as s, s.begin():
        rows = s.scalars(select(Outbox).where(Outbox.game_id == table.id).order_by(Outbox.id)).all()
        kinds = [(o.kind, o.to_address) for o in rows]
    assert kinds.count(("invitation", "alice@example.org")) == 1
    assert kinds.count(("confirmation", "alice@example.org")) == 2
    assert kinds.count(("results", "bob@example.org")) == 3  # the start (step 1) and two rounds
    assert kinds.count(("game_over", "alice@example.org")) == 1
    assert len({o.message_id for o in rows}) == len(rows)


def test_game_status_when_finished(app: Flask, client: Any) -> None:
    table = start(client, options={"max_rounds": 1})
    _play_rounds(app, table, 1)
    status = table.status()
    assert status["status"] == "finished" and status["expected"] == []
    assert status["round"] == 1 and status["outcome"]["reason"]
