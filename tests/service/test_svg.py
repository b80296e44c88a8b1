"""The SVG grid: valid XML, every piece labelled (not colour alone), escaped, marks drawn.

The picture knows no ruleset's kinds: every shape, outline and arrow here is the one the
board's pieces and marks declare (engine.looks), whatever their kind is called."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from engine.contract import Board, Mark, Piece
from engine.looks import ARROWS, MarkLook, PieceLook
from service.render.svg import board_caption, board_svg

NS = {"s": "http://www.w3.org/2000/svg"}
UNIT = PieceLook("circle", "solid", "units")
TOKEN = PieceLook("square", "dashed", "tokens")
HENCHMAN = PieceLook("diamond", "solid", "henchmen")
HERO = PieceLook("circle", "solid", "heroes")
CIVVIE = PieceLook("diamond", "dashed", "civvies")
NEMESIS = PieceLook("diamond", "heavy", "nemeses")


def _board() -> Board:
    return Board(width=5, height=4, terrain={"c2": "wall", "d3": "water"},
                 pieces=[Piece("A1", "a1", "alice", "unit", "A1", 3, 5, note="Runner", look=UNIT),
                         Piece("B1", "e4", "bob", "unit", "<B>", 1, None, look=UNIT),
                         Piece("T1", "b1", "alice", "token", "T1", look=TOKEN),
                         Piece("H1", "c3", None, "henchman", "H1", 2, 2, look=HENCHMAN)],
                 marks=[Mark("move", ("a2", "a1"), "alice", ARROWS["move"]),
                        Mark("attack", ("a1", "b2"), "alice", ARROWS["attack"])],
                 sides=["alice", "bob"])


def test_svg_is_valid_and_labels_every_piece() -> None:
    svg = str(board_svg(_board(), 'the "grid"'))
    root = ET.fromstring(svg)
    assert root.get("viewBox") == f"0 0 {5 * 44 + 44} {4 * 44 + 44}"
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert {"A1", "<B>", "T1", "H1", "3/5", "1", "2/2"} <= set(texts)
    assert "&lt;B&gt;" in svg and "<B>" not in svg.replace("&lt;B&gt;", "")
    titles = [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}title")]
    assert "A1 (alice, unit) on a1, health 3/5: Runner" in titles
    assert "c2: wall" in titles and "d3: water" in titles
    # Shapes are the declared ones: units circles, the token a square, the henchman a diamond.
    assert len(root.findall(".//s:circle", NS)) == 2
    assert len(root.findall(".//s:polygon", NS)) == 1
    # Each arrow: a white casing under it (it stays apart where arrows cross), then the line.
    lines = [line for line in root.findall(".//s:polyline", NS) if line.get("marker-end")]
    assert len(root.findall(".//s:polyline", NS)) == 2 * len(lines)
    assert [line.get("marker-end") for line in lines] == ["url(#arrow-ink)", "url(#arrow-red)"]
    assert [line.get("stroke") for line in lines] == ["#333333", "#c62828"]
    assert {m.get("id") for m in root.iter("{http://www.w3.org/2000/svg}marker")} == {"arrow-ink", "arrow-red"}
    assert lines[1].get("stroke-dasharray") == "6 4" and lines[0].get("stroke-dasharray") is None


def test_side_colours_follow_seat_order() -> None:
    svg = str(board_svg(_board()))
    alice = svg.index('fill="#b3261e">A1<')
    bob = svg.index('fill="#1f5fbf">&lt;B&gt;<')
    assert alice > 0 and bob > 0


def test_the_game_figures_differ_by_outline_and_facing_is_drawn() -> None:
    """heroes: civvies, henchmen and nemeses are told apart in the picture; facing points out."""
    board = Board(3, 3, {}, [Piece("Z1", "b2", "alice", "hero", "Z1", 6, 6, "ne", look=HERO),
                             Piece("C1", "a1", None, "civvie", "C1", look=CIVVIE),
                             Piece("H1", "c1", None, "henchman", "H1", 1, 1, "w", look=HENCHMAN),
                             Piece("N1", "a3", None, "nemesis", "N1", 5, 5, "s", look=NEMESIS)], sides=["alice"])
    root = ET.fromstring(str(board_svg(board)))
    groups = {g.get("class"): g for g in root.iter("{http://www.w3.org/2000/svg}g")}
    assert set(groups) >= {"piece hero", "piece civvie", "piece henchman", "piece nemesis"}
    body = {k: g.find("s:polygon", NS) for k, g in groups.items() if k != "piece hero"}
    assert body["piece civvie"].get("stroke-dasharray") == "3 2"
    assert body["piece nemesis"].get("stroke-width") == "4"
    assert body["piece henchman"].get("stroke-dasharray") is None
    assert body["piece henchman"].get("stroke-width") == "2"
    facing = {k: g.find("s:polygon[@class='facing']", NS) for k, g in groups.items()}
    assert facing["piece civvie"] is None
    assert facing["piece hero"].find("s:title", NS).text == "facing ne"
    # Z1 on b2 (centre 88, 88) faces north-east: the tip is up and to the right.
    tip = [float(v) for v in facing["piece hero"].get("points").split()[0].split(",")]
    assert tip[0] > 88 and tip[1] < 88
    h1 = [float(v) for v in facing["piece henchman"].get("points").split()[0].split(",")]
    assert h1[0] < 22 + 2 * 44 + 22 and abs(h1[1] - (22 + 2 * 44 + 22)) < 0.1  # c1 faces west


def test_a_kind_no_renderer_knows_is_drawn_as_its_look_says() -> None:
    """A ruleset's own words ("wisp", "scorch") need nothing in the renderer: the looks
    say dotted squares in a player's colour and a dashed orange arrow, and the caption
    names them."""
    board = Board(4, 4, {}, [Piece("W1", "b2", "alice", "wisp", "W1", look=PieceLook("square", "dotted",
                                                                                     "wisps")),
                             Piece("P1", "c3", "alice", "unit", "P1")],  # no look: the plain circle
                  marks=[Mark("scorch", ("b2", "c3"), "alice", MarkLook("dashed", "orange", "scorches"))],
                  sides=["alice"])
    root = ET.fromstring(str(board_svg(board)))
    groups = {g.get("class"): g for g in root.iter("{http://www.w3.org/2000/svg}g")}
    wisp = groups["piece wisp"].find("s:rect", NS)
    assert wisp is not None and wisp.get("stroke-dasharray") == "1 2" and wisp.get("stroke") == "#b3261e"
    assert groups["piece unit"].find("s:circle", NS) is not None
    line = root.find(".//s:polyline[@marker-end]", NS)
    assert line is not None and line.get("stroke") == "#e65100" and line.get("marker-end") == "url(#arrow-orange)"
    assert groups["mark scorch"].find("s:title", NS).text == "scorch: b2 → c3 (alice)"
    caption = board_caption(board)
    assert caption == ("Circles are figures; dotted squares are wisps; each piece carries its label; "
                       "dashed arrows are last round's scorches (orange)."), caption


def test_the_caption_says_what_is_on_this_board() -> None:
    caption = board_caption(_board())
    assert caption.startswith("Circles are units; dashed squares are tokens; diamonds are henchmen; "
                              "each piece carries its label, and its health where it has one;"), caption
    for said in ("# wall", "~ water", "solid arrows are last round's moves",
                 "dashed arrows last round's attacks (red)"):
        assert said in caption, (said, caption)
    assert "triangle" not in caption and "civvies" not in caption and "shots" not in caption
    heroes = Board(width=4, height=4, terrain={}, sides=["alice"],
                   pieces=[Piece("Z1", "a1", "alice", "hero", "Z1", facing="ne", look=HERO),
                           Piece("C1", "b2", None, "civvie", "C1", look=CIVVIE),
                           Piece("N1", "c3", None, "nemesis", "N1", look=NEMESIS)],
                   marks=[Mark("shot", ("a1", "c3"), "alice", ARROWS["shot"])])
    caption = board_caption(heroes)
    assert caption.startswith("Circles are heroes; dashed diamonds are civvies; heavy diamonds are nemeses; "
                              "each piece carries its label; "), caption
    assert "a black triangle on a piece's edge points the way it faces" in caption
    assert "dashed arrows are last round's shots (purple)" in caption
    assert "tokens" not in caption and "moves" not in caption and "terrain" not in caption
    assert board_caption(Board(width=2, height=2, terrain={}, pieces=[])) == "An empty grid."
