"""Reminders once per deadline, and each missed-turn policy: hold, extend once, bot, replace."""

from __future__ import annotations

import html
from datetime import timedelta

import pytest

from engine.verify import verify
from tests.mail.mail_world import stored_mail, text_of
from tests.service.schedule_world import DATABASES, START, World, database


@pytest.fixture(params=DATABASES)
def any_db_world(request, tmp_path):
    return World(database(request, tmp_path))


def test_reminders_are_sent_once_per_seat_and_deadline(tmp_path):
    world = World(tmp_path).start({"kind": "duration", "duration": "PT48H"})
    world.submit("red", world.legal_order("red"))  # red is in: only blue needs reminding
    world.advance(hours=35, minutes=59)
    assert world.sweep()["reminders"] == 0
    world.advance(minutes=1)  # 12 hours before the deadline
    assert world.sweep()["reminders"] == 1
    assert world.sweep()["reminders"] == 0
    world.advance(hours=6)
    assert world.sweep()["reminders"] == 0
    rows = world.outbox("reminder")
    assert [(r.to_address, r.payload["round"], r.payload["lead"], r.payload["lead_iso"]) for r in rows] == [
        ("blue@example.org", 1, "12 hours", "PT12H")]
    assert rows[0].payload["deadline"] == (START + timedelta(hours=48)).isoformat()


def test_each_player_chooses_the_lead_and_a_moved_deadline_reminds_again(tmp_path):
    world = World(tmp_path).start({"kind": "duration", "duration": "PT48H"})
    assert world.settings("red", {"reminder_lead": "PT2H"}).json["reminder_lead"] == "PT2H"
    world.settings("blue", {"reminder_lead": "PT0S"})  # blue wants none
    world.advance(hours=40)
    assert world.sweep()["reminders"] == 0
    world.advance(hours=6)
    assert world.sweep()["reminders"] == 1
    assert world.gm("POST", "extend", {"by": "PT24H"}).status_code == 200
    world.advance(hours=24)  # 2 hours before the new deadline
    assert world.sweep()["reminders"] == 1
    assert [r.to_address for r in world.outbox("reminder")] == ["red@example.org"] * 2
    assert len({r.message_id for r in world.outbox("reminder")}) == 2


def test_two_sweepers_queue_a_reminder_once(any_db_world):
    world = any_db_world.start({"kind": "duration", "duration": "PT48H"})
    world.advance(hours=40)
    results = world.sweep_twice_at_once()
    assert sum(r["reminders"] for r in results) == 2
    assert sorted(r.to_address for r in world.outbox("reminder")) == ["blue@example.org", "red@example.org"]


def test_no_reminders_while_paused(tmp_path):
    world = World(tmp_path).start({"kind": "duration", "duration": "PT48H"})
    world.gm("POST", "pause")
    world.advance(hours=40)
    assert world.sweep()["reminders"] == 0


def miss_round(world: World, present: str = "red") -> None:
    world.submit(present, world.legal_order(present))
    world.advance(hours=48)
    world.sweep()


def test_hold_is_the_default_and_counts_consecutive_misses(tmp_path):
    world = World(tmp_path).start({"kind": "duration", "duration": "PT48H"})
    miss_round(world)
    miss_round(world)
    assert world.round_number() == 3
    console = world.gm("GET", "").json
    assert {s["name"]: (s["played_by"], s["missed_in_a_row"]) for s in console["seats"]} == {
        "red": ("human", 0), "blue": ("human", 2)}
    world.submit("red")
    world.submit("blue")
    assert {s["name"]: s["missed_in_a_row"] for s in world.gm("GET", "").json["seats"]}["blue"] == 0


def test_extend_once_then_hold(tmp_path):
    world = World(tmp_path).start({"kind": "duration", "duration": "PT48H",
                                   "missed_turns": {"after": 1, "action": "extend", "extend_by": "PT12H"}})
    world.submit("red")
    world.advance(hours=48)
    first, second = world.sweep(), world.sweep()
    assert (first["extended"], first["closed"]) == (1, 0)
    assert (second["extended"], second["closed"]) == (0, 0)  # extended once, not again
    assert world.round_number() == 1
    assert world.deadline() == START + timedelta(hours=60)
    assert [e.detail["missing"] for e in world.audit("deadline_extended")] == [["blue"]]
    world.advance(hours=12)
    assert world.sweep()["closed"] == 1
    assert world.round_number() == 2
    assert [e.detail["action"] for e in world.audit("missed_turn")] == ["hold"]


def test_bot_takes_the_seat_after_k_misses(tmp_path):
    world = World(tmp_path).start({"kind": "duration", "duration": "PT48H",
                                   "missed_turns": {"after": 2, "action": "bot"}})
    miss_round(world)
    assert world.audit("seat_to_bot") == []
    miss_round(world)  # the second miss in a row: round 2 holds, the bot plays blue from round 3
    assert [(e.detail["seat"], e.detail["from_round"]) for e in world.audit("seat_to_bot")] == [("blue", 3)]
    assert world.step_inputs(3)["blue"] == ""
    # from round 3 on the bot writes blue's orders when the round opens: red alone closes it
    assert world.round_number() == 3
    world.submit("red")
    assert world.round_number() == 4
    assert [e.detail["round"] for e in world.audit("bot_orders")] == [3, 4]
    # the record names the hand-over, and the verifier counts the misses the policy needs
    record = world.client.get(f"/api/games/{world.game_id}/record").json
    assert [(h["round"], h["seat"], h["to"], h["by"]) for h in record["handovers"]] == [
        (3, "blue", "bot", "missed_turns")]
    v = verify(record)
    assert v.ok, v.differences[:3]


def _page(world: World, seat: str) -> str:
    r = world.client.get(f"/games/{world.game_id}/player/{world.tokens[seat]}")
    assert r.status_code == 200
    return html.unescape(r.get_data(as_text=True))


def _latest_results(world: World, address: str) -> str:
    mails = [m for m in stored_mail(world.app)() if address in str(m["To"]) and "AT THE TABLE" in text_of(m)]
    return text_of(mails[-1]) if mails else ""


def test_a_missed_turn_is_told_and_the_players_own_orders_take_the_seat_back(tmp_path):
    """Who missed and what the policy did reaches the player and the table, on their pages
    and in the results mail; the form never starts from the bot's orders; the player's
    first own orders take the seat back from the bot, and the table is told."""
    world = World(tmp_path).start({"kind": "duration", "duration": "PT48H",
                                   "missed_turns": {"after": 1, "action": "bot"}})
    miss_round(world)
    told = ("blue sent no orders for round 1 by its deadline: blue's units held; from round 2 the bot "
            "plays blue until blue sends orders again.")
    yours = ("You sent no orders for round 1 by its deadline: your units held; from round 2 the bot plays "
             "your seat until you send orders again (your first orders take it back).")
    assert told in _page(world, "red") and told in _latest_results(world, "red@example.org")
    blue = _page(world, "blue")
    assert yours in blue and yours in _latest_results(world, "blue@example.org")
    # The bot's orders for round 2 stand, shown as the bot's; the form starts empty.
    assert "The bot plays your seat" in blue and "The bot's orders for this round, not yours" in blue
    assert "Your current orders" not in blue and " selected>" not in blue
    orders = world.client.get(f"/api/games/{world.game_id}/orders",
                              headers={"Authorization": f"Bearer {world.tokens['blue']}"}).json
    assert orders["current"] == ""
    # Blue's own orders take the seat back; red is told, on the page and in the next results mail.
    order = world.legal_order("blue")
    assert world.submit("blue", order).status_code == 200
    assert world.settings("blue").json["played_by"] == "human"
    assert [(e.detail["seat"], e.detail["round"]) for e in world.audit("seat_back")] == [("blue", 2)]
    back = "blue took their seat back from the bot in round 2: blue's own orders count again."
    assert back in _page(world, "red")
    assert world.round_number() == 2  # blue is a person again and red is waited for
    world.submit("red")
    assert world.round_number() == 3 and world.step_inputs(3)["blue"] == order
    assert back in _latest_results(world, "red@example.org")
    assert [e.detail["round"] for e in world.audit("bot_orders")] == [2]  # none after blue came back
    record = world.client.get(f"/api/games/{world.game_id}/record").json
    assert [(h["round"], h["to"], h["by"]) for h in record["handovers"]] == [
        (2, "bot", "missed_turns"), (2, "player", "player")]
    v = verify(record)
    assert v.ok, v.differences[:3]


def test_replace_opens_the_seat_and_a_newcomer_inherits_it(tmp_path):
    world = World(tmp_path).start({"kind": "duration", "duration": "PT48H",
                                   "missed_turns": {"after": 1, "action": "replace"}})
    miss_round(world)
    assert [e.detail["seat"] for e in world.audit("seat_opened")] == ["blue"]
    assert world.submit("blue").status_code == 401  # the old player token stopped working
    statuses = world.outbox("status")
    assert [r.to_address for r in statuses] == ["red@example.org"]
    # while open, blue's units hold and do not block the early close
    world.submit("red")
    assert world.round_number() == 3
    r = world.gm("POST", "replace", {"seat": "blue", "email": "newcomer@example.org"})
    assert r.status_code == 200, r.json
    invitations = [o for o in world.outbox("invitation") if o.to_address == "newcomer@example.org"]
    assert len(invitations) == 1 and invitations[0].payload["join_url"] == r.json["invite_url"]
    taken = world.client.post(f"/api/games/{world.game_id}/takeover", json={"invite_token": r.json["invite_token"]})
    assert taken.status_code == 200, taken.json
    assert taken.json["seat"] == "blue"
    world.tokens["blue"] = taken.json["player_token"]
    assert world.settings("blue").json["played_by"] == "human"
    again = world.client.post(f"/api/games/{world.game_id}/takeover", json={"invite_token": r.json["invite_token"]})
    assert again.status_code == 401
    world.submit("red")
    assert world.round_number() == 3  # blue is a person again and is waited for
    assert world.submit("blue").status_code == 200
    assert world.round_number() == 4
