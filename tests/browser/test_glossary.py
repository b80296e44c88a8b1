"""The stat strings' glossary on a phone: every stat in the Your units table and the game
page's legend is an <abbr> with its meaning as the title, and the same meanings are one
tap away below each table (a <details>), with no sideways scrolling at 390 px."""

from __future__ import annotations

from tests.browser.conftest import BROWSER, PHONE
from tests.browser.flow import create_game, join

pytestmark = BROWSER

STAT_LINE = "a stat line, like 1/4/5: Endurance Points, Power, Defence"  # universal's glossary


def test_the_glossary_is_a_tap_away_on_a_phone(served, pages, shot) -> None:
    base, _app = served
    created = create_game(pages.new(), base, "Words", "red\nblue")
    red = pages.new(viewport=PHONE, touch=True)
    red_url = join(red, created.invites["red"])
    join(pages.new(), created.invites["blue"])
    red.goto(red_url)
    stat = red.locator("table abbr", has_text="1/").first
    assert stat.get_attribute("title") == STAT_LINE
    words = red.locator("#unit-words")
    meaning = words.locator("dd", has_text=STAT_LINE)
    assert not meaning.is_visible()  # folded until asked for
    words.locator("summary").tap()
    assert meaning.is_visible()
    assert words.locator("dt", has_text="EP/Pw/D").is_visible()
    assert red.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    meaning.scroll_into_view_if_needed()
    shot(red, "glossary-phone")
    game = pages.new(viewport=PHONE, touch=True)
    game.goto(f"{base}/games/{created.game_id}")
    legend = game.locator("#legend-words")
    legend.locator("summary").tap()
    assert legend.locator("dd", has_text=STAT_LINE).is_visible()
    assert game.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
