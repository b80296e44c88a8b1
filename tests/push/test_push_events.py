"""Each event the house tells (service.notify) reaches a subscribed player's browser as the
push it should be: your turn (the deadline in the player's zone), reminders only to those
without orders, results, a message to you, pause and resume, the seat handed to the bot."""

from __future__ import annotations

import socket
from zoneinfo import ZoneInfo

from sqlalchemy import select

from service.db import session_scope
from service.models import Outbox
from tests.push.conftest import PushWorld

POLICY = {"kind": "duration", "duration": "PT48H"}


def subscribed(tmp_path, service, seats=("red", "blue")):
    world = PushWorld(tmp_path).start(POLICY)
    browsers = {}
    for seat in seats:
        browsers[seat] = service.browser(seat)
        assert world.subscribe(browsers[seat], seat).status_code == 200
    return world, browsers


def test_a_round_resolving_tells_results_and_your_turn_in_the_players_zone(tmp_path, service):
    world, phones = subscribed(tmp_path, service)
    assert world.settings("red", {"zone": "Asia/Tokyo"}).status_code == 200
    world.submit("red", world.legal_order("red"))
    world.submit("blue", world.legal_order("blue"))  # the round resolves; round 2 opens
    assert world.round_number() == 2
    [red] = world.received(service, phones["red"])
    assert red["events"] == ["results", "turn"]  # one push: they came together
    assert red["body"].splitlines() == [f"Round 1 results: {world.game().title}", f"Your turn in {world.game().title}"]
    [row] = [p for p in world.pushes() if p.event == "turn" and p.seat_id is not None
             and p.payload["seat"] == "red"]
    deadline = world.deadline()
    assert deadline is not None
    local = deadline.astimezone(ZoneInfo("Asia/Tokyo")).strftime("%a %d %b %H:%M")
    assert row.payload["body"] == f"Round 2: orders by {local} Asia/Tokyo ({deadline.strftime('%H:%M')} UTC)"


def test_no_reminder_push_or_mail_for_a_player_who_sent_orders(tmp_path, service):
    """No push or mail reminder for a player who already sent orders."""
    world, phones = subscribed(tmp_path, service)
    world.submit("red", world.legal_order("red"))
    world.advance(hours=37)  # past the 12-hour reminder lead
    world.sweep()
    reminders = [p for p in world.pushes() if p.event == "reminder"]
    assert [p.payload["seat"] for p in reminders] == ["blue"]
    assert [m["events"] for m in world.received(service, phones["blue"])][-1] == ["reminder"]
    assert not any("reminder" in m["events"] for m in world.received(service, phones["red"]))
    with session_scope(world.app) as s:
        mailed = list(s.scalars(select(Outbox.to_address).where(Outbox.kind == "reminder")))
    assert mailed == ["blue@example.org"]
    world.sweep()
    assert len([p for p in world.pushes() if p.event == "reminder"]) == 1  # once per deadline


def test_a_reminder_waiting_for_a_retry_is_dropped_once_orders_are_in(tmp_path, service):
    world, _phones = subscribed(tmp_path, service, seats=("blue",))
    world.advance(hours=37)
    service.answers = [(503, {})]
    world.sweep()
    [reminder] = [p for p in world.pushes() if p.event == "reminder"]
    assert reminder.status == "pending"
    world.submit("blue", world.legal_order("blue"))
    world.advance(minutes=2)
    world.sweep()
    [reminder] = [p for p in world.pushes() if p.event == "reminder"]
    assert reminder.status == "skipped" and "sent orders" in (reminder.last_error or "")


def test_a_private_message_is_pushed_to_its_reader_only(tmp_path, service):
    world, phones = subscribed(tmp_path, service)
    headers = {"Authorization": f"Bearer {world.tokens['blue']}"}
    assert world.client.post(f"/api/games/{world.game_id}/messages", headers=headers,
                             json={"to": "red", "text": "Truce on the left?"}).status_code == 201
    assert world.client.post(f"/api/games/{world.game_id}/messages", headers=headers,
                             json={"to": "all", "text": "Hello all"}).status_code == 201
    messages = [m for m in world.received(service, phones["red"]) if m["events"] == ["message"]]
    assert [(m["title"], m["body"]) for m in messages] == [("Message from blue", "Truce on the left?")]
    assert not any("message" in m["events"] for m in world.received(service, phones["blue"]))


def test_pause_resume_and_the_bot_taking_a_seat(tmp_path, service):
    world, phones = subscribed(tmp_path, service)
    assert world.gm("POST", "pause").status_code == 200
    assert world.gm("POST", "resume").status_code == 200
    assert world.gm("POST", "remove", {"seat": "red", "units": "bot"}).status_code == 200
    red = [m["events"] for m in world.received(service, phones["red"])]
    blue = [m["events"] for m in world.received(service, phones["blue"])]
    assert ["paused"] in red and ["resumed"] in red and ["bot"] in red
    assert ["paused"] in blue and ["resumed"] in blue and ["bot"] not in blue
    [bot] = [p for p in world.pushes() if p.event == "bot"]
    assert bot.payload["title"] == f"Your seat in {world.game().title} was handed to the bot"


def test_a_reminder_mail_waiting_for_a_retry_is_not_sent_once_orders_are_in(tmp_path, service):
    """No push or mail reminder for a player who already sent orders."""
    world, _phones = subscribed(tmp_path, service, seats=())
    with socket.socket() as s:  # a port nothing listens on: every mail fails for now (a relay down)
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    world.app.config["SMTP_URL"] = f"smtp://127.0.0.1:{port}"
    world.advance(hours=37)
    world.sweep()
    with session_scope(world.app) as s:
        [row] = s.scalars(select(Outbox).where(Outbox.kind == "reminder", Outbox.to_address == "blue@example.org"))
        assert row.status == "pending" and row.attempts == 1
    world.submit("blue", world.legal_order("blue"))
    world.app.config["SMTP_URL"] = ""  # the relay is back (the embedded mailbox)
    world.advance(minutes=2)
    world.sweep()
    with session_scope(world.app) as s:
        [row] = s.scalars(select(Outbox).where(Outbox.kind == "reminder", Outbox.to_address == "blue@example.org"))
        assert row.status == "skipped" and "sent orders" in (row.last_error or "")
