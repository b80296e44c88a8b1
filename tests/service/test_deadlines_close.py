"""Rounds close early when everyone is in, at the deadline otherwise (missing players hold),
wait flags, calendar deadlines across daylight saving, absences and two sweepers at once."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from service.timekeeping.due import close_due_round
from tests.service.schedule_world import DATABASES, START, World, database


@pytest.fixture(params=DATABASES)
def world(request, tmp_path):
    return World(database(request, tmp_path)).start({"kind": "duration", "duration": "PT48H"})


def test_round_gets_its_deadline_when_it_opens(world):
    assert world.round_number() == 1
    assert world.deadline() == START + timedelta(hours=48)


def test_early_close_when_every_expected_player_has_submitted(world):
    world.advance(hours=1)
    order = world.legal_order("red")
    assert world.submit("red", order).status_code == 200
    assert world.round_number() == 1
    assert world.submit("blue").status_code == 200
    assert world.round_number() == 2
    assert world.step_inputs(2)["red"] == order
    # the next round's deadline counts from when it opened
    assert world.deadline() == START + timedelta(hours=49)


def test_deadline_closes_the_round_and_missing_players_hold(world):
    order = world.legal_order("red")
    world.submit("red", order)
    world.advance(hours=47, minutes=59)
    assert world.sweep()["closed"] == 0
    assert world.round_number() == 1
    world.advance(minutes=1)
    assert world.sweep()["closed"] == 1
    assert world.round_number() == 2
    assert world.step_inputs(2) == {"red": order, "blue": ""}
    closed = world.audit("deadline_closed")
    assert [e.detail["holding"] for e in closed] == [["blue"]]
    missed = world.audit("missed_turn")
    assert [(e.detail["seat"], e.detail["action"], e.detail["misses"]) for e in missed] == [("blue", "hold", 1)]


def test_wait_flag_keeps_the_round_open_until_the_deadline(world):
    assert world.settings("blue", {"wait": True}).json["wait"] is True
    world.submit("red")
    world.submit("blue")
    assert world.round_number() == 1
    world.advance(hours=48)
    assert world.sweep()["closed"] == 1
    assert world.round_number() == 2
    assert world.audit("missed_turn") == []


def test_clearing_the_wait_flag_closes_a_round_everyone_is_in(world):
    world.settings("red", {"wait": True})
    world.submit("red")
    world.submit("blue")
    assert world.round_number() == 1
    world.settings("red", {"wait": False})
    assert world.round_number() == 2


def test_no_deadline_policy_never_closes_by_time(tmp_path):
    world = World(tmp_path).start({"kind": "none"})
    assert world.deadline() is None
    world.advance(days=30)
    assert world.sweep()["closed"] == 0
    assert world.round_number() == 1


def test_calendar_deadlines_across_a_daylight_saving_change(tmp_path):
    # Europe/Berlin moves its clocks forward on Sunday 29 March 2026
    world = World(tmp_path, start=datetime(2026, 3, 26, 12, tzinfo=UTC)).start(
        {"kind": "calendar", "days": ["sat"], "time": "20:00", "timezone": "Europe/Berlin", "min_open": "PT1H"})
    assert world.deadline() == datetime(2026, 3, 28, 19, tzinfo=UTC)  # 20:00 CET
    world.clock.set(datetime(2026, 3, 28, 19, tzinfo=UTC))
    world.sweep()
    assert world.round_number() == 2
    assert world.deadline() == datetime(2026, 4, 4, 18, tzinfo=UTC)  # 20:00 CEST, a week later


def test_absence_stretches_the_deadline_of_rounds_opened_during_it(tmp_path):
    world = World(tmp_path).start({"kind": "duration", "duration": "PT48H", "absence_limit": "P3D"})
    r = world.settings("blue", {"absences": [{"from": "2026-06-04", "to": "2026-06-05"}]})
    assert r.status_code == 200, r.json
    assert world.deadline() == START + timedelta(hours=48)  # 3 June: not inside the absence
    world.clock.set(datetime(2026, 6, 2, 0, tzinfo=UTC))
    world.submit("red")
    world.submit("blue")  # round 2 opens 2 June 00:00; its rule deadline 4 June 00:00 is inside
    assert world.round_number() == 2
    assert world.deadline() == datetime(2026, 6, 6, 0, tzinfo=UTC)  # end of the absence


def test_absence_declared_during_a_round_stretches_it_up_to_the_limit(tmp_path):
    world = World(tmp_path).start({"kind": "duration", "duration": "PT48H", "absence_limit": "P1D"})
    r = world.settings("blue", {"absences": [{"from": "2026-06-03", "to": "2026-06-10"}]})
    assert r.json["absences"] == [{"from": "2026-06-03", "to": "2026-06-10"}]
    assert world.deadline() == START + timedelta(hours=48, days=1)
    assert [e.detail["reason"] for e in world.audit("deadline_extended")] == ["absence"]
    # saving the absences again (or adding more) does not stretch the round past the limit
    world.settings("blue", {"absences": [{"from": "2026-06-03", "to": "2026-06-10"},
                                         {"from": "2026-06-11", "to": "2026-06-12"}]})
    assert world.deadline() == START + timedelta(hours=48, days=1)
    assert len(world.audit("deadline_extended")) == 1


def test_bad_settings_name_the_field_and_change_nothing(world):
    r = world.settings("blue", {"wait": True, "absences": [{"from": "2026-06-09", "to": "2026-06-01"}]})
    assert r.status_code == 422
    assert r.json["field"] == "absences[0].to"
    assert world.settings("blue").json["wait"] is False
    r = world.settings("blue", {"reminder_lead": "soon"})
    assert (r.status_code, r.json["field"]) == (422, "reminder_lead")
    r = world.settings("blue", {"colour": "red"})
    assert (r.status_code, r.json["field"]) == (422, "colour")
    r = world.settings("blue", {"wait": "yes"})
    assert (r.status_code, r.json["field"]) == (422, "wait")


def test_settings_need_a_player_token(world):
    r = world.client.get(f"/api/games/{world.game_id}/settings", headers={"Authorization": "Bearer nope"})
    assert r.status_code == 401


def test_a_second_closer_of_the_same_round_does_nothing(world):
    world.advance(hours=48)
    at = world.clock.now()
    with world.app.app_context():
        from service.db import session_scope

        with session_scope() as s:
            assert close_due_round(s, world.game_id, 1, at) == "closed"
        with session_scope() as s:
            assert close_due_round(s, world.game_id, 1, at) == "skipped"
    assert len(world.audit("deadline_closed")) == 1


def test_two_sweepers_at_once_close_a_round_once(world):
    world.advance(hours=48)
    results = world.sweep_twice_at_once()
    assert sorted(r["closed"] for r in results) == [0, 1]
    assert len(world.audit("deadline_closed")) == 1
    assert world.steps() == 2  # setup and round 1, once
    assert world.round_number() == 2


def test_policy_given_when_the_game_is_created(tmp_path):
    world = World(tmp_path)
    seats = [{"name": "red"}, {"name": "blue"}]
    bad = world.client.post("/api/games", json={"ruleset": "universal", "seats": seats,
                                                "deadline_policy": {"kind": "duration", "duration": "P1M"}})
    assert (bad.status_code, bad.json["field"]) == (422, "deadline_policy.duration")
    with world.app.app_context():
        from sqlalchemy import func, select

        from service.db import session_scope
        from service.models import Game

        with session_scope() as s:
            assert s.scalar(select(func.count()).select_from(Game)) == 0  # nothing was created
    r = world.client.post("/api/games", json={"ruleset": "universal", "seats": seats,
                                              "deadline_policy": {"kind": "duration", "duration": "PT5S"}})
    assert r.status_code == 201
    world.game_id = r.json["id"]
    assert world.game().deadline_policy["duration"] == "PT5S"


def test_no_early_close_in_quiet_hours_the_sweeper_closes_it_when_they_end(tmp_path):
    # START is 12:00 UTC; quiet from 11:00 to 13:00 UTC
    world = World(tmp_path).start({"kind": "duration", "duration": "PT48H",
                                   "quiet_hours": {"start": "11:00", "end": "13:00"}})
    world.submit("red")
    world.submit("blue")
    assert world.round_number() == 1
    world.advance(minutes=59)
    assert world.sweep()["closed"] == 0
    world.advance(minutes=1)
    assert world.sweep()["closed"] == 1
    assert world.round_number() == 2
    assert world.audit("missed_turn") == []


def test_damaged_policy_of_one_game_does_not_stop_the_others(tmp_path):
    world = World(tmp_path).start({"kind": "duration", "duration": "PT48H"})
    healthy = world.game_id
    world.start({"kind": "duration", "duration": "PT48H"})
    damaged = world.game_id
    with world.app.app_context():
        from sqlalchemy import update

        from service.db import session_scope
        from service.models import Game

        with session_scope() as s, s.begin():
            s.execute(update(Game).where(Game.id == damaged).values(deadline_policy={"kind": "weekly"}))
    world.advance(hours=48)
    assert world.sweep()["closed"] == 1
    world.game_id = healthy
    assert world.round_number() == 2
    world.game_id = damaged
    assert world.round_number() == 1


def test_orders_not_ready_keep_the_round_open_until_the_sender_is_ready(world):
    """The API's `ready`: false stores the orders and keeps the round open for the sender
    (remembered, so a later version without `ready` stays not ready); true closes it."""
    headers = {"Authorization": f"Bearer {world.tokens['red']}"}

    def put(body):
        return world.client.put(f"/api/games/{world.game_id}/orders",
                                json={"round": world.round_number(), **body}, headers=headers)

    answer = put({"orders": "", "ready": False})
    assert answer.status_code == 200 and answer.json["ready"] is False
    assert world.submit("blue").json["ready"] is True
    assert world.round_number() == 1
    order = world.legal_order("red")
    assert put({"orders": order}).json["ready"] is False  # the choice is remembered
    assert world.round_number() == 1 and world.settings("red").json["wait"] is True
    assert put({"orders": order, "ready": True}).json["ready"] is True
    assert world.round_number() == 2 and world.step_inputs(2)["red"] == order


def test_orders_after_the_deadline_are_refused_before_the_sweeper_closes_the_round(world):
    from service.inbound.receive import receive
    from tests.mail.mail_world import MailPlayer, stored_mail

    order = world.legal_order("red")
    world.advance(hours=48)  # the deadline, not yet swept
    said = "round 1 closed at its deadline, 2026-"
    api = world.submit("red", order)
    assert api.status_code == 409 and said in api.json["error"], api.json
    page = f"/games/{world.game_id}/player/{world.tokens['red']}"
    web = world.client.post(page, data={"round": "1", "free": order})
    assert web.status_code == 409 and said in web.get_data(as_text=True)

    def send(raw: bytes) -> object:
        with world.app.app_context():
            return receive(raw)

    blue = MailPlayer("blue@example.org", stored_mail(world.app), send)
    out = blue.reply(blue.latest("The game has started"), "pass")
    assert out.status == "processed" and said in out.detail, out
    assert world.step_inputs(1) and world.round_number() == 1  # nothing stored, nothing closed
    assert world.sweep()["closed"] == 1
    assert world.step_inputs(2) == {"red": "", "blue": ""}
