"""The player's time zone and message preference as settings: the API, the settings page,
the mail settings page and the player page's form store them; a bad value is refused
naming its field and nothing is stored. The zone is the address's, for all its seats."""

from __future__ import annotations

import re
from email import policy
from email.parser import BytesParser

import pytest
from sqlalchemy import select

from service.db import session_scope
from service.mail.settings import mail_settings
from service.mail.tokens import make_token
from service.models import Seat, StoredMail
from tests.dashboard.test_signin import ask_for_link, new_game
from tests.service.schedule_world import World


@pytest.fixture
def world(tmp_path):
    return World(tmp_path).start({"kind": "duration", "duration": "PT48H", "timezone": "Europe/Berlin"})


def _selected(page: str, name: str) -> str | None:
    select = re.search(rf'<select name="{name}"[^>]*>(.*?)</select>', page, re.S)
    assert select, f"no select {name}"
    chosen = re.search(r'<option value="([^"]*)"\s*selected', select.group(1))
    return chosen.group(1) if chosen else None


def test_the_api_keeps_one_zone_per_address_and_refuses_a_bad_one_by_field(world, tmp_path):
    assert world.settings("blue").json["zone"] is None
    r = world.settings("blue", {"zone": "America/New_York", "message_pref": "digest"})
    assert r.status_code == 200 and (r.json["zone"], r.json["message_pref"]) == ("America/New_York", "digest")
    assert world.settings("red").json["zone"] is None  # red's address has none
    # Another game with the same address sees the same zone.
    r = world.client.post("/api/games", json={"ruleset": "universal", "seats": [
        {"name": "blue", "email": "Blue@Example.org"}, {"name": "green", "email": "green@example.org"}]})
    j = world.client.post(f"/api/games/{r.json['id']}/join", json={"invite_token": r.json["seats"][0]["invite_token"]})
    other = world.client.get(f"/api/games/{r.json['id']}/settings",
                             headers={"Authorization": f"Bearer {j.json['player_token']}"})
    assert other.json["zone"] == "America/New_York"

    bad = world.settings("blue", {"zone": "Mars/Base", "wait": True})
    assert bad.status_code == 422 and bad.json["field"] == "zone"
    assert bad.json["error"].startswith("zone: 'Mars/Base' is not a time zone: give an IANA name like Europe/Berlin")
    assert world.settings("blue", {"zone": 7}).json["field"] == "zone"
    bad = world.settings("blue", {"message_pref": "sometimes"})
    assert (bad.status_code, bad.json["field"]) == (422, "message_pref")
    assert bad.json["error"] == "message_pref: choose one of: each, digest, none"
    now = world.settings("blue").json
    assert (now["zone"], now["message_pref"], now["wait"]) == ("America/New_York", "digest", False)
    assert world.settings("blue", {"zone": ""}).json["zone"] is None  # cleared


def test_the_settings_page_saves_the_zone_and_messages_and_shows_a_refusal_at_the_field(world):
    url = f"/games/{world.game_id}/player/{world.tokens['blue']}/schedule"
    page = world.client.get(url).get_data(as_text=True)
    assert _selected(page, "zone") is None and 'data-browser-default="1"' in page
    assert _selected(page, "message_pref") == "each"
    form = {"reminder_lead": "PT12H", "absences": "", "mail_pref": "results"}
    r = world.client.post(url, data={**form, "message_pref": "digest", "zone": "Asia/Tokyo"})
    assert r.status_code == 303  # Post/Redirect/Get
    r = world.client.get(r.headers["Location"])
    page = r.get_data(as_text=True)
    assert r.status_code == 200 and "Saved." in page
    assert (_selected(page, "zone"), _selected(page, "message_pref")) == ("Asia/Tokyo", "digest")
    assert 'data-browser-default="1"' not in page  # a stored zone is not replaced by the browser's
    r = world.client.post(url, data={**form, "message_pref": "each", "zone": "Atlantis/Capital"})
    page = r.get_data(as_text=True)
    assert r.status_code == 422
    assert 'id="zone-error">zone: &#39;Atlantis/Capital&#39; is not a time zone' in page
    assert 'aria-describedby="zone-error"' in page
    assert (world.settings("blue").json["zone"], world.settings("blue").json["message_pref"]) == ("Asia/Tokyo", "digest")
    # A bad absence is named in words.
    r = world.client.post(url, data={**form, "absences": "2026-12-30 to 2026-13-01"})
    page = r.get_data(as_text=True)
    assert r.status_code == 422 and "absences[" not in page
    assert "Nothing was stored: absence 1, its last day: expected a date like 2026-12-24 (YYYY-MM-DD)" in page


def test_the_mail_settings_page_takes_messages_and_zone_without_login(world):
    with world.app.app_context():
        from service.db import get_session

        seat = get_session().query(Seat).filter_by(game_id=world.game_id, name="red").one()
        token = make_token(mail_settings(world.app.config).secret_key, "unsubscribe", seat.id,
                           seat.reply_token_salt or "")
    url = f"/mail/preferences/{token}"
    assert 'value="each" checked' in world.client.get(url).get_data(as_text=True)
    r = world.client.post(url, data={"mail_pref": "results", "message_pref": "digest", "zone": "Europe/Lisbon"})
    assert r.status_code == 303  # Post/Redirect/Get
    r = world.client.get(r.headers["Location"])
    assert r.status_code == 200 and "Saved: results only" in r.get_data(as_text=True)
    assert "times in Europe/Lisbon" in r.get_data(as_text=True)
    assert "messages: a digest in each results mail" in r.get_data(as_text=True)
    now = world.settings("red").json
    assert (now["mail_pref"], now["message_pref"], now["zone"]) == ("results", "digest", "Europe/Lisbon")
    r = world.client.post(url, data={"mail_pref": "all", "message_pref": "each", "zone": "Nowhere/Land"})
    assert r.status_code == 422 and "zone: &#39;Nowhere/Land&#39; is not a time zone" in r.get_data(as_text=True)
    now = world.settings("red").json  # nothing stored
    assert (now["mail_pref"], now["message_pref"], now["zone"]) == ("results", "digest", "Europe/Lisbon")


def test_the_player_page_sets_the_zone_and_shows_the_deadline_in_it(world):
    token = world.tokens["red"]
    page = world.client.get(f"/games/{world.game_id}/player/{token}").get_data(as_text=True)
    assert 'id="zone-form"' in page and _selected(page, "zone") is None
    assert "Europe/Berlin, the game&#39;s time zone" in page
    r = world.client.post(f"/games/{world.game_id}/player/{token}/zone", data={"zone": "America/Chicago"})
    assert r.status_code == 302 and r.headers["Location"].endswith(f"/games/{world.game_id}/player/{token}#zone-form")
    page = world.client.get(f"/games/{world.game_id}/player/{token}").get_data(as_text=True)
    assert _selected(page, "zone") == "America/Chicago"
    assert "America/Chicago, your time (" in page
    r = world.client.post(f"/games/{world.game_id}/player/{token}/zone", data={"zone": "Moon/Base"})
    assert r.status_code == 422 and "zone: &#39;Moon/Base&#39; is not a time zone" in r.get_data(as_text=True)
    assert world.settings("red").json["zone"] == "America/Chicago"
    assert world.client.post(f"/games/{world.game_id}/player/wrong/zone", data={"zone": "UTC"}).status_code == 401


def test_the_sign_in_mail_gives_its_expiry_in_the_addresss_zone(sqlite_app):
    client = sqlite_app.test_client()
    game_id, tokens = new_game(client, [{"name": "red", "email": "red@example.org"},
                                        {"name": "blue", "email": "blue@example.org"}])
    r = client.put(f"/api/games/{game_id}/settings", headers={"Authorization": f"Bearer {tokens['red']}"},
                   json={"zone": "Asia/Tokyo"})
    assert r.status_code == 200, r.json
    for address in ("red@example.org", "blue@example.org"):
        ask_for_link(client, address)
    with session_scope(sqlite_app) as s:
        raws = {m.to: m.raw for m in s.scalars(select(StoredMail).where(StoredMail.subject.contains("sign-in")))}
    text = {to: BytesParser(policy=policy.default).parsebytes(raw.encode()).get_body(("plain",)).get_content()
            for to, raw in raws.items()}
    assert re.search(r"until \w{3} \d\d \w{3} \d{4} \d\d:\d\d Asia/Tokyo, your time \([^)]*UTC\)",
                     text["red@example.org"]), text["red@example.org"]
    assert re.search(r"until \w{3} \d\d \w{3} \d{4} \d\d:\d\d UTC\)", text["blue@example.org"]), text["blue@example.org"]
