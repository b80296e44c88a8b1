"""A whole game of each ruleset played to its end by tapping only, on a 390-px phone with a
touch screen: two players in two browser contexts join with one tap, then every round each
taps a unit and then a target or a square on the grid (a button where one tap could mean
more than one order, a list choice to take back a refused order), and sends. The rounds
resolve through the real service (the embedded default). Nothing is typed.

The players are simple bots that read only the page: their units and the other pieces from
the grid (each piece's title names its side), the orders each unit may take from its lists
(data-role, data-square, data-target). Each unit aims at a piece it has an order against
(saving a civvie first, shooting rather than striking), else steps to the square that
brings it nearest a piece it could aim at. Small grids and a round cap keep each game short.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError

from engine.grid import distance, parse_square
from tests.browser.conftest import BROWSER, PHONE
from tests.browser.flow import click_send, tap_square

pytestmark = BROWSER

# Each ruleset's options for a short game: a 6 x 6 grid and a round cap (the duels of jep1
# and fivedice mostly end before it, with the last side standing).
GAMES = {
    "universal": {"width": 6, "height": 6, "max_rounds": 4},
    "heroes": {"width": 6, "height": 6, "max_rounds": 4},
    "jep1": {"width": 6, "height": 6, "max_rounds": 10},
    "fivedice": {"width": 6, "height": 6, "max_rounds": 10},
}
SEATS = ("red", "blue")
LISTS = """() => [...document.querySelectorAll('form select[data-unit]')].map(s => ({
    unit: s.dataset.unit, id: s.id,
    options: [...s.options].filter(o => o.value).map(o => ({value: o.value, role: o.dataset.role,
        square: o.dataset.square || null, target: o.dataset.target || null}))}))"""
PIECES = """() => [...document.querySelectorAll('svg.board g.piece[data-id]')].map(g =>
    [g.dataset.id, g.dataset.square, g.querySelector('title').textContent])"""
OWNER = re.compile(r"^\S+ \(([^,]+),")


@dataclass
class Choice:
    unit: str
    value: str  # the order's text, as its list offers it
    square: str  # the square to tap after the unit


def far(a: str, b: str) -> int:
    return distance(parse_square(a), parse_square(b))


def choices(page: Any, seat: str) -> tuple[list[Choice], dict[str, str]]:
    """What the bot taps this round, one choice a unit, read from the page; and where
    every piece stands (id → square)."""
    at: dict[str, str] = {}
    owner: dict[str, str] = {}
    for piece, square, title in page.evaluate(PIECES):
        at[piece], owner[piece] = square, OWNER.match(title).group(1)  # type: ignore[union-attr]
    options: dict[str, list[dict[str, Any]]] = {}
    for lst in page.evaluate(LISTS):
        options.setdefault(lst["unit"], []).extend(lst["options"])
    mine = {p for p, side in owner.items() if side == seat}
    aimed = {o["target"] for opts in options.values() for o in opts if o["target"] in at} - mine
    goals = [at[p] for p in aimed] or [at[p] for p in at if p not in mine]
    out: list[Choice] = []
    taken: set[str] = set()
    for unit, opts in options.items():
        if unit not in at:
            continue
        aims = [o for o in opts if o["target"] in aimed]
        best = ([o for o in aims if o["value"].split()[1] == "save"]
                or [o for o in aims if o["role"] in ("shot", "spell")] or aims)
        if best:
            out.append(Choice(unit, best[0]["value"], at[best[0]["target"]]))
            continue
        steps = [o for o in opts if o["role"] == "move" and o["square"] and o["square"] not in taken]
        if not steps or not goals:
            continue
        nearest = min(steps, key=lambda o: min(far(o["square"], g) for g in goals))
        if min(far(nearest["square"], g) for g in goals) < min(far(at[unit], g) for g in goals):
            out.append(Choice(unit, nearest["value"], nearest["square"]))
            taken.add(nearest["square"])
    return out, at


@dataclass
class Tally:
    orders: int = 0  # orders chosen by tapping the grid
    alternatives: int = 0  # of those, chosen with a button among the orders one tap could mean


def tap_orders(page: Any, seat: str, tally: Tally, shot: Any, name: str | None) -> None:
    """Tap this round's orders on the grid, counted in `tally`; the first time a button is
    needed, a screenshot `name` (if given) of the grid and the buttons."""
    active = page.locator("form select[data-unit]").first.get_attribute("data-unit")
    chosen, at = choices(page, seat)
    taken: list[Choice] = []
    for choice in chosen:
        if choice.unit != active:
            tap_square(page, at[choice.unit])
            assert f"{choice.unit} chosen" in page.inner_text("#picked")
            active = choice.unit
        tap_square(page, choice.square)
        said = page.inner_text("#picked")
        if said.startswith(f"{choice.value} is refused with your other orders"):
            continue  # the lists already hold an order the rules refuse with it: not taken
        if f"{choice.value} chosen" not in said:
            # One tap there could mean more than one order: the picker offers a button each.
            page.locator("#picked-choices").get_by_role("button", name=choice.value, exact=True).tap()
            said = page.inner_text("#picked")
            if name and not tally.alternatives:
                shot(page, name, page.locator(".play-grid"))
            tally.alternatives += 1
        assert said.startswith(f"{choice.value} chosen"), said
        lists = page.locator(f'form select[data-unit="{choice.unit}"]').evaluate_all("ss => ss.map(s => s.value)")
        assert choice.value in lists, (choice, lists)
        taken.append(choice)
        tally.orders += 1
    # Every order that goes somewhere is drawn as an arrow before sending.
    assert page.locator("svg.board line.pending-order").count() == sum(1 for c in taken if c.square != at[c.unit])


def send_by_tapping(page: Any) -> None:
    """Tap Send; where orders are refused, take each refused list back to its empty choice
    (the refusal names the line picked from a list: `from a list A2 attack B1`) and send again."""
    for _ in range(5):
        click_send(page, lambda: page.get_by_role("button", name="Send orders").tap())
        if page.locator("#order-problems").is_hidden():
            assert "stored as version" in page.inner_text(".notice")
            # the browser computed the receipt of what it sent, and compared it with the answer
            check = page.locator("#receipt-check")
            check.wait_for(state="visible")
            said = check.inner_text()
            assert "it matches the answer" in said and "holds the lines you sent" in said, said
            return
        refused = re.findall(r"from a list (\S+ \S+)", page.inner_text("#order-problems ul"))
        assert refused, page.inner_text("#order-problems")
        for label in refused:
            page.get_by_label(label, exact=True).select_option("")
    raise AssertionError(f"orders still refused: {page.inner_text('#order-problems')}")


def visit(page: Any, url: str, wanted: str) -> None:
    """The player page once it shows `wanted`. An open player page reloads itself when the
    round resolves, so it is only waited for; another page is left for it."""
    if page.url != url:
        try:
            page.goto(url)
        except PlaywrightError as exc:  # the page left was reloading itself under this one
            if "ERR_ABORTED" not in str(exc) and "interrupted by another navigation" not in str(exc):
                raise
    page.wait_for_selector(f"text={wanted}")


def status(app: Any, game_id: str) -> dict[str, Any]:
    return dict(app.test_client().get(f"/api/games/{game_id}").json)


def wait_for_round(app: Any, game_id: str, number: int) -> dict[str, Any]:
    """The game once it has left round `number` (resolved, or finished)."""
    for _ in range(600):
        game = status(app, game_id)
        if game["status"] == "finished" or (game["round"] or 0) > number:
            return game
        time.sleep(0.1)
    raise AssertionError(f"round {number} did not resolve: {game}")


@pytest.mark.parametrize("ruleset", list(GAMES))
def test_a_whole_game_by_tapping_on_a_phone(served, pages, shot, ruleset) -> None:
    _base, app = served
    created = app.test_client().post("/api/games", json={
        "ruleset": ruleset, "title": f"Tapped {ruleset}", "options": GAMES[ruleset],
        "seats": [{"name": seat} for seat in SEATS]}).json
    players: dict[str, Any] = {}
    for seat, invite in zip(SEATS, created["seats"], strict=True):
        page = pages.new(viewport=PHONE, touch=True)
        page.goto(invite["join_url"])
        page.get_by_role("button", name="Join with the default force").tap()
        page.wait_for_selector("text=You have joined")
        players[seat] = (page, page.locator(".secret a").first.inner_text().strip())
    game_id, number, tally = created["id"], 1, Tally()
    game = status(app, game_id)
    while game["status"] != "finished":
        number = game["round"]
        for seat in game["expected"]:
            page, url = players[seat]
            visit(page, url, f"Orders for round {number}")
            assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
            if number == 2:  # the turn leads the page: what round 1 did, then what to do now
                assert page.locator("#turn h2").inner_text() == "Round 1: what happened to you"
            tap_orders(page, seat, tally, shot, "grid-choices-phone" if ruleset == "jep1" else None)
            send_by_tapping(page)
        game = wait_for_round(app, game_id, number)
        assert number <= GAMES[ruleset]["max_rounds"]
    assert tally.orders > number, "the bots tapped orders, not only sent empty forms"
    if ruleset == "jep1":  # its archer and scout may strike or shoot at one enemy: a button each
        assert tally.alternatives > 0
    for page, url in players.values():
        visit(page, url, "Status finished")
        assert "Status finished" in " ".join(page.inner_text("main").split())
        assert re.search(r"Winner: \w+|A draw", page.inner_text("main"))
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    record = app.test_client().get(f"/api/games/{game_id}/record").json
    assert record["outcome"] == game["outcome"] and len(record["steps"]) == number + 1
