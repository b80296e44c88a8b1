"""Talk at the table in the browser, at desktop and phone widths: a public message and a
private one, who sees which, the unread count, a refusal that keeps the text."""

from __future__ import annotations

import pytest

from tests.browser.conftest import BROWSER, PHONE
from tests.browser.flow import create_game, join, unlabelled

pytestmark = BROWSER
WIDE = {"width": 1280, "height": 900}


def write(page, to: str, text: str) -> None:
    page.locator("#messages").get_by_label("To").select_option(to)
    page.locator("#messages").get_by_label("Message").fill(text)
    page.get_by_role("button", name="Send the message").click()


@pytest.mark.parametrize("viewport", [WIDE, PHONE], ids=["desktop", "phone"])
def test_players_talk_at_the_table(served, pages, shot, viewport) -> None:
    base, _app = served
    width = viewport["width"]
    host = pages.new(viewport=viewport)
    created = create_game(host, base, "Talking game", "red\nblue\ngreen")
    red, blue, green = (pages.new(viewport=viewport) for _ in range(3))
    red.goto(created.invites["red"])  # the join page says who reads a private message
    assert red.inner_text("#private-terms") == (
        "A private message is read only by its sender and its recipient: the GM of this game does not "
        "read the private messages between players.")
    urls = {name: join(p, created.invites[name]) for name, p in (("red", red), ("blue", blue), ("green", green))}
    for name, p in (("red", red), ("blue", blue), ("green", green)):
        p.goto(urls[name])

    write(red, "all", "Good luck, everyone!")
    assert "Your message to everyone is sent." in red.inner_text("#messages")
    write(red, "blue", "Blue, shall we take green together?")
    assert red.url.endswith("#messages")
    red.locator("#messages").get_by_label("Message").fill("   ")
    red.get_by_role("button", name="Send the message").click()  # empty: refused, nothing sent
    assert "Not sent: text: the message is empty" in red.inner_text("#messages")
    assert unlabelled(red) == []
    assert red.evaluate("document.documentElement.scrollWidth") <= width

    blue.reload()
    talk = blue.inner_text("#messages")
    assert "(2 new)" in talk and "Good luck, everyone!" in talk and "shall we take green" in talk
    assert talk.index("shall we take green") < talk.index("Good luck")  # newest first
    blue.locator("#messages").scroll_into_view_if_needed()
    shot(blue, f"messages-{width}")
    blue.reload()
    assert "new)" not in blue.inner_text("#messages-title")  # read now

    green.reload()
    assert "Good luck, everyone!" in green.inner_text("#messages")
    assert "shall we take green" not in green.inner_text("main")  # private to blue
    visitor = pages.new(viewport=viewport)
    visitor.goto(f"{base}/games/{created.game_id}")
    assert "Good luck, everyone!" in visitor.inner_text("#messages")
    assert "shall we take green" not in visitor.inner_text("main")
    assert visitor.locator("#messages form").count() == 0  # a visitor reads, writes nothing
    assert "read only by its sender and its recipient" in blue.inner_text("#private-words")  # where one writes
    host.goto(created.gm_url)
    assert "Good luck, everyone!" in host.inner_text("#messages")
    assert "shall we take green" not in host.inner_text("main")  # private means private: not the GM's
    assert "not shown to you" in host.inner_text("#private-words")
