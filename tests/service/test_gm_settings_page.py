"""A player's schedule settings form: shown on the player page, saved, refused with the field."""

from __future__ import annotations

import pytest

from service.errors import Invalid
from service.web.settings import absences_from_text, absences_to_text
from tests.service.schedule_world import World


@pytest.fixture
def world(tmp_path):
    return World(tmp_path).start({"kind": "duration", "duration": "PT48H"})


def test_player_page_links_to_the_form_and_it_saves(world):
    token = world.tokens["blue"]
    player = world.client.get(f"/games/{world.game_id}/player/{token}").get_data(as_text=True)
    url = f"/games/{world.game_id}/player/{token}/schedule"
    assert url in player
    page = world.client.get(url).get_data(as_text=True)
    assert 'value="PT12H"' in page
    assert '<option value="all" selected>' in page
    r = world.client.post(url, data={"wait": "on", "reminder_lead": "PT6H",
                                     "absences": "2026-12-24 to 2026-12-27\n\n2027-01-03\n",
                                     "mail_pref": "results"})
    assert r.status_code == 303 and r.headers["Location"].endswith(f"{url}?saved=1")  # a reload saves nothing
    r = world.client.get(r.headers["Location"])
    assert "Saved." in r.get_data(as_text=True)
    assert '<option value="results" selected>' in r.get_data(as_text=True)
    assert "Saved." not in world.client.get(url).get_data(as_text=True)
    assert world.settings("blue").json == {
        "seat": "blue", "wait": True, "reminder_lead": "PT6H", "missed_in_a_row": 0, "played_by": "human",
        "absences": [{"from": "2026-12-24", "to": "2026-12-27"}, {"from": "2027-01-03", "to": "2027-01-03"}],
        "mail_pref": "results", "email": "blue@example.org", "mail_failing": None, "email_confirmed": True, "message_pref": "each",
        "zone": None, "discord_id": None}


def test_bad_form_input_is_refused_and_nothing_changes(world):
    url = f"/games/{world.game_id}/player/{world.tokens['blue']}/schedule"
    r = world.client.post(url, data={"wait": "on", "reminder_lead": "soon", "absences": ""})
    assert r.status_code == 422
    assert "reminder_lead" in r.get_data(as_text=True)
    r = world.client.post(url, data={"reminder_lead": "PT1H", "absences": "2026-12-24 until 2026-12-27"})
    assert r.status_code == 422 and "absences line 1" in r.get_data(as_text=True)
    r = world.client.post(url, data={"wait": "on", "reminder_lead": "PT1H", "absences": "", "mail_pref": "often"})
    assert r.status_code == 422 and "mail_pref: choose one of: all, results, none" in r.get_data(as_text=True)
    assert world.settings("blue").json["wait"] is False
    assert world.client.get(f"/games/{world.game_id}/player/wrong/schedule").status_code == 401


def test_absence_text_round_trip():
    data = [{"from": "2026-12-24", "to": "2026-12-27"}]
    assert absences_from_text(absences_to_text(data)) == data
    with pytest.raises(Invalid, match="line 2"):
        absences_from_text("2026-01-01\na b c")


def _stored_pref(world, seat: str) -> str:
    with world.app.app_context():
        from service.db import session_scope
        from service.models import Seat

        with session_scope() as s:
            return s.query(Seat).filter_by(game_id=world.game_id, name=seat).one().mail_pref


def test_mail_pref_by_the_api_is_the_seats_mail_preference(world):
    assert world.settings("red").json["mail_pref"] == "all"
    r = world.settings("red", {"mail_pref": "none"})
    assert r.status_code == 200 and r.json["mail_pref"] == "none"
    assert _stored_pref(world, "red") == "none" and _stored_pref(world, "blue") == "all"
    assert world.settings("red").json["mail_pref"] == "none"
    assert world.settings("red", {"mail_pref": "results", "wait": True}).json["mail_pref"] == "results"
    assert _stored_pref(world, "red") == "results"


@pytest.mark.parametrize("bad", ["sometimes", "ALL", "", 3, None, ["all"], {"all": 1}])
def test_bad_mail_pref_is_refused_naming_the_field_and_nothing_changes(world, bad):
    r = world.settings("red", {"wait": True, "mail_pref": bad})
    assert r.status_code == 422
    assert r.json == {"error": "mail_pref: choose one of: all, results, none", "field": "mail_pref"}
    assert world.settings("red").json["wait"] is False and _stored_pref(world, "red") == "all"
