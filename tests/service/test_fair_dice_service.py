"""New games play dicepost-dice/v3 (docs/dice-spec.md): server-made entropy fixed by S_0,
canonical inputs in the rules' reading order, receipts in the answer, the mail and the
record, the terms fixed at creation, bots on the bound key from a recorded hand-over; and
the record verifies against what each player holds."""

from __future__ import annotations

from typing import Any

from flask import Flask
from sqlalchemy import select

from engine.dice import PROFILE_V3, receipt, server_entropy
from engine.verify import Held, verify
from service.db import session_scope
from service.inbound.commands import read_reply
from service.models import Outbox
from tests.service.play import create
from tests.service.schedule_world import World

ENTROPY = "a1" * 16


def joined(client: Any) -> Any:
    """alice brings entropy, bob brings none."""
    table = create(client)
    alice, bob = table.created["seats"]
    for seat, body in ((alice, {"entropy": ENTROPY}), (bob, {})):
        r = client.post(f"/api/games/{table.id}/join",
                        json={"invite_token": seat["invite_token"], **body})
        assert r.status_code == 200, r.json
        table.tokens[seat["name"]] = r.json["player_token"]
    return table


def test_a_new_game_is_v3_and_a_seat_without_entropy_gets_the_one_fixed_by_s0(
        client: Any) -> None:
    table = joined(client)
    record = client.get(f"/api/games/{table.id}/record").json
    assert record["profile"] == PROFILE_V3
    s0 = bytes.fromhex(table.created["commitment"])
    assert record["entropy"] == {"alice": ENTROPY, "bob": server_entropy(s0, table.id, "bob", PROFILE_V3).hex()}
    assert record["entropy_source"] == {"alice": "api", "bob": "server"}
    assert record["terms"]["ruleset"] == record["ruleset"] and record["terms"]["seats"] == ["alice", "bob"]
    assert record["terms"]["options"] == record["steps"][0]["inputs"]["options"]
    assert record["server_made"] == ["bob"]
    v = verify(record)
    assert v.ok, v.differences[:3]
    assert v.server_made == ["bob"]


def test_every_accepted_version_gets_its_receipt_and_the_record_lists_them(
        app: Flask, client: Any) -> None:
    table = joined(client)
    gid = table.id
    first = table.put("alice", table.bot(app, "alice"), 1)
    assert first.status_code == 200
    text = table.bot(app, "alice", seed="another")
    second = table.put("alice", text.upper(), 1)  # respelled: stored as the canonical text
    assert second.status_code == 200
    canonical = "\n".join(second.json["accepted"])
    assert second.json["version"] == 2
    assert second.json["receipt"] == receipt(gid, 1, "alice", 2, canonical, PROFILE_V3).hex()
    passed = table.put("bob", "pass", 1)
    assert passed.json["receipt"] == receipt(gid, 1, "bob", 1, "", PROFILE_V3).hex()  # no orders: ""
    with session_scope(app) as s, s.begin():
        mails = s.scalars(select(Outbox).where(Outbox.kind == "confirmation")
                          .order_by(Outbox.id)).all()
        assert [m.payload["receipt"] for m in mails] == [
            first.json["receipt"], second.json["receipt"], passed.json["receipt"]]

    record = client.get(f"/api/games/{gid}/record").json
    assert record["steps"][1]["inputs"] == {"alice": canonical, "bob": ""}
    assert [(v["seat"], v["version"], v["receipt"]) for v in record["versions"]] == [
        ("alice", 1, first.json["receipt"]), ("alice", 2, second.json["receipt"]),
        ("bob", 1, passed.json["receipt"])]
    assert all(v["round"] == 1 and v["at"] for v in record["versions"])
    held = Held(commitment=bytes.fromhex(table.created["commitment"]),
                entropy={"alice": bytes.fromhex(ENTROPY)},
                receipts=[("alice", 1, 1, bytes.fromhex(first.json["receipt"])),
                          ("alice", 1, 2, bytes.fromhex(second.json["receipt"]))])
    v = verify(record, held)
    assert v.ok, v.differences[:3]
    assert "receipt of alice, round 1, version 2" in v.held

    page = client.get(f"/games/{gid}/player/{table.tokens['alice']}")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert second.json["receipt"] in html and f"--receipt alice:1:2:{second.json['receipt']}" in html


def test_a_bot_seat_chooses_with_the_bound_key_and_the_verifier_recomputes_it(tmp_path: Any) -> None:
    world = World(tmp_path).start({"kind": "duration", "duration": "PT48H"})
    world.submit("red")
    assert world.gm("POST", "remove", {"seat": "blue", "units": "bot"}).status_code == 200
    assert world.round_number() == 2
    record = world.client.get(f"/api/games/{world.game_id}/record").json
    assert "bots" not in record  # v3: the bot's rounds follow from the hand-over
    assert [{k: h[k] for k in ("round", "seat", "to", "by")} for h in record["handovers"]] == [
        {"round": 1, "seat": "blue", "to": "bot", "by": "gm"}]
    assert not [v for v in record["versions"] if v["seat"] == "blue"]  # the bot's are not versions
    assert any(a["action"] == "gm_remove" for a in record["gm_actions"])
    v = verify(record)
    assert v.ok, v.differences[:3]
    assert record["steps"][1]["inputs"]["blue"] != ""


def test_join_by_mail_takes_the_joiners_entropy_as_hex_or_any_words() -> None:
    reply = read_reply("JOIN " + ENTROPY)
    assert reply.command == "join" and reply.args == (ENTROPY,)
    assert read_reply("JOIN").args == ()
    words = read_reply("join  purple walrus 1987  under the stairs")
    assert words.command == "join" and words.args == ("purple", "walrus", "1987", "under", "the", "stairs")
