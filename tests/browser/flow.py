"""Steps a person takes in the browser, shared by the browser tests."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from playwright.sync_api import Error as PlaywrightError

HEX64 = re.compile(r"^[0-9a-f]{64}$")
UNLABELLED = """() => Array.from(document.querySelectorAll(
    'input:not([type=hidden]), select, textarea, button')).filter(el => {
  if (el.tagName === 'BUTTON') return !(el.getAttribute('aria-label') || el.textContent.trim());
  return !(el.labels && el.labels.length) && !el.getAttribute('aria-label');
}).map(el => el.outerHTML.slice(0, 120))"""

# Where a square of the grid is on the screen, once scrolled into the viewport (from the
# geometry the grid carries: data-cell, data-margin, data-columns, data-rows), and whether
# the browser has a touch screen.
SQUARE_POINT = """square => {
  const svg = document.querySelector('svg.board'), d = svg.dataset;
  const cell = Number(d.cell), margin = Number(d.margin), rows = Number(d.rows);
  const col = d.columns.split(' ').indexOf(square.replace(/[0-9]+$/, ''));
  const row = Number(square.replace(/^[a-z]+/, ''));
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  const x = (margin + col * cell + cell / 2) * scale, y = (margin + (rows - row) * cell + cell / 2) * scale;
  const pan = svg.closest('.grid-pan.zoomed');  // a zoomed grid pans inside its frame
  if (pan) {
    const frame = pan.getBoundingClientRect(), at = svg.getBoundingClientRect();
    pan.scrollLeft += at.x + x - frame.x - pan.clientWidth / 2;
    pan.scrollTop += at.y + y - frame.y - pan.clientHeight / 2;
  }
  window.scrollBy(0, svg.getBoundingClientRect().y + y - window.innerHeight / 2);
  const box = svg.getBoundingClientRect();
  return [box.x + x, box.y + y, navigator.maxTouchPoints > 0];
}"""


@dataclass
class Created:
    game_id: str
    invites: dict[str, str]  # seat → invitation link
    gm_url: str


def create_game(page: Any, base: str, title: str, seats: str, *, public: bool = True, options: str = "") -> Created:
    """From the home page's form: universal ruleset, the given seat lines and options."""
    page.goto(base + "/")
    page.locator("select[name=ruleset]").select_option("universal")
    page.get_by_label("Title").fill(title)
    page.get_by_label("Seats, one a line").fill(seats)
    if options:
        page.get_by_label(re.compile("^Options, one a line")).fill(options)
    page.get_by_label(re.compile("public: listed")).set_checked(public)
    page.get_by_role("button", name="Create the game").click()
    page.wait_for_selector("text=is created")
    invites = {}
    for item in page.locator("ul.invites li").all():
        invites[str(item.get_attribute("data-seat"))] = item.locator("a.invite-link").inner_text().strip()
    game_id = page.locator("h2").inner_text().split()[1]
    return Created(game_id, invites, page.locator("#gm-link").inner_text().strip())


def join(page: Any, invite: str, *, javascript: bool = True) -> str:
    """Join through the invitation link; returns the player page link shown once."""
    page.goto(invite)
    entropy = page.get_by_label("Your entropy")
    if javascript:  # the page makes 32 random bytes with crypto.getRandomValues
        assert HEX64.match(entropy.input_value()), entropy.input_value()
    else:
        assert entropy.input_value() == ""
    page.get_by_role("button", name="Join the game").click()
    page.wait_for_selector("text=You have joined")
    return str(page.locator(".secret a").first.inner_text().strip())


def send(page: Any, choices: dict[str, str], free: str = "", ready: bool | None = None) -> None:
    """Choose each line in its unit's list of that verb (by its label, like `A1 move`; a
    unit's "" sets all its lists to no order) and write the free-text box, then send;
    `ready` ticks or unticks "These are my final orders" (None: as the form has it)."""
    for unit, line in choices.items():
        if line:
            page.get_by_label(f"{unit} {line.split()[1]}", exact=True).select_option(line)
        else:
            for select in page.locator(f"form select[data-unit='{unit}']").all():
                select.select_option("")
    page.get_by_label("More orders").fill(free)
    if ready is not None:
        page.get_by_label("These are my final orders (ready)").set_checked(ready)
    click_send(page, lambda: page.get_by_role("button", name="Send orders").click())


# The page asks the game before it sends: Send ends on the answer's page, or (lines the
# rules refuse together) on the same page with the problems named above Send.
SENT_OR_REFUSED = """() => !window.beforeSend || !document.getElementById('order-problems').hidden"""


def click_send(page: Any, click: Any) -> None:
    page.evaluate("window.beforeSend = true")
    click()
    for _ in range(600):
        try:
            if page.evaluate(SENT_OR_REFUSED):
                break
        except PlaywrightError:  # the old page's context went away mid-navigation: ask the new one
            continue
        page.wait_for_timeout(50)
    else:
        raise AssertionError("Send neither left the page nor named a problem")
    page.wait_for_load_state()


def first_moves(page: Any, count: int = 2) -> dict[str, str]:
    """For the player's first `count` units that can move, the first 'move' line in its list
    to a square no other chosen unit moves to (two units may not end on one square)."""
    out: dict[str, str] = {}
    taken: set[str] = set()
    for select in page.locator("form select[data-unit]").all():
        unit = select.get_attribute("data-unit")
        # Each option names its order's role and square (data-role, data-square).
        options = select.locator("option").evaluate_all(
            "os => os.map(o => [o.value, o.dataset.role || '', o.dataset.square || ''])")
        move = next(((v, sq) for v, role, sq in options if role == "move" and sq not in taken), None)
        if move:
            out[unit] = move[0]
            taken.add(move[1])
        if len(out) == count:
            break
    return out


def an_attack(page: Any, besides: dict[str, str]) -> dict[str, str]:
    """One 'attack' line of a unit not in `besides` (attacks roll dice), or {} if none can."""
    for select in page.locator("form select[data-unit]").all():
        unit = select.get_attribute("data-unit")
        values = select.locator("option").evaluate_all("os => os.map(o => o.value)")
        attack = next((v for v in values if " attack " in v), None)
        if attack and unit not in besides:
            return {unit: attack}
    return {}


def unlabelled(page: Any) -> list[str]:
    """The page's visible controls that have no label (or a button with no name)."""
    return list(page.evaluate(UNLABELLED))


def tap_square(page: Any, square: str) -> None:
    """Tap the middle of a square of the page's grid (a touch where the page's context has a
    touch screen, else a mouse click), scrolled into the viewport first."""
    x, y, touch = page.evaluate(SQUARE_POINT, square)
    if touch:
        page.touchscreen.tap(x, y)
    else:
        page.mouse.click(x, y)
