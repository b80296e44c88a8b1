"""A round played in the browser: create, join twice, orders with errors and amendments,
the round resolving (the open page refreshes itself), past rounds, the verifier, the GM."""

from __future__ import annotations

from typing import Any

from tests.browser.conftest import BROWSER, PHONE
from tests.browser.flow import an_attack, create_game, first_moves, join, send, unlabelled

pytestmark = BROWSER


def test_two_players_play_rounds_in_the_browser(served, pages, shot) -> None:
    base, app = served
    host = pages.new()
    created = create_game(host, base, "Browser skirmish", "red red@example.org\nblue blue@example.org")
    assert set(created.invites) == {"red", "blue"}
    shot(host, "created")
    host.get_by_role("link", name="The game page").click()
    assert "status waiting" in host.inner_text("main")

    red, blue = pages.new(), pages.new()
    red_url = join(red, created.invites["red"])
    shot(red, "joined")
    blue_url = join(blue, created.invites["blue"])
    red.goto(red_url)
    blue.goto(blue_url)
    assert "Orders for round 1" in red.inner_text("main")
    host.wait_for_selector("text=status active")  # the waiting game's page refreshed itself

    # A bad line in the text box: the page asks before sending, names it as the player sees
    # it (the box's first line; the list's line comes before it in the text sent), sends
    # nothing and keeps the text.
    moves = first_moves(red)
    assert len(moves) >= 2
    units = sorted(moves)
    send(red, {units[0]: moves[units[0]]}, f"{units[1]} fly away\n")
    errors = red.locator("#order-problems")
    assert "nothing was sent" in errors.inner_text()
    assert f"box line 1 {units[1]} fly away" in " ".join(errors.inner_text().split())
    assert red.get_by_label("More orders").input_value() == f"{units[1]} fly away\n"
    assert "You have not sent orders for this round yet" in red.inner_text("main")
    shot(red, "orders-error")

    # Fixed: the choice and the text box together are version 1; amended, version 2.
    send(red, {units[0]: moves[units[0]]}, moves[units[1]])
    assert "stored as version 1" in red.inner_text(".notice")
    assert moves[units[0]] in red.inner_text(".notice") and moves[units[1]] in red.inner_text(".notice")
    # The form starts from the orders that count: amending A2 to hold keeps A1's line. Red
    # means to finish later: not final, so the round waits for red.
    assert red.get_by_label(f"{units[1]} move", exact=True).input_value() == moves[units[1]]
    assert red.get_by_label("These are my final orders (ready)").is_checked()  # ready by default
    send(red, {units[1]: ""}, ready=False)
    notice = red.inner_text(".notice")
    assert "stored as version 2" in notice and moves[units[1]] not in notice and moves[units[0]] in notice
    assert "You are NOT ready: the round waits for you until its deadline" in notice
    assert not red.get_by_label("These are my final orders (ready)").is_checked()  # remembered
    assert "You are not ready" in red.inner_text("#todo")
    shot(red, "orders")
    phone = pages.new(viewport=PHONE)
    phone.goto(red.url)
    phone.locator("#send").scroll_into_view_if_needed()
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shot(phone, "orders-not-ready-phone")

    # Blue's orders are in and final, but red is not ready: the round stays open.
    blue_attack = an_attack(blue, {})
    assert blue_attack, "blue's mortars can reach red's line in round 1"
    blue_moves = {u: line for u, line in first_moves(blue).items() if u not in blue_attack}
    blue_moves.update(blue_attack)
    send(blue, blue_moves)
    assert "You are ready: the round closes as soon as every expected player is ready" in blue.inner_text(".notice")
    assert "Orders for round 1" in blue.inner_text("main")
    # Red's final orders close it; blue's open page notices and reloads itself.
    send(red, {}, ready=True)
    blue.wait_for_selector("text=Orders for round 2", timeout=30_000)
    # The turn leads each player's page: what round 1 did to your units, then what to do now.
    red_notice = red.inner_text(".notice")
    assert "last orders it waited for" in red_notice and "round 2 is open" in red_notice
    assert "Round 1: your orders are stored" not in red.inner_text("main")
    assert "no orders to give" not in red.inner_text("main")
    turn = red.locator("#turn")
    assert turn.locator("h2").inner_text() == "Round 1: what happened to you"
    assert turn.locator("li.happening").count() > 0
    todo = red.inner_text("#todo")
    assert "Round 2 needs your orders" in todo and "Still without orders" in todo
    assert "your time:" in todo  # the deadline in the browser's own zone
    shot(red, "turn")
    phone.goto(red.url)
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shot(phone, "turn-phone")
    game = pages.new()
    game.goto(f"{base}/games/{created.game_id}")
    main = game.inner_text("main")
    assert "round 2" in main and "Round 1" in main
    assert game.locator("svg.board").count() == 1
    moved = {unit: line for unit, line in blue_moves.items() if " move " in line}
    assert moved
    for unit, line in moved.items():  # the new grid: blue's moved units stand on their targets
        row = game.locator("table.legend tr", has=game.get_by_text(unit, exact=True)).first  # A1, not A12
        assert row.locator("td").nth(1).inner_text() == line.split()[-1]
    assert game.locator("table.rolls tr.roll").count() > 0  # blue's attack rolled dice
    assert unlabelled(game) == []
    shot(game, "game")

    # Round 2. Red starts changing sent orders: the page offers the news instead of reloading.
    send(red, first_moves(red))
    red.locator("#unit-0").select_option(index=1)
    send(blue, first_moves(blue))
    red.wait_for_selector("#live:not([hidden])")
    assert "round 3" in red.inner_text("#live") and "Orders for round 2" in red.inner_text("main")
    red.get_by_role("link", name="Show it").click()
    red.wait_for_selector("text=Orders for round 3")
    game.get_by_role("heading", name="Round 2", exact=True).wait_for()  # the page refreshed itself
    game.get_by_role("link", name="round 2", exact=True).first.click()
    assert "round 2" in game.locator("h2").inner_text()
    game.get_by_role("link", name="← round 1").click()
    assert "round 1" in game.locator("h2").inner_text()
    for line in (moves[units[0]], *blue_moves.values()):
        assert line in game.inner_text("main")
    shot(game, "round")

    # The verifier, from the game's own link: every roll green.
    game.get_by_role("link", name="Check these dice").first.click()
    game.wait_for_selector("#summary[data-done=yes]", timeout=180_000)
    assert game.get_attribute("#summary", "data-status") == "partial", game.inner_text("#summary")
    rolls = sum(len(step["rolls"]) for step in app.test_client().get(
        f"/api/games/{created.game_id}/record").json["steps"])
    assert game.locator("tr.roll.bad").count() == 0
    assert game.locator("tr.roll.ok").count() == rolls > 0
    assert game.locator("tr.step.ok").count() == 3
    shot(game, "verifier")

    gm_pauses_and_resumes(pages, shot, created.gm_url, red, blue, f"{base}/games/{created.game_id}")


def gm_pauses_and_resumes(pages: Any, shot: Any, gm_url: str, red: Any, blue: Any, game_url: str) -> None:
    gm = pages.new()
    gm.goto(gm_url)
    gm.get_by_role("button", name="Pause").click()
    notice = gm.inner_text(".notice")
    assert "GM paused the game: no round closes until it resumes" in notice
    assert "Every player has been told" in notice
    assert "paused" in gm.inner_text("main")
    assert unlabelled(gm) == []
    shot(gm, "gm")
    send(red, first_moves(red))
    send(blue, first_moves(blue))
    assert "Orders for round 3" in blue.inner_text("main")  # paused: the round stays open
    viewer = pages.new()
    viewer.goto(game_url)
    assert "Paused by the GM since" in viewer.inner_text("#gm-paused")
    assert "Orders sent during the pause are kept" in blue.inner_text("#gm-paused")
    gm.get_by_role("button", name="Resume").click()
    assert "GM resumed the game after a pause of" in gm.inner_text(".notice")
    viewer.wait_for_selector("text=round 4")  # the page refreshed itself
    assert "Paused by the GM" not in viewer.inner_text("main")
    # The resume closed round 3 at once: its banner went with it, into the schedule log.
    assert viewer.locator("#gm-latest").count() == 0
