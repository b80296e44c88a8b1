"""Orders by tapping the grid: tap one of your units, then a square to move it or an enemy
to attack it; each chosen order is drawn as an arrow before sending. At 1280 and 390 px."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import BROWSER, DESKTOP, PHONE
from tests.browser.flow import an_attack, create_game, join, tap_square

pytestmark = BROWSER


def _square_of(page: Any, unit: str) -> str:
    return page.locator(f'svg.board g.piece[data-id="{unit}"]').get_attribute("data-square")


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["wide", "phone"])
def test_tap_a_unit_then_a_square_then_an_enemy(served, pages, shot, viewport) -> None:
    base, _app = served
    host = pages.new()
    created = create_game(host, base, "Tapping", "red\nblue")
    red = pages.new(viewport=viewport)
    red_url = join(red, created.invites["red"])
    join(pages.new(), created.invites["blue"])
    red.goto(red_url)
    assert "You are red: your units are A1, A2" in red.inner_text("p.you")
    assert "starting from the bottom edge" in red.inner_text("p.you")
    # The very first tap, on the unit whose list comes first, chooses it (it is not taken
    # as an order of that unit against itself).
    first = red.locator("form select[data-unit]").first.get_attribute("data-unit")
    tap_square(red, _square_of(red, first))
    assert red.inner_text("#picked") == f"{first} chosen: tap a square to move it there, or an enemy to attack it."
    tap_square(red, _square_of(red, first))  # tapped again, it stays chosen
    assert "has no order" not in red.inner_text("#picked")
    attack = an_attack(red, {})
    assert attack, "a mortar can reach blue's line in round 1"
    gunner, line = next(iter(attack.items()))
    target = line.split()[-1]
    # Another unit, chosen by tapping it, moved by tapping a square its list offers.
    lists = [s for s in red.locator("form select[data-unit]").all() if s.get_attribute("data-unit") != gunner]
    runner = lists[0].get_attribute("data-unit")
    move = lists[0].locator('option[data-role="move"]').first
    move_line, move_square = move.get_attribute("value"), move.get_attribute("data-square")
    tap_square(red, _square_of(red, runner))
    assert f"{runner} chosen" in red.inner_text("#picked"), pages.errors
    tap_square(red, move_square)
    assert red.locator(f'select[data-unit="{runner}"]').first.input_value() == move_line
    assert red.locator("svg.board line.pending-order").count() == 1  # the arrow before sending
    # Tap the gunner, then the enemy: its attack list takes the attack on that enemy.
    tap_square(red, _square_of(red, gunner))
    tap_square(red, _square_of(red, target))
    chosen = [s.input_value() for s in red.locator(f'select[data-unit="{gunner}"]').all()]
    assert line in chosen, chosen
    assert red.locator("svg.board line.pending-order").count() == 2
    # The arrows start and end at the pieces' edges: none lies over a label.
    over = red.evaluate("""() => {
      const ends = [...document.querySelectorAll('svg.board line.pending-order')].flatMap(l =>
        [[l.x1.baseVal.value, l.y1.baseVal.value], [l.x2.baseVal.value, l.y2.baseVal.value]]);
      return [...document.querySelectorAll('svg.board text.label, svg.board text.hp')].filter(t => {
        const b = t.getBBox();
        return ends.some(([x, y]) => x >= b.x && x <= b.x + b.width && y >= b.y && y <= b.y + b.height);
      }).map(t => t.textContent);
    }""")
    assert over == [], over
    if viewport == PHONE:
        assert red.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shot(red, f"grid-orders-{'phone' if viewport == PHONE else 'wide'}")
    # A second attack typed in the box: the rules refuse it with the others (one attack a
    # side a round), so the page names the line before anything is sent and keeps the text.
    sent: list[str] = []
    red.on("request", lambda r: sent.append(r.url) if r.method == "POST" and "/check" not in r.url else None)
    red.get_by_label("More orders").fill(line)
    red.get_by_role("button", name="Send orders").click()
    problems = red.locator("#order-problems")
    problems.wait_for(state="visible")
    assert f"box line 1 {line}: only one unit can attack each round" in problems.inner_text()
    assert sent == [] and red.get_by_label("More orders").input_value() == line
    assert red.locator(f'select[data-unit="{gunner}"]').first.get_attribute("aria-invalid") is None
    if viewport == PHONE:
        shot(red, "refused-before-sending-phone")
    red.get_by_label("More orders").fill("")
    red.get_by_role("button", name="Send orders").click()
    notice = red.locator("#orders-notice").inner_text()
    assert "stored as version 1" in notice and move_line in notice and line in notice


def test_the_grid_zooms_on_a_phone_with_readable_labels(served, pages, shot) -> None:
    """At 390 px the grid starts zoomed: labels and health numbers at least 11 px, the grid
    panning inside its frame, the page not scrolling sideways. Fitted to the screen the
    labels shrink; the player's choice is remembered on the next visit."""
    base, _app = served
    created = create_game(pages.new(), base, "Zoom", "red\nblue")
    red = pages.new(viewport=PHONE)
    red_url = join(red, created.invites["red"])
    join(pages.new(), created.invites["blue"])
    red.goto(red_url)

    def smallest(kind: str) -> float:
        return min(float(t.bounding_box()["height"]) for t in red.locator(f"svg.board text.{kind}").all())

    assert smallest("label") >= 11 and smallest("hp") >= 11
    assert red.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    frame = red.locator(".grid-pan.zoomed")
    assert frame.get_attribute("tabindex") == "0"  # the panning frame is reachable by keyboard
    assert red.evaluate("e => e.scrollWidth > e.clientWidth", frame.element_handle())
    shot(red, "grid-zoomed-phone")
    red.get_by_role("button", name="Fit the grid to the screen").click()
    assert smallest("label") < 11
    red.reload()
    assert red.locator(".grid-pan.zoomed").count() == 0  # remembered: still fitted
    red.get_by_role("button", name="Zoom the grid").click()
    red.reload()
    assert red.locator(".grid-pan.zoomed").count() == 1 and smallest("hp") >= 11
