"""Joining with a built force, as a person does, at desktop and phone widths: the builder
made from the ruleset's force schema shows the running cost and each refusal beside its
field as you type, the default force is one click, and the plain form works without script."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect
from sqlalchemy import select

from engine import find_ruleset
from service.db import session_scope
from service.models import Seat
from tests.browser.conftest import BROWSER, PHONE
from tests.browser.flow import unlabelled
from tests.browser.test_every_page import axe, violations  # noqa: F401  (the fixture)

pytestmark = BROWSER
WIDE = {"width": 1280, "height": 900}
VIEWPORTS = pytest.mark.parametrize("viewport", [WIDE, PHONE], ids=["desktop", "phone"])


def invite(app: Any, base: str, ruleset: str) -> tuple[str, str]:
    seats = [{"name": "alice"}] if ruleset == "heroes" else [{"name": "alice"}, {"name": "bob"}]
    created = app.test_client().post("/api/games", json={"ruleset": ruleset, "seats": seats}).json
    return created["id"], f"{base}/games/{created['id']}/join/{created['seats'][0]['invite_token']}"


def open_join(served: Any, pages: Any, viewport: dict[str, int], ruleset: str,
              cost: str | None = None) -> tuple[Any, str, Any]:
    """(app, game id, the join page of its first seat), once the running cost says `cost`."""
    base, app = served
    game_id, url = invite(app, base, ruleset)
    page = pages.new(viewport=viewport)
    page.goto(url)
    if cost:
        page.wait_for_selector(f"#fb-cost:has-text('Cost: {cost} points')")
    return app, game_id, page


def force_of(app: Any, game_id: str, name: str = "alice") -> Any:
    with session_scope(app) as s, s.begin():
        return s.scalars(select(Seat).where(Seat.game_id == game_id, Seat.name == name)).one().force


def no_sideways_scroll(page: Any) -> None:
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def joined(page: Any) -> None:
    page.get_by_role("button", name="Join the game with this force").click()
    page.wait_for_selector("text=You have joined")


@VIEWPORTS
def test_universal_a_refusal_beside_its_field_as_you_type(served, pages, shot, viewport) -> None:
    """Pw 0 is refused beside unit 1's Pw ("Pw must be between 1 and 30") before anything
    is sent; put back, the refusal goes and the named army joins."""
    app, game_id, page = open_join(served, pages, viewport, "universal", "19 of 20")
    pw = page.locator("[name='f.units.0.u.pw']")
    pw.fill("0")
    at_field = page.locator("[data-refusals-for='units.0.pw']")
    at_field.filter(has_text="unit 1 (Mortar): Pw must be between 1 and 30, not 0").wait_for()
    assert unlabelled(page) == []
    no_sideways_scroll(page)
    shot(page, f"force-builder-universal-refused-{viewport['width']}")
    pw.fill("1")
    expect(at_field).to_have_text("")  # a locator's wait: the page's CSP allows no evaluated strings
    page.locator("[name='f.units.0.u.name']").fill("Captain")
    joined(page)
    force = force_of(app, game_id)
    assert force["units"][0] == {"name": "Captain", "pw": 1, "ep": 1, "d": 5, "types": ["mortar"]}
    assert len(force["units"]) == len(find_ruleset("universal").default_force(0, {})["units"])


@VIEWPORTS
def test_jep1_the_running_budget_refuses_then_fits(served, pages, shot, viewport) -> None:
    """The default five cost 288 of 300; a knight for the first warrior makes 303 (74 for
    59), over the budget, said at the top of the force; a brute (63) makes 292, which joins."""
    app, game_id, page = open_join(served, pages, viewport, "jep1", "288 of 300")
    page.get_by_label("holds").first.select_option("p:preset:knight")
    page.wait_for_selector("#fb-cost:has-text('Cost: 303 of 300 points (over the budget)')")
    page.locator("[data-refusals-for='']").filter(
        has_text="the force costs 303 points, over the budget of 300").wait_for()
    no_sideways_scroll(page)
    shot(page, f"force-builder-jep1-over-{viewport['width']}")
    page.get_by_label("holds").first.select_option("p:preset:brute")
    page.wait_for_selector("#fb-cost:has-text('Cost: 292 of 300 points')")
    joined(page)
    assert force_of(app, game_id)["units"][0] == {"preset": "brute"}


@VIEWPORTS
def test_fivedice_a_custom_sheet_is_refused_at_its_field(served, pages, shot, viewport) -> None:
    """The first empty slot, made a custom sheet with attack 11: "attack must be between 0
    and 10" beside attack; emptied again, the four presets (239 of 250) join without it."""
    app, game_id, page = open_join(served, pages, viewport, "fivedice", "239 of 250")
    spare = page.locator("[name='f.units.4.$']")
    custom = spare.locator("option").nth(spare.locator("option").count() - 1).get_attribute("value")
    spare.select_option(custom)
    page.locator(f"[name='f.units.4.{custom}.attack']").fill("11")
    page.locator("[data-refusals-for='units.4.attack']").filter(
        has_text="attack must be between 0 and 10, not 11").wait_for()
    no_sideways_scroll(page)
    shot(page, f"force-builder-fivedice-refused-{viewport['width']}")
    spare.select_option("")
    page.get_by_label("holds").nth(3).select_option("p:preset:scout")  # mage (60) → scout (53)
    page.wait_for_selector("#fb-cost:has-text('Cost: 232 of 250 points')")
    joined(page)
    assert force_of(app, game_id)["units"] == [{"preset": p} for p in ("knight", "soldier", "archer", "scout")]


@VIEWPORTS
def test_heroes_pick_a_hero_by_its_card(served, pages, shot, viewport) -> None:
    """Each hero is a card with its S.U.P.E.R. line; picking Puck plays Puck."""
    app, game_id, page = open_join(served, pages, viewport, "heroes")
    cards = page.locator(".fb-card")
    assert cards.count() == 5
    assert "S 4, U 4, P 3, E 3, R 2; ATT 2, ARM 2" in cards.first.inner_text()
    page.get_by_role("radio", name="Puck").check()
    no_sideways_scroll(page)
    shot(page, f"force-builder-heroes-{viewport['width']}")
    joined(page)
    assert force_of(app, game_id)["hero"] == "puck"


def test_the_default_force_in_one_click_on_a_phone(served, pages, shot) -> None:
    base, app = served
    game_id, url = invite(app, base, "universal")
    page = pages.new(viewport=PHONE)
    page.goto(url)
    page.get_by_role("button", name="Join with the default force").click()
    page.wait_for_selector("text=You have joined")
    assert force_of(app, game_id) == find_ruleset("universal").default_force(0, {})


def test_without_javascript_the_form_posts_and_shows_the_refusal(served, pages, shot) -> None:
    base, app = served
    game_id, url = invite(app, base, "universal")
    page = pages.new(javascript=False)
    page.goto(url)
    page.locator("[name='f.units.1.u.d']").fill("6")
    page.get_by_role("button", name="Join the game with this force").click()
    assert page.locator("p.error").filter(has_text="each reason is beside its field").count() == 1
    refusal = page.locator("[data-refusals-for='units.1']")
    assert "defence 6 (+1) cannot be bought" in refusal.inner_text()
    shot(page, "force-builder-nojs-refused")
    page.locator("[name='f.units.1.u.d']").fill("7")
    page.get_by_role("button", name="Join the game with this force").click()
    page.wait_for_selector("text=You have joined")
    assert force_of(app, game_id)["units"][1]["d"] == 7


def test_the_builder_has_no_wcag_violation(served, pages, axe) -> None:  # noqa: F811  (the fixture)
    """axe-core finds no WCAG 2.1 A/AA violation on the join page of any ruleset, at either
    width, with a refusal showing."""
    for viewport in (WIDE, PHONE):
        for ruleset in ("universal", "jep1", "fivedice", "heroes"):
            _, _, page = open_join(served, pages, viewport, ruleset)
            if ruleset == "universal":
                page.locator("[name='f.units.0.u.pw']").fill("0")
                page.locator("[data-refusals-for='units.0.pw']").filter(has_text="Pw must be").wait_for()
            assert violations(page, axe) == [], (ruleset, viewport)
            no_sideways_scroll(page)
