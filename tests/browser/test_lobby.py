"""The lobby as a visitor uses it, at desktop and phone widths: a GM opens a seat for a
replacement, a visitor finds the game under "open seats", takes the seat from the game
page and plays it from the player link shown once."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import BROWSER, PHONE
from tests.browser.flow import create_game, join, unlabelled
from tests.mail.mail_world import stored_mail, text_of

pytestmark = BROWSER
WIDE = {"width": 1280, "height": 900}


@pytest.mark.parametrize("viewport", [WIDE, PHONE], ids=["desktop", "phone"])
def test_a_visitor_finds_and_takes_an_open_seat(served, pages, shot, viewport) -> None:
    base, app = served
    width = viewport["width"]
    gm = pages.new(viewport=viewport)
    created = create_game(gm, base, "Open table", "red\nblue")
    create_game(gm, base, "Full table", "green\nyellow")
    join(pages.new(viewport=viewport), created.invites["red"])
    join(pages.new(viewport=viewport), created.invites["blue"])
    gm.goto(created.gm_url)
    replace = gm.locator("form", has_text="Open a seat for a replacement")
    replace.get_by_label("seat").select_option("blue")
    replace.get_by_role("button", name="Open a seat for a replacement…").click()
    gm.get_by_role("button", name="Yes").click()

    visitor = pages.new(viewport=viewport)
    visitor.goto(base + "/")
    visitor.get_by_role("link", name="Lobby", exact=True).click()
    assert "Full table" in visitor.inner_text("table.lobby")  # every public game at first
    visitor.get_by_label("Show").select_option("open")
    visitor.get_by_role("button", name="Filter").click()
    lobby = visitor.inner_text("table.lobby")
    assert "Open table" in lobby and "2 seats, 1 open (blue)" in lobby and "Full table" not in lobby
    assert unlabelled(visitor) == []
    assert visitor.evaluate("document.documentElement.scrollWidth") <= width
    shot(visitor, f"lobby-{width}")

    visitor.get_by_role("link", name="Open table").click()
    assert "Nobody plays blue now" in visitor.inner_text(".open-seats")
    visitor.locator(".open-seats").scroll_into_view_if_needed()
    shot(visitor, f"open-seat-{width}")
    # The section fits the screen (the grid's legend table below may scroll sideways).
    assert visitor.locator(".open-seats").evaluate("e => e.scrollWidth <= e.clientWidth")
    assert visitor.locator(".open-seats").evaluate("e => e.getBoundingClientRect().right") <= width
    # A second visitor follows the game by mail: the ask, then the mailed link's button.
    fan = pages.new(viewport=viewport)
    fan.goto(base + f"/games/{created.game_id}")
    fan.get_by_label("Your e-mail address").fill("fan@example.org")
    fan.get_by_role("button", name="Follow by mail").click()
    assert "A link to follow Open table went to fan@example.org" in " ".join(fan.inner_text("main").split())
    shot(fan, f"follow-asked-{width}")
    ask = next(m for m in stored_mail(app)() if m["To"] == "fan@example.org")
    fan.goto(re.search(r"http://\S+/follow/[\w.]+", text_of(ask)).group(0))
    fan.get_by_role("button", name="Follow", exact=True).click()
    assert "You follow Open table by mail" in fan.inner_text("h2")
    assert unlabelled(fan) == [] and fan.evaluate("document.documentElement.scrollWidth") <= width
    shot(fan, f"following-{width}")

    visitor.get_by_role("button", name="Take the seat blue").click()
    visitor.wait_for_selector("text=You now play blue")
    link = visitor.locator(".secret a").first.inner_text().strip()
    shot(visitor, f"seat-taken-{width}")
    visitor.reload()  # the same link again, nothing taken twice
    assert visitor.locator(".secret a").first.inner_text().strip() == link
    visitor.goto(link)
    assert "blue" in visitor.inner_text("h2")
    visitor.goto(base + f"/games/{created.game_id}")
    assert visitor.locator(".open-seats").count() == 0
