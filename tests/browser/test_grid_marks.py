"""Last round on the grid, as a player reads it in chromium at 1280 and 390 px: an attack's
arrow ends where the piece aimed at stood and a red cross marks where it fell (beside the
winner's token that took the square, not over its label); a move is drawn through every
square it entered; arrows lie under the pieces, so no label or health number is hidden;
and fivedice's four arrows (moves, attacks, shots, spells) differ in their dash, not only
in colour."""

from __future__ import annotations

from typing import Any

import pytest

from engine.contract import Board, Mark, Piece
from engine.looks import ARROWS, PieceLook
from service.render.svg import CELL, board_caption, board_svg
from tests.browser.conftest import BROWSER, PHONE

pytestmark = BROWSER
WIDE = {"width": 1280, "height": 900}
UNIT = PieceLook("circle", "solid", "units")
TOKEN = PieceLook("square", "dashed", "tokens")


def mark(kind: str, *squares: str, side: str = "red") -> Mark:
    return Mark(kind, squares, side, ARROWS[kind])


# Red's A1 on c2 attacked blue's B1 on c4 and won: red's token A9 took c4. Red's A2 moved
# from a1 to c3 (the record gives only its start and end). Blue's B2 shot at A3 on e2, a spell
# and an attack crossed the shot: four colours over one another.
BOARD = Board(6, 6, {}, [
    Piece("A1", "c2", "red", "unit", "A1", 3, 4, look=UNIT),
    Piece("A9", "c4", "red", "token", "A9", 5, 5, look=TOKEN),
    Piece("A2", "c3", "red", "unit", "A2", 2, 4, look=UNIT),
    Piece("A3", "e2", "red", "unit", "A3", 4, 4, look=UNIT),
    Piece("B2", "e5", "blue", "unit", "B2", 4, 4, look=UNIT),
    Piece("B3", "f3", "blue", "unit", "B3", 4, 4, look=UNIT),
], [mark("attack", "c2", "c4"), mark("move", "a1", "c3"), mark("shot", "e5", "e2", side="blue"),
    mark("spell", "f3", "c3", side="blue"), mark("attack", "d1", "f3")], {}, ["red", "blue"])

READ = """() => {
  const svg = document.querySelector('svg.board');
  const ends = [...svg.querySelectorAll('g.mark')].map(g => {
    const pts = g.querySelectorAll('polyline')[1].points;
    return {kind: g.getAttribute('class'), dash: g.querySelectorAll('polyline')[1].getAttribute('stroke-dasharray'),
            points: [...pts].map(p => [p.x, p.y]), dots: g.querySelectorAll('circle').length};
  });
  const fallen = [...svg.querySelectorAll('g.fallen')].map(g => {
    const b = g.getBBox();
    return {square: g.dataset.square, box: [b.x, b.y, b.width, b.height]};
  });
  // What is drawn on top at the middle of every label and health number.
  const hidden = [...svg.querySelectorAll('text.label, text.hp')].filter(t => {
    const r = t.getBoundingClientRect(), top = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
    return !t.parentNode.contains(top);  // the piece itself is on top
  }).map(t => t.textContent);
  const labels = Object.fromEntries([...svg.querySelectorAll('g.piece')].map(g => {
    const b = g.querySelector('text.label').getBBox();
    return [g.dataset.id, [b.x, b.y, b.width, b.height]];
  }));
  return {ends, fallen, hidden, labels};
}"""


def centre(square: str) -> tuple[float, float]:
    col, row = ord(square[0]) - ord("a"), int(square[1:])
    return 22 + col * CELL + CELL / 2, 22 + (BOARD.height - row) * CELL + CELL / 2


def overlaps(a: list[float], b: list[float]) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


@pytest.mark.parametrize("viewport", [WIDE, PHONE], ids=["wide", "phone"])
def test_last_round_reads_on_the_grid(pages: Any, shot: Any, viewport: dict[str, int]) -> None:
    page = pages.new(viewport=viewport)
    page.set_content(f"<!doctype html><meta name=viewport content='width=device-width'>"
                     f"<style>svg{{max-width:100%;height:auto}}</style>{board_svg(BOARD, 'last round')}")
    seen = page.evaluate(READ)
    attack, move, shot_, spell, attack2 = seen["ends"]
    # The attack's head stops at the edge of the square where B1 stood; the cross there sits
    # in the square's corner, clear of the label of red's token A9 that took the square.
    x, y = centre("c4")
    assert abs(attack["points"][-1][0] - x) < CELL / 2 and abs(attack["points"][-1][1] - y) <= CELL / 2
    assert [f["square"] for f in seen["fallen"]] == ["c4"]
    assert not overlaps(seen["fallen"][0]["box"], seen["labels"]["A9"])
    # The move a1 → c3 goes square by square (b2 between), a dot on each square passed.
    steps = list(zip(move["points"], move["points"][1:], strict=False))
    assert all(abs(b[0] - a[0]) <= CELL and abs(b[1] - a[1]) <= CELL for a, b in steps)
    assert move["dots"] == 1 and len(move["points"]) == 3
    # Four kinds of arrow, four dashes (a move is solid).
    dashes = [move["dash"], attack["dash"], shot_["dash"], spell["dash"]]
    assert move["dash"] is None and len(set(dashes)) == 4, dashes
    assert attack2["dash"] == attack["dash"]
    # No arrow and no cross lies over a label or a health number.
    assert seen["hidden"] == []
    assert "a red cross marks where a piece fell" in board_caption(BOARD)
    shot(page, f"grid-marks-{'phone' if viewport == PHONE else 'wide'}")


# Every text of every grid on the page at its size on the screen, in CSS pixels: its
# computed font size in the grid's units times the grid's scale.
SCREEN_SIZES = """() => [...document.querySelectorAll('svg.board text')].filter(t => t.textContent.trim())
  .map(t => [t.textContent.trim(), parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a])"""


def test_every_grid_reads_at_390_px_without_zooming(served: Any, pages: Any, shot: Any) -> None:
    """The player's, the game's and the round's grids on a 390-px phone, as they
    open: every label, health number and coordinate at least 11 px on the screen, the last
    round's moves drawn as paths, the page not scrolling sideways; at 320 px too."""
    from tests.browser.flow import create_game, first_moves, join, send

    base, _app = served
    created = create_game(pages.new(), base, "Readable", "red\nblue")
    red, blue = pages.new(), pages.new()
    red_url, blue_url = join(red, created.invites["red"]), join(blue, created.invites["blue"])
    for page, url in ((red, red_url), (blue, blue_url)):
        page.goto(url)
        send(page, first_moves(page, 2))
    game = f"{base}/games/{created.game_id}"
    phone = pages.new(viewport=PHONE)
    small: dict[str, list[tuple[str, float]]] = {}
    for name, url, width in (("player", red_url, 390), ("game", game, 390), ("round", f"{game}/rounds/1", 390),
                             ("player", red_url, 320)):
        phone.set_viewport_size({"width": width, "height": 800})
        phone.goto(url)
        sizes = phone.evaluate(SCREEN_SIZES)
        assert len(sizes) > 20, (name, sizes)  # pieces, health numbers and coordinates
        if tiny := [(text, round(px, 1)) for text, px in sizes if px < 11]:
            small[f"{name} at {width} px"] = tiny[:6]
        assert phone.evaluate("document.documentElement.scrollWidth") <= width, (name, width)
        if name in ("game", "round"):  # round 1's two moves a side, each a path with its head
            assert phone.locator("svg.board g.mark.move polyline").count() >= 4, name
        if name == "round":
            shot(phone, "round-grid-phone")
    assert not small, small
