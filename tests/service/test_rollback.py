"""The GM's rollback: three rounds resolved, the game rolled back to round 2 and played on.

The round played again takes the next chain link nobody has seen; the superseded rounds
stay in the record and on the pages; every player is mailed; `dicepost verify` passes and
names the rollback; the two forgeries (a superseded round dropped, a round played again
with a link already revealed) fail; a game that forbids rollbacks, a finished game, a
rollback without its confirmation or further back than allowed are refused.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from engine.dice import NEW_GAME_PROFILE, H
from engine.record import checksum, seal_step
from engine.verify import verify
from service.commands.verify import EXIT_DIFFERENT, EXIT_OK, check
from service.db import session_scope
from service.gm.news import news_items
from service.models import Game
from service.rollback_chain import RESERVE
from service.views import game_record
from tests.service.schedule_world import DATABASES, World, database

REASON = "the replacement of blue was a mistake"


@pytest.fixture(params=DATABASES)
def world(request: pytest.FixtureRequest, tmp_path: Path) -> World:
    return World(database(request, tmp_path)).start({"kind": "duration", "duration": "PT48H"},
                                                    options={"no_rollback": False})


def play_round(world: World) -> None:
    number = world.round_number()
    for seat in ("red", "blue"):
        assert world.submit(seat, world.legal_order(seat)).status_code == 200
    assert world.round_number() == number + 1  # everyone moved: resolved at once


def record_of(world: World) -> dict[str, Any]:
    r = world.client.get(f"/api/games/{world.game_id}/record")
    assert r.status_code == 200
    return r.json  # type: ignore[no-any-return]


def forged(record: dict[str, Any]) -> dict[str, Any]:
    out = json.loads(json.dumps(record))
    out["checksum"] = checksum(out)
    return out


def dropped_round(record: dict[str, Any]) -> dict[str, Any]:
    """A forgery: the last superseded round left out of the rollback."""
    out = forged(record)
    out["rollbacks"][0]["steps"].pop()
    out["checksum"] = checksum(out)
    return out


def reused_link(record: dict[str, Any]) -> dict[str, Any]:
    """A forgery: round 2 played again with S_3, the link the superseded round 2 revealed."""
    out = forged(record)
    again = {k: v for k, v in out["steps"][2].items() if k not in ("inputs_digest", "step_key", "checksum")}
    again.update(link=3, key=out["rollbacks"][0]["steps"][0]["key"])
    out["steps"][2] = seal_step(again, bytes.fromhex(record["salt"]), record["profile"])
    out["checksum"] = checksum(out)
    return out


def rolled_back(world: World) -> dict[str, Any]:
    """Three rounds resolved, rolled back to round 2, round 2 played again: the record."""
    for _ in range(3):
        play_round(world)
    assert world.gm("POST", "rollback", {"round": 2, "reason": REASON, "confirm": True}).status_code == 200
    play_round(world)
    return record_of(world)


def report(record: dict[str, Any], tmp_path: Path) -> tuple[int, str]:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    out = io.StringIO()
    return check(str(path), out=out), out.getvalue()


def test_a_rollback_replays_round_2_with_the_next_unrevealed_link(world: World, tmp_path: Path) -> None:
    for _ in range(3):
        play_round(world)
    assert world.round_number() == 4
    before = record_of(world)
    revealed = [s["key"] for s in before["steps"]]  # S_1 .. S_4, public
    assert world.game().chain_length == 4096 + RESERVE

    r = world.gm("POST", "rollback", {"round": 2, "reason": REASON, "confirm": True})
    assert r.status_code == 200, r.json
    assert r.json == {"action": "gm_rollback", "round": 2, "rounds": [2, 3], "reason": REASON,
                      "links": [3, 4], "next_link": 5}
    assert world.round_number() == 2 and world.steps() == 2 and world.round(2).status == "open"
    # every player is mailed, in the words
    news = [(m.to_address, i["text"]) for m in world.outbox("gm_news") for i in news_items(m.payload)
            if i["action"] == "gm_rollback"]
    assert sorted(a for a, _t in news) == ["blue@example.org", "red@example.org"]
    assert all(t.startswith("Rounds 2 and 3 were rolled back by the GM: their dice are replaced") and REASON in t
               for _a, t in news)
    assert [(e.actor, e.detail["round"]) for e in world.audit("gm_rollback")] == [("gm", 2)]

    play_round(world)  # round 2 again, with orders sent again
    record = record_of(world)
    step = record["steps"][2]
    assert (step["t"], step["link"]) == (3, 5)
    assert step["key"] not in revealed and H(NEW_GAME_PROFILE, "chain", bytes.fromhex(step["key"])).hex() == revealed[3]
    [rolled] = record["rollbacks"]
    assert (rolled["round"], rolled["by"], rolled["reason"]) == (2, "gm", REASON)
    assert [(s["t"], s["key"]) for s in rolled["steps"]] == [(3, revealed[2]), (4, revealed[3])]
    assert {v["round"] for v in rolled["versions"]} == {2, 3}
    assert [s["key"] for s in record["steps"][:2]] == revealed[:2]

    v = verify(record)
    assert v.ok, v.difference
    assert [(s.t, s.link, s.superseded) for s in v.steps] == [(1, 1, None), (2, 2, None), (3, 3, 1), (4, 4, 1),
                                                              (3, 5, None)]
    assert v.rollbacks == [f"rollback 1: to the start of round 2 by gm at {rolled['at']}: rounds 2 to 3 "
                           f"superseded, their dice replaced (reason: {REASON})"]
    code, out = report(record, tmp_path)
    assert code == EXIT_OK and "rollback 1: to the start of round 2" in out
    assert "step 3 with chain link S_3, superseded by rollback 1:" in out and "(1 rollback)" in out
    assert any("rolled back to the start of round 2" in t for t in v.to_json()["gm_action_texts"])

    with session_scope(world.app) as session, session.begin():  # the results mails' attachments
        game = session.get(Game, world.game_id)
        assert game is not None
        attached = {t: game_record(session, game, upto=t) for t in (2, 3)}
    assert "rollbacks" not in attached[2] and verify(attached[2]).ok
    assert attached[3]["rollbacks"] == record["rollbacks"] and verify(attached[3]).ok

    page = world.client.get(f"/games/{world.game_id}/rounds").get_data(as_text=True)
    assert "Rounds 2 and 3 were rolled back by the GM" in page and REASON in page
    assert page.count("superseded: rolled back by gm") == 2 and "FAILS" not in page
    again = world.client.get(f"/games/{world.game_id}/rounds/2").get_data(as_text=True)
    assert "keyed by chain link S<sub>5</sub>" in again and "FAILS" not in again
    game_page = world.client.get(f"/games/{world.game_id}").get_data(as_text=True)
    assert "rolled back by the GM: their dice are replaced" in game_page

    # a superseded round dropped: its link is missing
    dropped = dropped_round(record)
    v = verify(dropped)
    assert (v.difference.step, v.difference.where, v.difference.found) == (3, "link", "link 4 missing")
    assert report(dropped, tmp_path)[0] == EXIT_DIFFERENT
    # round 2 played again with a link already revealed (S_3, the superseded round 2's)
    reused = reused_link(record)
    assert reused["steps"][2]["key"] == revealed[2]
    v = verify(reused)
    assert (v.difference.where, v.difference.found) == ("link", "link 3 used twice")
    assert report(reused, tmp_path)[0] == EXIT_DIFFERENT


def test_rollbacks_are_refused_where_they_do_not_apply(world: World) -> None:
    assert world.gm("POST", "rollback", {"round": 1, "reason": REASON, "confirm": True}).status_code == 409
    play_round(world)
    r = world.gm("POST", "rollback", {"round": 1, "reason": REASON})
    assert (r.status_code, r.json["field"]) == (422, "confirm")
    r = world.gm("POST", "rollback", {"round": 1, "reason": "  ", "confirm": True})
    assert (r.status_code, r.json["field"]) == (422, "reason")
    r = world.gm("POST", "rollback", {"round": 2, "reason": REASON, "confirm": True})
    assert (r.status_code, r.json["field"]) == (422, "round")  # round 2 is open, not resolved
    for _ in range(3):
        play_round(world)
    r = world.gm("POST", "rollback", {"round": 1, "reason": REASON, "confirm": True})
    assert (r.status_code, r.json["field"]) == (409, "round")  # round 5 open: 3 rounds back at most
    assert "at most 3 rounds" in r.json["error"]
    assert world.gm("POST", "end").status_code == 200
    r = world.gm("POST", "rollback", {"round": 4, "reason": REASON, "confirm": True})
    assert r.status_code == 409 and "finished" in r.json["error"]
    assert world.steps() == 5 and not world.audit("gm_rollback")


def test_a_public_game_forbids_rollbacks_by_default_and_says_so_at_join(tmp_path: Path) -> None:
    world = World(tmp_path)
    r = world.client.post("/api/games", json={"ruleset": "universal", "seats": [
        {"name": "red"}, {"name": "blue"}]})
    invite = r.json["seats"][0]["invite_token"]
    page = world.client.get(f"/games/{r.json['id']}/join/{invite}").get_data(as_text=True)
    assert "This game forbids rollbacks" in page
    world.start()  # public, options left to their defaults
    play_round(world)
    r = world.gm("POST", "rollback", {"round": 1, "reason": REASON, "confirm": True})
    assert (r.status_code, r.json["field"]) == (409, "game") and "forbids rollbacks" in r.json["error"]
    assert world.game().chain_length == 4096 and world.steps() == 2


def test_the_gm_page_rolls_back_only_after_its_confirmation(tmp_path: Path) -> None:
    world = World(tmp_path).start(options={"no_rollback": False}, public=False)
    play_round(world)
    console = f"/games/{world.game_id}/gm/{world.gm_token}"
    assert "Roll back…" in world.client.get(console).get_data(as_text=True)
    r = world.client.post(f"{console}/rollback", data={"round": "1", "reason": REASON})
    assert r.status_code == 303 and "/confirm/rollback" in r.location
    page = world.client.get(r.location).get_data(as_text=True)
    assert "Roll the game back to the start of round 1?" in page and REASON in page
    assert world.steps() == 2  # nothing happened yet
    r = world.client.post(f"{console}/rollback", data={"round": "1", "reason": REASON, "confirmed": "yes"})
    assert r.status_code == 303
    assert (world.steps(), world.round_number(), world.round(1).status) == (1, 1, "open")
    assert "The game is back at the start of round 1" in world.client.get(console).get_data(as_text=True)
