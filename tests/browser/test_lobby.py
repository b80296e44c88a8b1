"""The lobby as a visitor uses it, at desktop and phone widths: a GM opens a seat for a
replacement, a visitor finds the game under "open seats", takes the seat from the game
page and plays it from the player link shown once."""

from __future__ import annotations

import pytest

from tests.browser.conftest import BROWSER, PHONE
from tests.browser.flow import create_game, join, unlabelled

pytestmark = BROWSER
WIDE = {"width": 1280, "height": 900}


@pytest.mark.parametrize("viewport", [WIDE, PHONE], ids=["desktop", "phone"])
def test_a_visitor_finds_and_takes_an_open_seat(served, pages, shot, viewport) -> None:
    base, _app = served
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
