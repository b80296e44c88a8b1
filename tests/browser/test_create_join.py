"""Creating and joining a game as a person does, at desktop and phone widths: every form
problem at once, a deadline preset, the created page surviving a reload, copy buttons, and
a used invitation saying the seat is taken."""

from __future__ import annotations

import pytest

from service.db import session_scope
from service.models import Game
from tests.browser.conftest import BROWSER, PHONE
from tests.browser.flow import join, unlabelled

pytestmark = BROWSER
WIDE = {"width": 1280, "height": 900}


@pytest.mark.parametrize("viewport", [WIDE, PHONE], ids=["desktop", "phone"])
def test_create_and_join_survive_reloads(served, pages, shot, viewport) -> None:
    base, app = served
    host = pages.new(viewport=viewport)
    width = viewport["width"]
    host.goto(base + "/")
    # The browser's own zone fills the time zone field (chromium here runs in UTC or TZ).
    assert host.get_by_label("Time zone").input_value()
    host.locator("select[name=ruleset]").select_option("universal")
    host.get_by_label("Title").fill("x" * 5)
    host.get_by_label("Seats, one a line").fill("red red@example.org\nblue blue@example.org extra")
    host.get_by_label("Options, one a line").fill("colour = red")
    host.get_by_label("my own, from the form below").check()
    host.get_by_label("Kind").select_option("calendar")
    host.get_by_label("Closing time").fill("25:00")
    host.get_by_role("button", name="Create the game").click()
    problems = host.locator("#form-problems")
    text = problems.inner_text()
    assert "4 problems to fix" in text, text
    assert "seats line 2" in text and "option colour" in text
    assert "tick at least one day" in text and "expected HH:MM" in text
    assert host.locator("#policy_time-error").is_visible()
    assert unlabelled(host) == []
    assert host.evaluate("document.documentElement.scrollWidth") <= width
    shot(host, f"create-errors-{width}")
    host.locator("#policy_time-error").scroll_into_view_if_needed()
    shot(host, f"create-policy-errors-{width}")

    host.get_by_label("Seats, one a line").fill("red red@example.org\nblue")
    host.get_by_label("Options, one a line").fill("")
    host.get_by_label("Mon & Thu 20:00 in your zone").check()
    host.get_by_label("Time zone").fill("Europe/Berlin")
    host.get_by_role("button", name="Create the game").click()
    host.wait_for_selector("text=is created")
    assert "Invitations mailed to red (red@example.org)" in host.inner_text("#mailed")
    assert "not mailed (no address)" in host.inner_text("li[data-seat=blue]")
    assert host.evaluate("document.documentElement.scrollWidth") <= width
    shot(host, f"created-{width}")
    game_id = host.locator("h2").inner_text().split()[1]
    invites = {str(li.get_attribute("data-seat")): li.locator("a.invite-link").inner_text()
               for li in host.locator("ul.invites li").all()}
    host.reload()  # the created page again: the same links, no second game
    assert {str(li.get_attribute("data-seat")): li.locator("a.invite-link").inner_text()
            for li in host.locator("ul.invites li").all()} == invites
    with session_scope(app) as s, s.begin():
        assert s.query(Game).count() == 1
        policy = s.get(Game, game_id).deadline_policy
    assert policy["days"] == ["mon", "thu"] and policy["timezone"] == "Europe/Berlin"

    host.context.grant_permissions(["clipboard-read", "clipboard-write"])
    host.get_by_role("button", name="Copy red's invitation link").click()
    host.wait_for_selector("li[data-seat=red] button:has-text('Copied')")
    assert host.evaluate("navigator.clipboard.readText()") == invites["red"]

    red = pages.new(viewport=viewport)
    red_url = join(red, invites["red"])
    red.reload()  # the joined page again: the same link, nothing joined twice
    assert red.locator(".secret a").first.inner_text().strip() == red_url
    red.context.grant_permissions(["clipboard-read", "clipboard-write"])
    red.get_by_role("button", name="Copy your player link").click()  # as the created page's links
    red.wait_for_selector(".secret button:has-text('Copied')")
    assert red.evaluate("navigator.clipboard.readText()") == red_url
    shot(red, f"joined-{width}")
    stranger = pages.new(viewport=viewport)
    stranger.goto(invites["red"])
    assert "This seat of xxxxx is taken" in stranger.inner_text("main")
    assert stranger.get_by_label("Your entropy").count() == 0
    shot(stranger, f"seat-taken-{width}")
    stranger.get_by_role("link", name="The game page of xxxxx").click()
    assert "status waiting" in stranger.inner_text("main")
