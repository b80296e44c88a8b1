"""Without JavaScript, on a 390-pixel phone, by keyboard alone, every control labelled."""

from __future__ import annotations

import re
from typing import Any

from tests.browser.conftest import BROWSER, PHONE
from tests.browser.flow import create_game, first_moves, join, send, tap_square, unlabelled

pytestmark = BROWSER


def no_sideways_scroll(page: Any) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], page.url


def test_a_round_without_javascript(served, pages) -> None:
    base, _app = served
    host, red, blue = (pages.new(javascript=False) for _ in range(3))
    created = create_game(host, base, "No script", "red\nblue")
    red_url = join(red, created.invites["red"], javascript=False)
    blue.goto(join(blue, created.invites["blue"], javascript=False))
    red.goto(red_url)
    send(red, first_moves(red))
    assert "stored as version 1" in red.inner_text(".notice")
    send(blue, first_moves(blue))
    assert "Orders for round 2" in blue.inner_text("main")
    host.goto(f"{base}/games/{created.game_id}")
    assert host.inner_text("main").count("server-made") == 2  # no browser entropy without JS (each behind a disclosure)
    assert host.locator("table.rolls tr.roll").count() + host.get_by_text("No dice were rolled").count() > 0
    host.get_by_role("link", name="round 1", exact=True).first.click()
    assert "round 1" in host.locator("h2").inner_text()


def test_phone_keyboard_labels_and_the_square_picker(served, pages, shot) -> None:
    base, _app = served
    host = pages.new(viewport=PHONE)
    host.goto(base + "/")
    no_sideways_scroll(host)
    assert unlabelled(host) == []
    shot(host, "home-phone")
    created = create_game(host, base, "Pocket war", "red\nblue")
    no_sideways_scroll(host)
    red, blue = pages.new(viewport=PHONE), pages.new(viewport=PHONE)
    join_page = created.invites["red"]
    red.goto(join_page)
    assert unlabelled(red) == []
    red_url = join(red, join_page)
    red.goto(red_url)
    assert "Not every seat is filled yet" in red.inner_text("main")
    blue.goto(join(blue, created.invites["blue"]))
    red.wait_for_selector("text=Orders for round 1")  # the waiting page refreshed itself
    no_sideways_scroll(red)
    assert unlabelled(red) == []
    frame = red.locator(".grid-pan").bounding_box()
    assert frame and frame["width"] <= PHONE["width"]  # the grid's frame fits the screen
    assert red.locator(".grid-pan.zoomed").count() == 1  # the grid at its own size pans inside it

    # Tap a square on the zoomed grid: the first unit's list gets the move there.
    target = first_moves(red, 1)
    unit, line = next(iter(target.items()))
    tap_square(red, line.split()[-1])
    assert red.locator("#unit-0").input_value() == line
    assert f"{line} chosen." in red.inner_text("#picked")
    tap_square(red, "a12")  # the far corner: out of every unit's reach in round 1
    assert f"{unit} cannot move to a12" in red.inner_text("#picked")
    assert red.locator("#unit-0").input_value() == line
    shot(red, "orders-phone")

    # Keyboard alone: the first Tab offers to skip the header; then Tab to the second unit's list, pick with the arrow key, Tab to Send, Enter.
    red.reload()  # nothing sent yet: the lists start at hold
    red.keyboard.press("Tab")
    assert red.evaluate("document.activeElement.textContent") == "Skip to the page"
    tab_to(red, "unit-1")
    red.keyboard.press("ArrowDown")
    chosen = red.locator("#unit-1").input_value()
    assert chosen
    tab_to(red, "send")
    red.keyboard.press("Enter")
    red.wait_for_selector(".notice")
    assert "stored as version 1" in red.inner_text(".notice") and chosen in red.inner_text(".notice")

    send(blue, first_moves(blue, 1))
    game = pages.new(viewport=PHONE)
    game.goto(f"{base}/games/{created.game_id}")
    no_sideways_scroll(game)
    text = game.inner_text("main")
    for side in ("red", "blue"):  # sides named in words beside the colours
        assert re.search(rf"\b{side}\b", game.locator("table.legend").inner_text())
    assert "Round 1" in text
    shot(game, "game-phone")


def tab_to(page: Any, element_id: str, limit: int = 80) -> None:
    for _ in range(limit):
        if page.evaluate("document.activeElement && document.activeElement.id") == element_id:
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached #{element_id}")
