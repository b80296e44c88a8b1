"""Every page a player or GM meets (home and its create form, created, join, joined, player,
settings, game, rounds, round, GM, verifier, rules, lobby, your games, sign-in, the mailbox
and a mail in it), at 1280, 390 and 320 pixels (and dark): no sideways scrolling, no
word split across lines in a table cell, no mail wider than the phone, and axe-core (fetched
with npm at test time into a temporary folder, never committed) finds no WCAG 2.1 A or AA
violation."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from email import message_from_bytes, policy
from typing import Any

import pytest
from sqlalchemy import select

from service.db import session_scope
from service.models import Outbox, StoredMail
from tests.browser.conftest import BROWSER, PHONE
from tests.browser.flow import create_game, first_moves, join, send

pytestmark = BROWSER
WIDE = {"width": 1280, "height": 900}
SMALL = {"width": 320, "height": 640}
WCAG = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]


@pytest.fixture(scope="module")
def axe(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """axe-core's script, installed by npm for this run."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed")
    folder = tmp_path_factory.mktemp("axe")
    done = subprocess.run([npm, "install", "--no-save", "--no-audit", "--no-fund", "--prefix", str(folder),
                           "axe-core@4"], capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        pytest.skip(f"npm could not fetch axe-core: {done.stderr[-300:]}")
    yield (folder / "node_modules" / "axe-core" / "axe.min.js").read_text(encoding="utf-8")


def violations(page: Any, axe: str) -> list[str]:
    page.evaluate(axe)  # evaluated by the driver: the verifier's own CSP does not block it
    found = page.evaluate("async (tags) => (await axe.run(document, {runOnly: {type: 'tag', values: tags}}))"
                          ".violations.map(v => v.id + ': ' + v.nodes.slice(0, 3).map(n => n.target.join(' '))"
                          ".join(', '))", WCAG)
    return list(found)


def pages_of_a_game(served: tuple[str, Any], pages: Any,
                    kept: dict[str, list[Any]] | None = None) -> dict[str, str]:
    """A two-player universal game played one round: every page a player sees, by name.
    `kept` gets the cookies that open the pages shown once (the game just created, the
    seat just joined), by page name; those pages come last."""
    base, app = served
    host = pages.new()
    created = create_game(host, base, "Every page", "red red@example.org\nblue")
    created_url = host.url
    red, blue = pages.new(), pages.new()
    red_url = join(red, created.invites["red"])
    blue_url = join(blue, created.invites["blue"])
    if kept is not None:
        kept["created"], kept["joined"] = host.context.cookies(), blue.context.cookies()
    for page, url in ((red, red_url), (blue, blue_url)):
        page.goto(url)
        send(page, first_moves(page, 2))
    game = f"{base}/games/{created.game_id}"
    with session_scope(app) as s:
        mail = s.scalar(select(StoredMail.id).order_by(StoredMail.id.desc()).limit(1))
    return {"home": base + "/", "rules": base + "/rules", "rules-universal": base + "/rules/universal",
            "rules-heroes": base + "/rules/heroes", "game": game, "round": f"{game}/rounds/1",
            "rounds": f"{game}/rounds",
            "rules-jep1": base + "/rules/jep1", "rules-fivedice": base + "/rules/fivedice",
            "player": red_url, "player-settings": red_url + "/schedule", "your-games": base + "/me",
            "sign-in": base + "/signin", "lobby": base + "/lobby", "mailbox": base + "/mailbox",
            "mailbox-mail": f"{base}/mailbox/{mail}",
            "join": created.invites["red"], "verifier": f"{base}/verify?record={base}/api/games/{created.game_id}/record", "gm": created.gm_url,
            "gm-confirm-draw": created.gm_url + "/confirm/end",
            "created": created_url, "joined": created.invites["blue"] + "/done"}


# Words (letters only, so codes and links may still wrap anywhere) drawn on more than one line
# inside a table cell.
SPLIT_WORDS = """() => {
  const out = [];
  for (const cell of document.querySelectorAll('main td, main th')) {
    const walk = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walk.nextNode(); node; node = walk.nextNode()) {
      if (node.parentElement.closest('code, pre, .mono, kbd')) continue;
      for (const m of node.data.matchAll(/[A-Za-z]{2,}/g)) {
        const range = document.createRange();
        range.setStart(node, m.index); range.setEnd(node, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
        if (tops.size > 1) out.push(m[0]);
      }
    }
  }
  return out.slice(0, 5);
}"""


def sideways(page: Any, width: int) -> str:
    """'' if the page fits `width`, else how wide it is and what sticks out."""
    scroll = page.evaluate("document.documentElement.scrollWidth")
    if scroll <= width:
        return ""
    wide = page.evaluate("""() => [...document.querySelectorAll('body *')]
        .filter(e => e.getBoundingClientRect().right > innerWidth + 1)
        .slice(0, 3).map(e => e.tagName + '.' + e.className)""")
    return f"scrollWidth {scroll}: {wide}"


def mails_html(app: Any) -> dict[str, str]:
    """The HTML part of every mail the game sent (invitation, start, confirmation, round 1's
    results), by kind and number."""
    with session_scope(app) as s:
        rows = s.execute(select(StoredMail.id, Outbox.kind, StoredMail.raw)
                         .join(Outbox, Outbox.id == StoredMail.outbox_id).order_by(StoredMail.id)).all()
    out = {}
    for number, kind, raw in rows:
        body = message_from_bytes(raw.encode(), policy=policy.default).get_body(("html",))
        if body is not None:
            out[f"{kind} mail {number}"] = str(body.get_content())  # type: ignore[union-attr]
    assert any(kind.startswith("results") for kind in out), list(out)
    return out


def open_page(page: Any, name: str, url: str, kept: dict[str, list[Any]]) -> None:
    """The page loaded; one shown once (the game just created, the seat just joined) in
    the cookies of the browser that created or joined."""
    if name in kept:
        page.context.clear_cookies()
        page.context.add_cookies(kept[name])
    page.goto(url)
    page.wait_for_load_state("load")
    if name == "created":
        assert "is created" in page.inner_text("main")
    if name == "joined":
        assert "You have joined" in page.inner_text("main")


@pytest.mark.timeout(600)  # some twenty pages, four ways each, axe-core on every one
def test_every_page_fits_a_phone_and_has_no_wcag_violation(served, pages, browser, axe, shot) -> None:
    kept: dict[str, list[Any]] = {}
    urls = pages_of_a_game(served, pages, kept)
    problems: dict[str, list[str]] = {}
    for width, viewport, scheme in (("wide", WIDE, "light"), ("phone", PHONE, "light"),
                                    ("phone, dark", PHONE, "dark"), ("320 px", SMALL, "light")):
        context = browser.new_context(viewport=viewport, bypass_csp=True, color_scheme=scheme)
        try:
            page = context.new_page()
            for name, url in urls.items():
                open_page(page, name, url, kept)
                if name == "verifier":  # its green and red cells drawn, the engine's answer in
                    page.wait_for_selector("#summary[data-done=yes]", timeout=180_000)
                    assert page.locator("tr.step.ok").count() >= 2, page.inner_text("#summary")
                wide = sideways(page, viewport["width"])
                if wide:
                    problems.setdefault(f"{name} at {viewport['width']} px", []).append(wide)
                if viewport != WIDE and scheme == "light":
                    split = page.evaluate(SPLIT_WORDS)
                    if split:
                        problems.setdefault(f"{name} at {viewport['width']} px", []).append(
                            f"words split in table cells: {split}")
                found = violations(page, axe)
                if found:
                    problems.setdefault(f"{name} ({width})", []).extend(found)
                if (name == "rules-universal" or (name == "round" and viewport == PHONE)) and scheme == "light":
                    shot(page, f"{name}-{width}")
                if name == "player" and scheme == "dark":
                    shot(page, "player-dark")
            if viewport != WIDE and scheme == "light":  # the mails, read on the phone
                for name, html in mails_html(served[1]).items():
                    page.set_content(html)
                    wide = sideways(page, viewport["width"])
                    if wide:
                        problems.setdefault(f"{name} at {viewport['width']} px", []).append(wide)
                    if name.startswith("results") and viewport == PHONE:
                        shot(page, "results-mail-phone")
        finally:
            context.close()
    assert not problems, problems


def test_the_turn_reads_on_a_phone(served, pages, shot) -> None:
    """After round 1 the phone shows what happened and what to do now, no wider than the screen."""
    urls = pages_of_a_game(served, pages)
    phone = pages.new(viewport=PHONE)
    phone.goto(urls["player"])
    assert phone.locator("#turn h2").inner_text() == "Round 1: what happened to you"
    assert "What to do now" in phone.inner_text("#todo")
    phone.get_by_text("How to write orders for universal").click()
    assert phone.locator("table.verbs").is_visible()
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shot(phone, "turn-phone")
