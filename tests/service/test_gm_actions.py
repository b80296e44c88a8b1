"""Every GM action through the API and the GM page, each with its audit entry, shown on
the game page and in the record; pause/resume arithmetic; refusals name the field."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tests.service.play import without_nonce
from tests.service.schedule_world import DATABASES, START, World, database

DEADLINE = START + timedelta(hours=48)


@pytest.fixture(params=DATABASES)
def world(request, tmp_path):
    return World(database(request, tmp_path)).start({"kind": "duration", "duration": "PT48H"})


def actions(world: World) -> list[tuple[str, str]]:
    """GM entries after the world's setup (which set the policy)."""
    return [(e.actor, e.action) for e in world.audit() if e.action.startswith("gm_")][1:]


def test_gm_needs_its_token(world):
    assert world.gm("POST", "pause", token="not-the-token").status_code == 401
    assert world.gm("POST", "pause", token=world.tokens["red"]).status_code == 401
    r = world.client.post(f"/api/games/{world.game_id}/gm/pause")
    assert (r.status_code, r.json["field"]) == (401, "gm_token")
    assert world.client.post("/api/games/nosuchgame/gm/pause",
                             headers={"Authorization": f"Bearer {world.gm_token}"}).status_code == 404
    assert world.game().paused_at is None


def test_pause_and_resume_move_the_deadline_by_the_pause(world):
    world.advance(hours=10)
    r = world.gm("POST", "pause")
    assert r.status_code == 200 and r.json["at"] == (START + timedelta(hours=10)).isoformat()
    assert world.gm("POST", "pause").status_code == 409
    world.advance(hours=100)  # far past the old deadline: nothing closes while paused
    assert world.sweep()["closed"] == 0
    world.submit("red")
    world.submit("blue")
    assert world.round_number() == 1  # no early close while paused either
    r = world.gm("POST", "resume")
    assert r.json["paused_seconds"] == 100 * 3600
    assert r.json["deadline"] == (DEADLINE + timedelta(hours=100)).isoformat()
    assert world.round_number() == 2  # everyone was in: it closes on resume
    assert world.gm("POST", "resume").status_code == 409
    assert actions(world) == [("gm", "gm_pause"), ("gm", "gm_resume")]


def test_resume_keeps_the_time_that_was_left(world):
    world.advance(hours=40)
    world.gm("POST", "pause")
    world.advance(hours=5)
    world.gm("POST", "resume")
    assert world.deadline() == DEADLINE + timedelta(hours=5)
    world.advance(hours=7, minutes=59)
    assert world.sweep()["closed"] == 0
    world.advance(minutes=1)
    assert world.sweep()["closed"] == 1


def test_extend_by_a_duration_or_to_a_time(world):
    r = world.gm("POST", "extend", {"by": "PT24H"})
    assert r.status_code == 200 and r.json["to"] == (DEADLINE + timedelta(hours=24)).isoformat()
    assert world.deadline() == DEADLINE + timedelta(hours=24)
    r = world.gm("POST", "extend", {"until": "2026-06-10T18:00:00+02:00"})
    assert r.status_code == 200
    assert world.deadline() == datetime(2026, 6, 10, 16, tzinfo=UTC)
    entries = world.audit("gm_extend")
    assert [(e.detail["from"], e.detail["to"]) for e in entries] == [
        (DEADLINE.isoformat(), (DEADLINE + timedelta(hours=24)).isoformat()),
        ((DEADLINE + timedelta(hours=24)).isoformat(), "2026-06-10T16:00:00+00:00")]


@pytest.mark.parametrize(("body", "field"), [
    ({}, "by"),
    ({"by": "PT1H", "until": "2026-06-10T18:00:00Z"}, "by"),
    ({"by": "tomorrow"}, "by"),
    ({"by": "PT0S"}, "by"),
    ({"until": "2026-06-02T00:00:00Z"}, "until"),  # earlier than the deadline
    ({"until": "2026-06-10T18:00:00"}, "until"),  # no zone
    ({"until": "next week"}, "until"),
])
def test_bad_extensions_name_the_field_and_change_nothing(world, body, field):
    r = world.gm("POST", "extend", body)
    assert (r.status_code, r.json["field"]) == (422, field)
    assert world.deadline() == DEADLINE
    assert world.audit("gm_extend") == []


def test_resolve_now_with_missing_players_holding(world):
    order = world.legal_order("red")
    world.submit("red", order)
    r = world.gm("POST", "resolve")
    assert r.status_code == 200 and r.json["round"] == 1
    assert world.round_number() == 2
    assert world.step_inputs(2) == {"red": order, "blue": ""}
    assert actions(world) == [("gm", "gm_resolve_now")]


def test_remove_a_player_whose_units_hold(world):
    world.submit("red")
    r = world.gm("POST", "remove", {"seat": "Blue", "units": "hold"})
    assert r.status_code == 200 and r.json == {"action": "gm_remove", "seat": "blue", "units": "hold"}
    assert world.round_number() == 2  # blue no longer blocks the close
    assert world.submit("blue").status_code == 401
    world.submit("red")
    assert world.round_number() == 3
    assert world.step_inputs(3)["blue"] == ""


def test_remove_a_player_whose_units_go_to_the_bot(world):
    world.submit("red")
    assert world.gm("POST", "remove", {"seat": "blue", "units": "bot"}).status_code == 200
    assert world.round_number() == 2
    assert world.step_inputs(2)["blue"] != ""
    assert [(e.actor, e.action) for e in world.audit() if e.action in ("gm_remove", "seat_to_bot")] == [
        ("gm", "seat_to_bot"), ("gm", "gm_remove")]


@pytest.mark.parametrize(("body", "status", "field"), [
    ({"seat": "green"}, 404, None),
    ({"seat": ""}, 422, "seat"),
    ({"seat": "blue", "units": "eat"}, 422, "units"),
])
def test_bad_removals(world, body, status, field):
    r = world.gm("POST", "remove", body)
    assert r.status_code == status
    assert r.json.get("field") == field
    assert actions(world) == []


def test_end_the_game_as_a_draw(world):
    r = world.gm("POST", "end")
    assert r.status_code == 200
    game = world.game()
    assert game.status == "finished"
    assert game.outcome == {"winners": [], "draw": True, "reason": "ended as a draw by the game master",
                            "ended_by": "gm"}
    assert world.submit("red", number=1).status_code == 409
    assert world.gm("POST", "pause").status_code == 409
    assert len(world.outbox("game_over")) == 2
    assert actions(world) == [("gm", "gm_end_draw")]


def test_replace_without_email_gives_the_link_and_blocks_the_old_token(world):
    r = world.gm("POST", "replace", {"seat": "red"})
    assert r.status_code == 200 and r.json["invite_url"].startswith("http://dicepost.test/games/")
    assert world.submit("red").status_code == 401
    assert world.gm("POST", "replace", {"seat": "red", "email": "not an address"}).status_code == 422
    assert actions(world) == [("gm", "gm_replace")]


def test_policy_is_validated_and_audited(world):
    r = world.gm("PUT", "policy", {"kind": "duration", "duration": "PT1X"})
    assert (r.status_code, r.json["field"]) == (422, "deadline_policy.duration")
    r = world.gm("PUT", "policy", {"kind": "calendar", "days": ["fri"], "time": "18:00"})
    assert r.status_code == 200 and r.json["policy"]["min_open"] == "PT12H"
    assert world.game().deadline_policy["kind"] == "calendar"


def test_the_log_is_on_the_console_the_game_page_and_in_the_record(world):
    world.gm("POST", "pause")
    world.gm("POST", "resume")
    console = world.gm("GET", "").json
    assert [e["action"] for e in console["audit"]] == ["gm_set_policy", "gm_pause", "gm_resume"]
    page = world.client.get(f"/games/{world.game_id}").get_data(as_text=True)
    assert "GM pause" in page and "GM resume" in page
    record = world.client.get(f"/api/games/{world.game_id}/record").json
    assert [e["action"] for e in record["schedule_log"]] == ["gm_set_policy", "gm_pause", "gm_resume"]


def test_the_gm_page_and_its_forms(world):
    base = f"/games/{world.game_id}/gm/{world.gm_token}"
    page = world.client.get(base)
    assert page.status_code == 200 and "Game master" in page.get_data(as_text=True)
    assert world.client.get(f"/games/{world.game_id}/gm/wrong").status_code == 401
    r = world.client.post(base + "/extend", data={"by": "PT2H"}, follow_redirects=True)
    page = r.get_data(as_text=True)
    assert "Done: GM extended round 1: deadline moved from " in page and "Every player has been told" in page
    assert ": done" not in page
    assert world.deadline() == DEADLINE + timedelta(hours=2)
    r = world.client.post(base + "/extend", data={"by": "soon"}, follow_redirects=True)
    assert "is not an ISO 8601 duration" in r.get_data(as_text=True)
    world.client.post(base + "/pause")
    assert world.game().paused_at is not None
    world.client.post(base + "/resume")
    # Remove, replace and the draw ask first: the first POST leads to the confirmation page.
    r = world.client.post(base + "/remove", data={"seat": "blue", "units": "bot"})
    assert r.status_code == 303 and "/confirm/remove?" in r.headers["Location"]
    confirm = world.client.get(r.headers["Location"]).get_data(as_text=True)
    assert "Remove blue from the game?" in confirm and "the bot plays its units" in confirm
    assert 'name="confirmed" value="yes"' in confirm and 'name="units" value="bot"' in confirm
    assert world.game().status == "active"
    world.client.post(base + "/remove", data={"seat": "blue", "units": "bot", "confirmed": "yes"})
    r = world.client.post(base + "/replace", data={"seat": "blue", "email": "n@example.org", "confirmed": "yes"},
                          follow_redirects=True)
    assert "Invitation link" in r.get_data(as_text=True)
    world.client.post(base + "/resolve")
    assert world.round_number() == 2
    world.client.post(base + "/end")
    assert world.game().status == "active"  # not confirmed
    world.client.post(base + "/end", data={"confirmed": "yes"})
    assert world.game().status == "finished"
    assert actions(world) == [("gm", a) for a in ("gm_extend", "gm_pause", "gm_resume",
                                                    "gm_remove", "gm_replace", "gm_resolve_now", "gm_end_draw")]


def test_takeover_page(world):
    r = world.gm("POST", "replace", {"seat": "blue"})
    path = r.json["invite_url"].removeprefix("http://dicepost.test")
    assert "Take the seat" in world.client.get(path).get_data(as_text=True)
    r = world.client.post(path)
    assert r.status_code == 303 and r.headers["Location"] == path  # Post/Redirect/Get
    taken = world.client.get(path).get_data(as_text=True)
    assert "You now play blue" in taken and "/player/" in taken
    assert without_nonce(world.client.get(path).data) == without_nonce(taken)  # a reload claims nothing
    assert [e.action for e in world.audit("seat_claimed")] == ["seat_claimed"]


def test_a_game_the_gm_ended_still_verifies(world):
    from engine.verify import verify

    world.submit("red", world.legal_order("red"))
    world.gm("POST", "remove", {"seat": "blue", "units": "bot"})
    world.gm("POST", "end")
    record = world.client.get(f"/api/games/{world.game_id}/record").json
    assert record["outcome"] is None
    assert record["gm_ending"]["reason"] == "ended as a draw by the game master"
    result = verify(record)
    assert result.ok, result.differences
    assert result.replayed


def test_a_game_nobody_plays_in_person_moves_only_at_deadlines(world):
    world.gm("POST", "remove", {"seat": "red", "units": "bot"})
    world.gm("POST", "remove", {"seat": "blue", "units": "bot"})
    assert world.round_number() == 1
    world.advance(hours=48)
    world.sweep()
    assert world.round_number() == 2
    assert world.step_inputs(2)["red"] != "" and world.step_inputs(2)["blue"] != ""


def test_the_gm_page_sets_the_policy(world):
    base = f"/games/{world.game_id}/gm/{world.gm_token}"
    # The JSON stays as the advanced view beside the form.
    assert ('<textarea name="policy" id="policy-json" rows="8">{\n "absence_limit": "P7D"'
            in world.client.get(base).get_data(as_text=True))
    r = world.client.post(base + "/policy", data={"policy": '{"kind": "none"'}, follow_redirects=True)
    assert "policy: not valid JSON" in r.get_data(as_text=True)
    r = world.client.post(base + "/policy", data={"policy": '{"kind": "calendar", "days": ["xyz"], "time": "18:00"}'},
                          follow_redirects=True)
    assert "deadline_policy.days[0]" in r.get_data(as_text=True)
    world.client.post(base + "/policy", data={"policy": '{"kind": "none"}'})
    assert world.game().deadline_policy["kind"] == "none"


def test_a_round_opened_during_a_pause_is_shifted_only_by_its_own_paused_time(world):
    world.gm("POST", "pause")
    world.advance(hours=10)
    world.gm("POST", "resolve")  # the GM may still force a round while paused
    assert world.round_number() == 2
    opened = world.clock.now()
    assert world.deadline() == opened + timedelta(hours=48)
    world.advance(hours=5)
    world.gm("POST", "resume")
    assert world.deadline() == opened + timedelta(hours=53)


def test_console_shows_local_deadline_and_each_seats_settings(tmp_path):
    world = World(tmp_path).start({"kind": "duration", "duration": "PT48H", "timezone": "Asia/Tokyo"})
    world.settings("red", {"reminder_lead": "PT3H", "absences": [{"from": "2026-07-01", "to": "2026-07-02"}]})
    console = world.gm("GET", "").json
    assert console["deadline"] == "2026-06-03T12:00:00+00:00"
    assert console["deadline_local"] == "2026-06-03T21:00:00+09:00"
    red = next(s for s in console["seats"] if s["name"] == "red")
    assert (red["reminder_lead"], red["absences"]) == ("PT3H", [{"from": "2026-07-01", "to": "2026-07-02"}])
    page = world.client.get(f"/games/{world.game_id}/gm/{world.gm_token}").get_data(as_text=True)
    # To the minute, in the game's zone and in UTC (the reader's own zone is added by the page's script).
    assert ('<time datetime="2026-06-03T12:00:00+00:00" data-reader>Wed 03 Jun 21:00 (Asia/Tokyo)</time>'
            ' · Wed 03 Jun 12:00 (UTC)') in page


def test_player_and_game_pages_show_the_deadline_in_the_games_time_zone_too(tmp_path):
    """Players across time zones read the deadline in UTC and in the game's own zone."""
    world = World(tmp_path).start({"kind": "duration", "duration": "PT48H", "timezone": "Asia/Tokyo"})
    shown = "Wed 03 Jun 2026 12:00 UTC (21:00 Asia/Tokyo, the game&#39;s time zone)"
    player = world.client.get(f"/games/{world.game_id}/player/{world.tokens['red']}").get_data(as_text=True)
    assert f'<time datetime="2026-06-03T12:00:00+00:00">{shown}</time>' in player
    game = world.client.get(f"/games/{world.game_id}").get_data(as_text=True)
    assert f"closes at <time datetime=\"2026-06-03T12:00:00+00:00\">{shown}</time>" in game


def test_a_deadline_past_local_midnight_names_the_local_day(tmp_path):
    """At 18:00 UTC it is already the next day in Tokyo: the local part says which day."""
    world = World(tmp_path, start=datetime(2026, 6, 1, 18, 0, tzinfo=UTC)).start(
        {"kind": "duration", "duration": "PT48H", "timezone": "Asia/Tokyo"})
    player = world.client.get(f"/games/{world.game_id}/player/{world.tokens['red']}").get_data(as_text=True)
    assert "Wed 03 Jun 2026 18:00 UTC (Thu 04 Jun 03:00 Asia/Tokyo, the game&#39;s time zone)" in player


def test_a_game_in_utc_shows_the_deadline_once(tmp_path):
    world = World(tmp_path).start({"kind": "duration", "duration": "PT48H"})
    player = world.client.get(f"/games/{world.game_id}/player/{world.tokens['red']}").get_data(as_text=True)
    assert ">Wed 03 Jun 2026 12:00 UTC</time>" in player


@pytest.mark.parametrize(("method", "path", "body", "field", "words"), [
    ("PUT", "policy", {"kind": "calendar", "days": "mon", "time": "20:00"}, "deadline_policy.days", "must be a list"),
    ("PUT", "policy", {"kind": "none", "quiet_hours": {"start": 22}}, "deadline_policy.quiet_hours.start",
     "must be text"),
    ("PUT", "policy", {"kind": "tomorrow"}, "deadline_policy.kind", "expected one of"),
    ("POST", "extend", {"by": 24}, "by", "must be text"),
    ("POST", "replace", {"email": "x@example.org"}, "seat", "seat is missing: the name of a seat"),
    ("POST", "announce", {"text": ["hello"]}, "text", "must be text"),
])
def test_a_gm_body_that_does_not_fit_names_its_field_and_changes_nothing(world, method, path, body, field, words):
    r = world.gm(method, path, body)
    assert (r.status_code, r.json["field"]) == (422, field), r.json
    assert words in r.json["error"]
    assert actions(world) == []


@pytest.mark.parametrize(("body", "field", "words"), [
    ({"absences": [{"from": 1, "to": "2030-01-02"}]}, "absences[0].from", "must be text"),
    ({"absences": [{"from": "2030-01-01", "to": "2030-01-02", "why": "trip"}]}, "absences[0].why", "unknown"),
    ({"wait": "yes"}, "wait", "true or false"),
    ({"seat": "red"}, "seat", "unknown field"),  # what GET gives is not all settable
])
def test_a_settings_body_that_does_not_fit_names_its_field(world, body, field, words):
    r = world.settings("red", body)
    assert (r.status_code, r.json["field"]) == (422, field), r.json
    assert words in r.json["error"]
