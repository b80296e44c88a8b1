"""A private game read through a spectator link, and the order form's reload, at 1280 and
390 pixels: the GM makes a link, a stranger is refused without it and reads the game with
it (no token left in the address bar), the GM revokes it; orders sent, then a reload that
sends nothing again."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import BROWSER, PHONE
from tests.browser.flow import create_game, first_moves, join, send, unlabelled

pytestmark = BROWSER
WIDE = {"width": 1280, "height": 900}
SIZES = [pytest.param(WIDE, id="1280"), pytest.param(PHONE, id="390")]


def fits(page: Any, viewport: dict[str, int]) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"], page.url


@pytest.mark.parametrize("viewport", SIZES)
def test_a_spectator_link_opens_a_private_game_until_the_gm_revokes_it(served, pages, shot, viewport) -> None:
    base, _app = served
    host, red, blue, stranger = (pages.new(viewport=viewport) for _ in range(4))
    created = create_game(host, base, "Closed doors", "red\nblue", public=False)
    red.goto(join(red, created.invites["red"]))
    blue.goto(join(blue, created.invites["blue"]))
    game_url = f"{base}/games/{created.game_id}"

    stranger.goto(game_url)
    refused = stranger.inner_text("main")
    assert "Closed doors" not in refused and "ask the game's GM for a spectator link" in refused
    fits(stranger, viewport)
    name = "wide" if viewport is WIDE else "phone"
    shot(stranger, f"private-refused-{name}")

    host.goto(created.gm_url)
    assert "No spectator link yet." in host.inner_text("#spectators")
    host.get_by_label("Who it is for").fill("Carol")
    host.get_by_role("button", name="Make a spectator link").click()
    assert "A spectator link is made for Carol" in host.inner_text("main")
    link = host.locator("a.spectator-link").first.inner_text().strip()
    assert link.startswith(f"{game_url}/watch/")
    assert unlabelled(host) == []
    fits(host, viewport)
    host.locator("#spectators").scroll_into_view_if_needed()
    shot(host, f"gm-spectators-{name}")

    stranger.goto(link)
    assert stranger.url == game_url  # on to the game page: the token left the address bar
    main = stranger.inner_text("main")
    assert "Closed doors" in main and "Follow this game" in main and "spectator link" in main
    hrefs = stranger.locator("a").evaluate_all("as => as.map(a => a.href)")
    token = link.rsplit("/", 1)[1]
    assert not [h for h in hrefs if token in h]
    fits(stranger, viewport)
    shot(stranger, f"spectator-game-{name}")
    record = stranger.request.get(f"{base}/api/games/{created.game_id}/record")
    assert record.status == 200 and record.json()["game_id"] == created.game_id

    host.goto(created.gm_url)
    host.get_by_role("button", name="Revoke Carol").click()
    assert "The spectator link for Carol is revoked" in host.inner_text("main")
    stranger.goto(game_url)
    assert "Closed doors" not in stranger.inner_text("main")
    assert stranger.request.get(f"{base}/api/games/{created.game_id}").status == 404


@pytest.mark.parametrize("viewport", SIZES)
def test_reloading_after_sending_orders_sends_nothing_again(served, pages, shot, viewport) -> None:
    base, _app = served
    host, red, blue = (pages.new(viewport=viewport) for _ in range(3))
    created = create_game(host, base, "Reload war", "red\nblue")
    red_url = join(red, created.invites["red"])
    blue.goto(join(blue, created.invites["blue"]))
    red.goto(red_url)
    red.wait_for_selector("text=Orders for round 1")
    send(red, first_moves(red, 1))
    notice = red.inner_text("#orders-notice")
    assert "stored as version 1" in notice
    assert red.url.split("#")[0] == red_url  # a GET after the redirect
    fits(red, viewport)
    shot(red, f"orders-sent-{'wide' if viewport is WIDE else 'phone'}")
    red.reload()
    assert red.locator("#orders-notice").count() == 0  # the notice was for once
    assert "Orders for round 1" in red.inner_text("main")
    send(red, {})
    assert "stored as version 2" in red.inner_text("#orders-notice")  # the reload stored no version
