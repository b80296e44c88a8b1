"""The player's time zone and message preference in the browser, at 1280 and 390 px:
"Your games" offers the browser's own zone when none is stored, saves it and shows the
deadline in it; the player page's form changes it; without JavaScript the select still
works; a refused zone is shown at its field."""

from __future__ import annotations

import re
from typing import Any

from flask import Flask

from service.web.mailbox import mailbox_link
from tests.browser.conftest import BROWSER, PHONE
from tests.browser.flow import unlabelled

pytestmark = BROWSER
WIDE = {"width": 1280, "height": 900}


def _game(app: Flask) -> dict[str, str]:
    """A started game; the player tokens by seat (and the game's id under "game")."""
    client = app.test_client()
    app.config["WTF_CSRF_ENABLED"] = False  # the API set-up only; the browser below posts real tokens
    created = client.post("/api/games", json={
        "ruleset": "universal", "title": "Zones", "seats": [
            {"name": "red", "email": "red@example.org"}, {"name": "blue", "email": "blue@example.org"}],
        "deadline_policy": {"kind": "duration", "duration": "PT48H", "timezone": "Europe/Berlin"}})
    assert created.status_code == 201, created.json
    tokens = {"game": created.json["id"]}
    for seat in created.json["seats"]:
        joined = client.post(f"/api/games/{created.json['id']}/join", json={"invite_token": seat["invite_token"]})
        assert joined.status_code == 200
        tokens[seat["name"]] = joined.json["player_token"]
    app.config["WTF_CSRF_ENABLED"] = True
    return tokens


def _signed_in(page: Any, base: str, app: Flask) -> None:
    """Ask for a sign-in link on the page, then follow the one mailed (the embedded mailbox's)."""
    page.goto(mailbox_link(app, base) or "")  # the machine's own user opens the printed link once
    page.goto(base + "/signin")
    page.get_by_label("Your e-mail address").fill("red@example.org")
    page.get_by_role("button", name="Mail me a sign-in link").click()
    assert "a sign-in link is on its way" in page.inner_text(".notice")
    page.get_by_role("link", name="mailbox", exact=True).click()
    page.get_by_role("link", name="Your sign-in link").first.click()
    page.wait_for_url(re.compile(r"/mailbox/[0-9]+$"))  # the mail itself, not the list it left
    found = re.search(r"http://[^\s\"'<>]+/signin/[0-9]+\.[a-z2-7]+", page.content())
    assert found
    page.goto(found.group(0))
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_load_state("load")
    assert page.url.endswith("/me")


def test_the_zone_is_offered_from_the_browser_saved_and_changed_on_the_player_page(served, pages, shot) -> None:
    base, app = served
    _game(app)
    page = pages.new(viewport=WIDE, timezone="America/New_York")
    _signed_in(page, base, app)
    zone = page.locator("#zone-form").get_by_label("Your time zone")
    assert zone.input_value() == "America/New_York"  # the browser's, not stored yet
    assert "Your browser's zone, America/New_York, is chosen: save to keep it." in page.inner_text("#zone-hint")
    row = page.locator("table.games tr", has_text="Zones")
    assert "Europe/Berlin, the game's time zone" in row.inner_text() and "your time" not in row.inner_text()
    assert unlabelled(page) == []
    shot(page, "zone-your-games")
    page.locator("#zone-form").get_by_role("button", name="Save the time zone").click()
    page.wait_for_load_state("load")
    assert "your time zone, America/New_York" in page.inner_text(".notice")
    assert page.locator("#zone-hint").is_hidden()
    row = page.locator("table.games tr", has_text="Zones")
    assert "America/New_York, your time (" in row.inner_text()

    # Messages by digest, from the same row's mail settings.
    page.get_by_label("Messages at the table of Zones (red) by mail").select_option("digest")
    page.get_by_role("button", name="Save mail settings for Zones (red)").click()
    page.wait_for_load_state("load")
    assert "messages: a digest in each results mail" in page.inner_text(".notice")
    assert page.get_by_label("Messages at the table of Zones (red) by mail").input_value() == "digest"

    # The player page: the stored zone is shown and changed there, and its deadline follows.
    row = page.locator("table.games tr", has_text="Zones")
    row.get_by_role("link", name="send orders").click()
    page.wait_for_load_state("load")  # the long select is read once all its options are in
    form = page.locator("#zone-form")
    assert form.get_by_label("Your time zone").input_value() == "America/New_York"
    form.get_by_label("Your time zone").select_option("Asia/Tokyo")
    form.get_by_role("button", name="Save the time zone").click()
    page.wait_for_load_state("load")
    assert page.url.endswith("#zone-form") and "/me/play/" in page.url
    assert page.locator("#zone-form").get_by_label("Your time zone").input_value() == "Asia/Tokyo"
    assert "Asia/Tokyo, your time" in page.inner_text("main")
    shot(page, "zone-player-page")

    phone = pages.new(viewport=PHONE, timezone="Europe/Lisbon")
    phone.context.add_cookies(page.context.cookies())
    phone.goto(base + "/me")
    assert phone.locator("#zone-form").get_by_label("Your time zone").input_value() == "Asia/Tokyo"  # stored wins
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shot(phone, "zone-your-games-phone")
    phone.locator("table.games tr", has_text="Zones").get_by_role("link", name="send orders").click()
    phone.wait_for_load_state("load")
    phone.locator("#zone-form").scroll_into_view_if_needed()
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shot(phone, "zone-player-page-phone")


def test_without_javascript_the_select_works_and_a_bad_zone_is_refused_at_its_field(served, pages, shot) -> None:
    base, app = served
    _game(app)
    page = pages.new(viewport=PHONE, javascript=False, timezone="America/New_York")
    _signed_in(page, base, app)
    zone = page.locator("#zone-form").get_by_label("Your time zone")
    assert zone.input_value() == ""  # nothing stored and no script: "not set"
    assert page.locator("#zone-hint").is_hidden()
    zone.select_option("Australia/Sydney")
    page.locator("#zone-form").get_by_role("button", name="Save the time zone").click()
    page.wait_for_load_state("load")
    assert "your time zone, Australia/Sydney" in page.inner_text(".notice")
    # A value the list does not hold (an old page, a hand-made request) is refused by name.
    nojs, page = page, pages.new(viewport=PHONE)
    page.context.add_cookies(nojs.context.cookies())
    page.goto(base + "/me")
    page.evaluate("""() => { const s = document.querySelector('#zone-form select');
                            s.add(new Option('Mars/Olympus', 'Mars/Olympus')); s.value = 'Mars/Olympus'; }""")
    page.locator("#zone-form").get_by_role("button", name="Save the time zone").click()
    page.wait_for_load_state("load")
    assert "is not a time zone: give an IANA name like Europe/Berlin" in page.inner_text("#zone-error")
    assert page.locator("#zone-form select").input_value() == "Australia/Sydney"  # still the stored one
    assert page.locator("#zone-form select").get_attribute("aria-describedby") == "zone-error"
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shot(page, "zone-refused-phone")
    page.goto(base + "/me")
    assert page.locator("#zone-form").get_by_label("Your time zone").input_value() == "Australia/Sydney"


def test_the_settings_page_takes_the_messages_and_the_zone_on_a_phone(served, pages, shot) -> None:
    base, app = served
    tokens = _game(app)
    page = pages.new(viewport=PHONE, timezone="Europe/Madrid")
    page.goto(f"{base}/games/{tokens['game']}/player/{tokens['blue']}")
    page.get_by_role("link", name="Your settings: ready or not, reminders, absences, mail and messages").click()
    page.wait_for_load_state("load")
    assert page.get_by_label("Your time zone").input_value() == "Europe/Madrid"  # the browser's, offered
    page.get_by_label("Messages at the table by mail").select_option("digest")
    page.get_by_label("Mail from this game").select_option("results")
    assert unlabelled(page) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shot(page, "zone-settings-phone")
    page.get_by_role("button", name="Save").click()
    assert "Saved." in page.inner_text(".notice")
    page.wait_for_load_state("load")
    assert page.get_by_label("Messages at the table by mail").input_value() == "digest"
    assert page.get_by_label("Your time zone").input_value() == "Europe/Madrid"
    wide = pages.new(viewport=WIDE)
    wide.goto(page.url)
    assert wide.get_by_label("Your time zone").input_value() == "Europe/Madrid"  # stored, whatever the browser
    shot(wide, "zone-settings")
