"""The text pictures of a board: ASCII for plain-text mail, an HTML table for HTML mail."""

from __future__ import annotations

from html.parser import HTMLParser

from engine.contract import Board, Mark, Piece
from service.render.ascii_grid import ascii_board, ascii_grid
from service.render.html_table_grid import html_board, html_legend, html_table_grid

BOARD = Board(
    width=5,
    height=4,
    terrain={"c3": "wall", "c2": "wall", "a1": "water", "E4": "forest"},
    pieces=[
        Piece("A1", "b3", "alice", "unit", "A1", 3, 4, note="Runner"),
        Piece("B1", "d2", "bob", "unit", "B1", 4, 4),
        Piece("N1", "e1", None, "nemesis", "Zenobia", 5, None, note="<script>x</script>"),
        Piece("T1", "d2", None, "token", "T1"),
    ],
    marks=[Mark("move", ("a4", "b3"), "alice"), Mark("attack", ("d2", "b3"), "bob")],
    legend={"wall": "blocks movement and sight"},
    sides=["alice", "bob"],
)


def test_ascii_grid_exact():
    assert ascii_grid(BOARD) == "\n".join([
        "     a   b   c   d   e",
        "4    .   .   .   .   ^  4",
        "3    .  A1   #   .   .  3",
        "2    .   .   #  B1   .  2",
        "1    ~   .   .   . Zen  1",
        "     a   b   c   d   e",
    ])


def test_ascii_legend_explains_everything_drawn():
    text = ascii_board(BOARD)
    assert "  A1   b3    alice  health 3/4  Runner" in text
    assert "  Zen  e1    game   health 5  <script>x</script>" in text
    assert "  #    wall: blocks movement and sight" in text
    assert "  ~    water" in text and "  ^    forest" in text
    assert "Shared squares (the first piece is drawn): d2" in text
    assert "  move a4 -> b3 (alice)" in text
    assert text.isascii()


def test_wide_boards_keep_columns_aligned():
    board = Board(30, 12, {}, [Piece("A10", "ad12", "a", "unit", "A10")], sides=["a"])
    lines = ascii_grid(board, max_width=200).splitlines()
    assert lines[0].endswith(" ab  ac  ad")
    assert lines[1].startswith("12 ") and lines[1].endswith("A10  12")
    assert lines[-2].startswith(" 1 ")
    # Squares line up on every row; only the right-hand row number may be shorter.
    assert len({len(x.rstrip("0123456789")) for x in lines[1:-1]}) == 1
    assert lines[1].index("A10") + 2 == lines[0].index("ad") + 1


def test_wide_boards_come_in_bands_that_fit_a_mail_line():
    board = Board(30, 12, {"r12": "wall"}, [Piece("A10", "ad12", "a", "unit", "A10")], sides=["a"])
    bands = ascii_grid(board).split("\n\n")
    assert len(bands) == 2
    assert all(len(line) <= 78 for band in bands for line in band.splitlines())
    first, second = (band.splitlines() for band in bands)
    assert first[0].split() == [chr(c) for c in range(ord("a"), ord("q") + 1)]
    assert second[0].split()[0] == "r" and second[0].split()[-1] == "ad"
    assert second[1].split() == ["12", "#", *["."] * 11, "A10", "12"]
    assert ascii_grid(Board(12, 12, {}, [])).count("\n\n") == 0  # the default board is one band


class _Cells(HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows: list[list[str]] = []
        self.tags: set[str] = set()
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        if tag == "tr":
            self.rows.append([])
        if tag == "td":
            self._cell = []

    def handle_endtag(self, tag):
        if tag == "td" and self._cell is not None:
            self.rows[-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def test_html_table_has_one_cell_per_square_and_escapes_text():
    parser = _Cells()
    parser.feed(str(html_table_grid(BOARD)))
    assert len(parser.rows) == BOARD.height + 2
    assert all(len(r) == BOARD.width + 2 for r in parser.rows)
    assert parser.rows[0] == ["", "a", "b", "c", "d", "e", ""]
    assert parser.rows[2] == ["3", ".", "A1", "#", ".", ".", "3"]
    assert parser.rows[4][5] == "Zen"
    whole = str(html_board(BOARD))
    assert "<script>" not in whole and "&lt;script&gt;" in whole
    parser = _Cells()
    parser.feed(whole)
    assert not parser.tags & {"svg", "img", "script", "style", "link"}


def test_figures_the_game_runs_are_told_apart_with_their_facing():
    """heroes: a hero on a henchman's square is the one drawn; kind and facing in both legends."""
    board = Board(3, 3, {"b2": "rooftop"}, [
        Piece("H1", "a1", None, "henchman", "H1", 1, 1, "ne", "Thug"),
        Piece("Z1", "a1", "alice", "hero", "Z1", 6, 6, "sw", "Zenith!: 2 civvies saved"),
        Piece("C1", "c3", None, "civvie", "C1", note="civvie: save me"),
        Piece("N1", "c1", None, "nemesis", "N1", 5, 5, "n", "Nadir"),
    ], sides=["alice"])
    assert ascii_grid(board).splitlines()[3] == "1   Z1   .  N1  1"
    text = ascii_board(board)
    assert "  Z1   a1    alice  health 6/6  facing sw; Zenith!: 2 civvies saved  (hero)" in text
    assert "  H1   a1    game   health 1/1  facing ne; Thug  (henchman)" in text
    assert "  C1   c3    game   civvie: save me  (civvie)" in text
    assert "  N1   c1    game   health 5/5  facing n; Nadir  (nemesis)" in text
    parser = _Cells()
    parser.feed(str(html_board(board)))
    legend = {r[0]: r for r in parser.rows if r and r[0] in ("Z1", "H1", "C1", "N1")}
    assert legend["H1"][3:] == ["henchman", "1/1", "facing ne; Thug"]
    assert legend["N1"][3] == "nemesis" and legend["C1"][3] == "civvie"


def test_the_html_legend_has_a_kind_column_only_where_pieces_differ_in_kind():
    units = Board(3, 2, {}, [Piece("A1", "a1", "a", "unit", "A1")], sides=["a"])
    assert ">Kind</th>" not in html_legend(units) and ">Health</th>" in html_legend(units)
    mixed = Board(3, 2, {}, [Piece("A1", "a1", "a", "unit", "A1"), Piece("C1", "b2", None, "civvy", "C1")],
                  sides=["a"])
    legend = html_legend(mixed)
    assert ">Kind</th>" in legend and '<td style="padding:2px 8px">civvy</td>' in legend
    assert legend.count("<td") == 2 * 6 and legend.count("<th") == 6
