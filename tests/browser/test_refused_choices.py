"""The order form offers no combination the rules refuse without saying why, read by the
ruleset's own parser (universal, docs/rulesets/universal.md: "Only one unit can attack in
turn." and "Mortar: +3 power, can't hit enemy within 3 squares", judged from where its move
leaves it): once one unit's attack is chosen, every other unit's attacks are marked ✗ in
their lists with the reason, and a tap on the grid does not take them (the chosen order's
arrow lies under the pieces it crosses); the Mortar's moves that would leave it too close
to its target are marked too. And Send never refuses a set silently: without JavaScript
the page keeps every line in its list and marks the refused one by its number."""

from __future__ import annotations

from typing import Any

from tests.browser.conftest import BROWSER, PHONE
from tests.browser.flow import create_game, join, tap_square

pytestmark = BROWSER

MARKED = """() => Object.fromEntries([...document.querySelectorAll('form select[data-unit]')].map(s =>
  [s.id, [...s.options].filter(o => o.dataset.refused).map(o => [o.value, o.textContent])]))"""


# The labels and health numbers that something else is drawn over, at their middle.
HIDDEN = """() => [...document.querySelectorAll('svg.board text.label, svg.board text.hp')].filter(t => {
  const r = t.getBoundingClientRect(), top = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
  return !t.parentNode.contains(top);
}).map(t => t.textContent)"""


def attacks(page: Any) -> dict[str, list[str]]:
    """Each unit's attack lines, as its list offers them."""
    out: dict[str, list[str]] = {}
    for select in page.locator("form select[data-unit]").all():
        values = select.locator("option").evaluate_all("os => os.map(o => o.value)")
        found = [v for v in values if " attack " in v]
        if found:
            out[str(select.get_attribute("data-unit"))] = found
    return out


def test_the_lists_and_the_grid_mark_what_the_rules_refuse_together(served, pages, shot) -> None:
    base, _app = served
    # Six by six: a Mortar's move of two squares takes it within 3 squares of the enemy
    # line, and its attack's arrow crosses a piece of each side on its way.
    created = create_game(pages.new(), base, "Refused together", "red\nblue", options="width = 6\nheight = 6")
    red = pages.new(viewport=PHONE)
    red_url = join(red, created.invites["red"])
    join(pages.new(), created.invites["blue"])
    red.goto(red_url)
    offered = attacks(red)
    assert len(offered) >= 2, offered  # the Mortars reach blue's line in round 1
    (gunner, lines), (other, others) = sorted(offered.items())[:2]
    line = lines[0]
    with red.expect_response(lambda r: "/check" in r.url):
        red.get_by_label(f"{gunner} attack", exact=True).select_option(line)
    red.wait_for_function("() => document.querySelector('option[data-refused]') !== null")
    # The chosen attack's arrow lies under the pieces it crosses: no label or health hidden.
    assert red.locator("svg.board line.pending-order").count() == 1
    red.locator("svg.board").scroll_into_view_if_needed()
    assert red.evaluate(HIDDEN) == []
    marked = red.evaluate(MARKED)
    attack_list = red.get_by_label(f"{other} attack", exact=True).get_attribute("id")
    refused = dict(marked[attack_list])
    assert set(refused) == set(others), refused  # every attack of the other unit
    assert (f"✗ {others[0].split()[-1]} (not with your other orders: only one unit can attack each round"
            in refused[others[0]]), refused
    assert f"'{line}'" in refused[others[0]]  # the line it clashes with, by its text
    # The gunner's own moves that would leave it under 4 squares from its target.
    move_list = red.get_by_label(f"{gunner} move", exact=True).get_attribute("id")
    too_close = dict(marked[move_list])
    assert too_close, marked
    assert all(f"{line} would then be refused" in text for text in too_close.values()), too_close
    # A tap on the grid does not take a refused order: it says why.
    target = others[0].split()[-1]
    tap_square(red, red.locator(f'svg.board g.piece[data-id="{other}"]').get_attribute("data-square"))
    tap_square(red, red.locator(f'svg.board g.piece[data-id="{target}"]').get_attribute("data-square"))
    said = red.inner_text("#picked")
    assert said.startswith(f"{others[0]} is refused with your other orders: only one unit can attack each round")
    assert red.get_by_label(f"{other} attack", exact=True).input_value() == ""
    shot(red, "refused-choices-phone")
    # The gunner's attack taken back: nothing is marked any more.
    with red.expect_response(lambda r: "/check" in r.url):
        red.get_by_label(f"{gunner} attack", exact=True).select_option("")
    red.wait_for_function("() => document.querySelector('option[data-refused]') === null")


def test_send_without_javascript_keeps_every_line_and_numbers_the_refused_one(served, pages) -> None:
    base, _app = served
    created = create_game(pages.new(), base, "Refused by number", "red\nblue")
    red = pages.new(javascript=False)
    red_url = join(red, created.invites["red"], javascript=False)
    join(pages.new(), created.invites["blue"])
    red.goto(red_url)
    (first, firsts), (second, seconds) = sorted(attacks(red).items())[:2]
    red.get_by_label(f"{first} attack", exact=True).select_option(firsts[0])
    red.get_by_label(f"{second} attack", exact=True).select_option(seconds[0])
    red.get_by_role("button", name="Send orders").click()
    problems = " ".join(red.inner_text("div.error").split())
    assert (f"from a list {seconds[0]}: only one unit can attack each round "
            f"('{firsts[0]}' already attacks)") in problems, problems
    # The copy of the lines as sent marks the refused one by its number.
    sent = red.locator("ol.sent li")
    assert sent.count() == 2 and sent.nth(1).get_attribute("class") == "refused"
    # Both lines stay chosen, the refused list marked with the reason.
    assert red.get_by_label(f"{first} attack", exact=True).input_value() == firsts[0]
    refused = red.get_by_label(f"{second} attack", exact=True)
    assert refused.input_value() == seconds[0] and refused.get_attribute("aria-invalid") == "true"
    note = red.locator(f"#{refused.get_attribute('id')}-problem").inner_text()
    assert note.startswith("⚠ only one unit can attack each round"), note
    assert "You have not sent orders for this round yet" in red.inner_text("main")
