"""A player's schedule settings form: shown on the player page, saved, refused with the field."""

from __future__ import annotations

import pytest

from service.errors import Invalid
from service.gm.settings_page import absences_from_text, absences_to_text
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
    r = world.client.post(url, data={"wait": "on", "reminder_lead": "PT6H",
                                     "absences": "2026-12-24 to 2026-12-27\n\n2027-01-03\n"})
    assert r.status_code == 200 and "Saved." in r.get_data(as_text=True)
    assert world.settings("blue").json == {
        "seat": "blue", "wait": True, "reminder_lead": "PT6H", "missed_in_a_row": 0, "played_by": "human",
        "absences": [{"from": "2026-12-24", "to": "2026-12-27"}, {"from": "2027-01-03", "to": "2027-01-03"}]}


def test_bad_form_input_is_refused_and_nothing_changes(world):
    url = f"/games/{world.game_id}/player/{world.tokens['blue']}/schedule"
    r = world.client.post(url, data={"wait": "on", "reminder_lead": "soon", "absences": ""})
    assert r.status_code == 422
    assert "reminder_lead" in r.get_data(as_text=True)
    r = world.client.post(url, data={"reminder_lead": "PT1H", "absences": "2026-12-24 until 2026-12-27"})
    assert r.status_code == 422 and "absences line 1" in r.get_data(as_text=True)
    assert world.settings("blue").json["wait"] is False
    assert world.client.get(f"/games/{world.game_id}/player/wrong/schedule").status_code == 401


def test_absence_text_round_trip():
    data = [{"from": "2026-12-24", "to": "2026-12-27"}]
    assert absences_from_text(absences_to_text(data)) == data
    with pytest.raises(Invalid, match="line 2"):
        absences_from_text("2026-01-01\na b c")
