"""The player's dashboard in the browser: a one-time link from the mailbox, games, mail settings."""

from __future__ import annotations

import re

import pytest

from service.web.mailbox import mailbox_link
from tests.browser.conftest import BROWSER, PHONE
from tests.browser.flow import first_moves, send, unlabelled
from tests.dashboard.test_signin import new_game

pytestmark = BROWSER


def test_sign_in_by_mail_see_games_change_mail_and_send_orders(served, pages, shot) -> None:
    base, app = served
    client = app.test_client()
    app.config["WTF_CSRF_ENABLED"] = False  # the API set-up only; the browser below posts real tokens
    new_game(client, [{"name": "red", "email": "red@example.org"}, {"name": "blue", "email": "blue@example.org"}])
    new_game(client, [{"name": "amber", "email": "red@example.org"}, {"name": "teal", "email": "t@example.org"}],
             "Second front")
    app.config["WTF_CSRF_ENABLED"] = True

    page = pages.new()
    page.goto(mailbox_link(app, base) or "")  # the machine's own user opens the printed link once
    page.goto(base + "/")
    page.get_by_role("navigation").get_by_role("link", name="Your games").click()
    assert unlabelled(page) == []
    page.get_by_label("Your e-mail address").fill("red@example.org")
    page.get_by_role("button", name="Mail me a sign-in link").click()
    assert "a sign-in link is on its way" in page.inner_text(".notice")
    page.get_by_role("link", name="mailbox", exact=True).click()
    page.get_by_role("link", name="Your sign-in link").first.click()
    page.wait_for_url(re.compile(r"/mailbox/[0-9]+$"))  # the mail itself, not the list it left
    found = re.search(r"http://[^\s\"'<>]+/signin/[0-9]+\.[a-z2-7]+", page.content())  # any part of the mail
    assert found
    link = found.group(0)
    page.goto(link)
    page.get_by_role("button", name="Sign in").click()
    assert "2 games wait for your orders" in page.inner_text("#summary")
    rows = page.locator("table.games tr.waits")
    assert rows.count() == 2
    assert "waiting for you" in rows.first.inner_text()
    assert re.search(r"\w{3} \d\d \w{3} \d\d:\d\d UTC", rows.first.inner_text())  # when the round closes
    assert unlabelled(page) == []
    shot(page, "dashboard")

    page.get_by_label("Mail from Dash (red)").select_option("results")
    page.get_by_role("button", name="Save mail settings for Dash (red)").click()
    assert "results only" in page.inner_text(".notice")
    assert page.get_by_label("Mail from Dash (red)").input_value() == "results"

    page.locator("table.games tr", has_text="red").get_by_role("link", name="send orders").click()
    send(page, first_moves(page, 1))
    assert "stored as version 1" in page.inner_text(".notice")
    page.get_by_role("navigation").get_by_role("link", name="Your games").click()
    assert "1 game waits for your orders" in page.inner_text("#summary")

    page.get_by_role("button", name="Sign out").click()
    assert page.get_by_role("button", name="Mail me a sign-in link").count() == 1
    page.goto(base + "/me")  # signed out: back to the sign-in form
    assert page.get_by_label("Your e-mail address").count() == 1

    used = pages.new()  # the link worked once
    used.goto(link)
    used.get_by_role("button", name="Sign in").click()
    assert "does not work any more" in used.inner_text("main")

    phone = pages.new(viewport=PHONE)
    phone.context.add_cookies(page.context.cookies())
    phone.goto(base + "/me")
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shot(phone, "dashboard-phone")


@pytest.mark.parametrize("javascript", [True, False], ids=["javascript", "no-javascript"])
def test_the_open_mailbox_shows_new_mail_without_a_reload(served, pages, javascript: bool) -> None:
    """Mail is written after the answer that asked for it: a mailbox opened first shows it
    when it lands, with or without JavaScript."""
    base, app = served
    page = pages.new(viewport=PHONE, javascript=javascript)
    page.goto(mailbox_link(app, base) or "")
    assert "No mail yet." in page.inner_text("main")
    client = app.test_client()
    app.config["WTF_CSRF_ENABLED"] = False
    new_game(client, [{"name": "red", "email": "red@example.org"}, {"name": "blue", "email": "blue@example.org"}],
             "Late post")
    page.get_by_role("link", name=re.compile("Late post")).first.wait_for(timeout=15_000)
    assert "No mail yet." not in page.inner_text("main")
    if javascript:  # an unchanged list stays as it is: no reload under the reader's click
        page.evaluate("window.stillHere = true")
        page.wait_for_timeout(4_500)  # past the 3-second look
        assert page.evaluate("window.stillHere === true")
