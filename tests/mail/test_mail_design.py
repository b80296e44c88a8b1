"""The HTML mails wear the one design system: their colours and font stacks are the
stylesheet's light-scheme tokens (service.render.design), never hex of their own, and
text keeps WCAG AA contrast on the surfaces it sits on."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine.contract import Board, Piece
from service.render import grid_legend, html_table_grid, svg
from service.render.design import SIDES, parse_root, tokens, tokens_from
from tests.conftest import ROOT

CSS = (ROOT / "templates" / "web" / "dicepost.css").read_text(encoding="utf-8")
# A colour literal: #rgb, #rrggbb or #rrggbbaa, not an HTML character reference (&#8593;).
HEX = re.compile(r"(?<![&\w])#(?:[0-9a-fA-F]{8}|[0-9a-fA-F]{6}|[0-9a-fA-F]{3})\b")
MAIL_HTML = sorted((ROOT / "templates" / "email").glob("*.html"))
MAIL_RENDERERS = [Path(html_table_grid.__file__), Path(grid_legend.__file__)]


@pytest.mark.parametrize("path", MAIL_HTML + MAIL_RENDERERS, ids=lambda p: p.name)
def test_no_colour_or_font_stack_of_its_own(path):
    source = path.read_text(encoding="utf-8")
    assert not HEX.findall(source), f"{path.name}: use the design tokens (ds.* / DS.*), not hex"
    for m in re.finditer(r"font-family:([^;\"]*)", source):
        assert m[1].startswith(("{{ ds.", "{DS.")), f"{path.name}: font stack {m[1]!r} is not a token"


def test_the_hex_check_would_catch_one():
    assert HEX.findall('<p style="color:#b3261e">&#8593; x</p> #fff') == ["#b3261e", "#fff"]


def test_the_mail_legend_uses_the_stylesheets_side_colours():
    light = parse_root(CSS)
    assert tuple(light[f"side-{i}"] for i in range(SIDES)) == grid_legend.SIDE_COLOURS
    assert tuple(light[f"side-{i}-bg"] for i in range(SIDES)) == grid_legend.SIDE_FILLS
    assert grid_legend.GAME_COLOURS[0] == light["side-game"]
    # The dark scheme (inside @media) is not what the mails get.
    assert light["text"] == "#1d1b18" and light["side-4"] == "#985000"
    board = Board(3, 2, {}, [Piece("A1", "a1", "alice", "unit", "A1"), Piece("B1", "c2", "bob", "unit", "B1"),
                             Piece("X", "b1", None, "unit", "X")], sides=["alice", "bob"])
    grid, legend = html_table_grid.html_table_grid(board), html_table_grid.html_legend(board)
    for ink, label in ((light["side-0"], "A1"), (light["side-1"], "B1"), (light["side-game"], "X")):
        assert f'<b style="color:{ink}">{label}</b>' in grid
        assert f'<td style="padding:2px 8px;color:{ink}"><b>{label}</b></td>' in legend
    assert f'bgcolor="{light["side-1-bg"]}"' in grid
    drawn = svg.board_svg(board)  # the web pages' SVG draws from the same tokens
    assert f'fill="{light["side-1-bg"]}" stroke="{light["side-1"]}"' in drawn
    assert f'fill="{light["side-game"]}">X</text>' in drawn


def test_a_stylesheet_without_a_token_is_refused_by_name():
    with pytest.raises(ValueError, match="no --bad"):
        tokens_from(CSS.replace("--bad:", "--worse:", 1))
    with pytest.raises(ValueError, match="no top-level :root"):
        tokens_from("body{color:red}")


def _luminance(hex_colour: str) -> float:
    def channel(c: int) -> float:
        s = c / 255
        return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4
    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(a: str, b: str) -> float:
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def test_mail_text_keeps_aa_contrast():
    ds = tokens()
    pairs = [(ink, ground) for ink in (ds.text, ds.muted, ds.link, ds.ok, ds.bad, ds.warn)
             for ground in (ds.surface, ds.bg, ds.surface_2)]
    pairs += [(ds.surface, ds.link)]  # the buttons
    pairs += [(ink, ground) for ink, fill in zip(ds.sides, ds.side_fills, strict=True)
              for ground in (ds.surface, fill)]  # pieces in the grid and legend
    pairs += [(ds.side_game, ds.surface), (ds.side_game, ds.surface_2), (ds.muted, ds.terrain_other)]
    low = [(ink, ground, round(contrast(ink, ground), 2)) for ink, ground in pairs if contrast(ink, ground) < 4.5]
    assert not low, low
