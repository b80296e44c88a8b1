"""The GM console as a person uses it, at desktop and phone widths: the policy form with its
problems at their fields, a quick extension, an announcement every player sees, and the
confirmation step before a draw; the game page's log reads in words."""

from __future__ import annotations

import pytest

from tests.browser.conftest import BROWSER, PHONE
from tests.browser.flow import create_game, join, unlabelled

pytestmark = BROWSER
WIDE = {"width": 1280, "height": 900}


@pytest.mark.parametrize("viewport", [WIDE, PHONE], ids=["desktop", "phone"])
def test_a_gm_runs_the_game_from_the_console(served, pages, shot, viewport) -> None:
    base, _app = served
    width = viewport["width"]
    gm = pages.new(viewport=viewport)
    created = create_game(gm, base, "Console game", "red\nblue")
    red = pages.new(viewport=viewport)
    red_url = join(red, created.invites["red"])
    join(pages.new(viewport=viewport), created.invites["blue"])
    gm.goto(created.gm_url)
    assert unlabelled(gm) == []
    assert gm.evaluate("document.documentElement.scrollWidth") <= width

    # The policy form: two problems, each at its field; what was typed stays.
    gm.get_by_label("Kind", exact=True).select_option("calendar")
    gm.get_by_label("Closing time").fill("8pm")
    gm.get_by_label("Time zone").fill("Europe/Nowhere")
    gm.get_by_role("button", name="Set the policy", exact=True).click()
    assert "3 problems to fix" in gm.inner_text(".error")
    assert gm.locator("#policy_time-error").inner_text() == "expected HH:MM (24-hour), got '8pm'"
    assert "unknown IANA time zone" in gm.locator("#policy_timezone-error").inner_text()
    assert gm.get_by_label("Closing time").input_value() == "8pm"
    gm.locator("#policy_time-error").scroll_into_view_if_needed()
    shot(gm, f"gm-policy-errors-{width}")
    gm.get_by_label("Thu").check()
    gm.get_by_label("Closing time").fill("20:00")
    gm.get_by_label("Time zone").fill("Europe/Berlin")
    gm.get_by_role("button", name="Set the policy", exact=True).click()
    assert "Rounds close Thu at 20:00 (Europe/Berlin)" in gm.inner_text("main")

    # +1 day, then an announcement: both reach red's page.
    gm.get_by_role("button", name="+1 day").click()
    assert "Done: GM extended round" in gm.inner_text(".notice")
    gm.get_by_label("An announcement").fill("Take your time this week.")
    gm.get_by_role("button", name="Send to every player").click()
    red.goto(red_url)
    assert "Take your time this week." in red.inner_text("#gm-announcement")
    assert red.evaluate("document.documentElement.scrollWidth") <= width
    shot(red, f"player-announcement-{width}")

    # The draw asks first; "No" changes nothing.
    gm.get_by_role("button", name="End the game as a draw…").click()
    assert "End the game as a draw?" in gm.inner_text("h2")
    shot(gm, f"gm-confirm-draw-{width}")
    gm.get_by_role("link", name="No, back to the console").click()
    assert "active" in gm.inner_text("main table")

    game = pages.new(viewport=viewport)
    game.goto(f"{base}/games/{created.game_id}")
    log = game.inner_text("ol.log")
    assert "GM extended round 1: deadline moved from" in log and "(Europe/Berlin)" in log
    assert "GM announcement: Take your time this week.\n" in log
    assert "{" not in log  # words, not JSON
    game.locator("ol.log").scroll_into_view_if_needed()
    shot(game, f"game-log-{width}")
