"""Every registered ruleset, played by hand from the web form and by mail.

A game is created and joined through the JSON API (embedded mode, CSRF on). Then the
players act as people would: on the web player page they read the order form (CSRF
token, a list of legal orders per unit and verb, a free-text box), pick from the lists, type
the rest, get a mistake back with its line number and send the fix; by mail they reply
to the results mail they were sent (the Reply-To with its token, their orders on top
and the old mail quoted below) and read the confirmation listing the accepted lines.
Later rounds take the engine bot's choice of orders, but still go in through the form
or a mail reply, alternating, until the game ends. Each round's results mail must
show the grid (ASCII in the text part, a table in the HTML part), the events and the
roll log, and so must the round page; the final record must verify.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, field
from email.message import EmailMessage
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from markupsafe import escape
from sqlalchemy import func, select

from engine import Board, OrderErrors, Ruleset, bot_orders, distance, find_ruleset, parse_square, ruleset_ids
from engine.dice import NEW_GAME_PROFILE
from engine.steps import canonical_input
from engine.verify import parse_record, verify
from service import create_app
from service.commands.verify import EXIT_OK, check
from service.db import engine_of, session_scope
from service.inbound.receive import Outcome, receive
from service.models import Seat, Step, Submission
from service.render.sentences import plain
from tests.conftest import base_config, migrated_sqlite
from tests.mail.mail_world import MailPlayer, html_of, stored_mail, text_of
from tests.service.play import Table, start

SEATS = ("alice", "bob")
OPTIONS: dict[str, dict[str, Any]] = {
    "universal": {"width": 8, "height": 8},
    "jep1": {"width": 8, "height": 8},
    "fivedice": {"width": 8, "height": 8},
    # Nemeses from round 2 and a short race, so a winner comes in a test's time.
    "heroes": {"nemesis_trigger": "round:2", "civvies_to_win": 2},
}
MAX_ROUNDS = 40  # a draw at worst: the game always ends
MULTI_LINE = ("jep1", "fivedice")  # a unit may be given a move and then an attack


@pytest.fixture
def csrf_app(tmp_path: Path) -> Any:
    app = create_app(base_config(migrated_sqlite(tmp_path / "by-hand.sqlite3"), WTF_CSRF_ENABLED=True))
    yield app
    engine_of(app).dispose()


class OrderForm(HTMLParser):
    """The order form of a player page, read the way a browser submits it."""

    def __init__(self, action: str) -> None:
        super().__init__(convert_charrefs=True)
        self.action = action
        self.inside = False
        self.found = False
        self.hidden: dict[str, str] = {}
        self.selects: dict[str, list[str]] = {}  # name → option values, in order
        self.labels: dict[str, str] = {}  # select id → label text ("A1 move": the unit and verb)
        self.unit_of: dict[str, str] = {}  # select name → the unit it orders (data-unit)
        self.textareas: list[str] = []
        self.selected: dict[str, list[str]] = {}  # select name → options marked selected
        self.typed: dict[str, str] = {}  # textarea name → its text
        self._textarea: str | None = None
        self._select: str | None = None
        self._group = ""  # the label of the optgroup being read ("" outside one)
        self.group_of: dict[str, str] = {}  # option value → its group's label
        self._label: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form" and a.get("action") == self.action:
            self.inside = self.found = True
        if not self.inside:
            return
        if tag == "input" and a.get("type") == "hidden":
            self.hidden[a["name"]] = a.get("value", "")
        elif tag == "select":
            self._select = a["name"]
            self.selects[self._select] = []
            self.unit_of[self._select] = a.get("data-unit", "")
        elif tag == "optgroup":
            self._group = a.get("label", "")
        elif tag == "option" and self._select is not None:
            self.selects[self._select].append(a.get("value", ""))
            self.group_of[a.get("value", "")] = self._group
            if "selected" in a:
                self.selected.setdefault(self._select, []).append(a.get("value", ""))
        elif tag == "label" and a.get("for"):
            self._label = a["for"]
            self.labels[self._label] = ""
        elif tag == "textarea":
            self.textareas.append(a["name"])
            self._textarea = a["name"]
            self.typed[self._textarea] = ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self.inside = False
        elif tag == "select":
            self._select = None
        elif tag == "optgroup":
            self._group = ""
        elif tag == "label":
            self._label = None
        elif tag == "textarea":
            self._textarea = None

    def handle_data(self, data: str) -> None:
        if self._label is not None:
            self.labels[self._label] = " ".join((self.labels[self._label] + " " + data).split())
        if self._textarea is not None:
            self.typed[self._textarea] += data

    def as_a_browser_sends_it(self) -> dict[str, str]:
        """The fields as they stand: a list sends its (last) selected option, else the first."""
        data = dict(self.hidden)
        for name, values in self.selects.items():
            data[name] = (self.selected.get(name) or values[:1])[-1]
        for name, text in self.typed.items():
            data[name] = text.removeprefix("\n")  # HTML drops a textarea's leading newline
        return data

    def units(self) -> dict[str, list[tuple[str, list[str]]]]:
        """Unit → its lists in form order: (select name, the legal lines it offers besides
        `no <verb>`), one list per verb, each labelled with the unit and the verb."""
        out: dict[str, list[tuple[str, list[str]]]] = {}
        for name, values in self.selects.items():
            unit = self.unit_of[name]
            assert values[0] == "", "every list starts with no order"
            verbs = {line.split()[1].lower() for line in values[1:]}
            assert len(verbs) == 1 and {line.split()[0] for line in values[1:]} == {unit}, values
            assert self.labels[name] == f"{unit} {verbs.pop()}", "a list is labelled with its unit and verb"
            out.setdefault(unit, []).append((name, values[1:]))
        return out


def read_form(client: Any, path: str) -> OrderForm:
    page = client.get(path)
    assert page.status_code == 200
    form = OrderForm(path)
    form.feed(page.get_data(as_text=True))
    assert form.found, "the player page has an order form"
    assert form.hidden.get("csrf_token"), "the form carries a CSRF token"
    assert "free" in form.textareas
    return form


def legal_text(ruleset: Ruleset[Any], state: Any, seat: str) -> dict[str, list[str]]:
    """Each unit's legal orders as the lines a player sends."""
    return {u: [o.format() for o in orders] for u, orders in ruleset.legal_orders(state, seat).items()}


def error_box(page: str) -> str:
    found = re.search(r'<div class="error"[^>]*>.*?</div>', page, re.S)
    return found.group(0) if found else page[:500]


def unit_of(line: str) -> str:
    return line.split()[0].upper()


def norm(lines: list[str]) -> list[str]:
    return sorted(" ".join(line.split()).lower() for line in lines)


def subject_is(mail: EmailMessage, ending: str) -> bool:
    return str(mail["Subject"]).endswith(ending)


def mails(player: MailPlayer, ending: str) -> list[EmailMessage]:
    return [m for m in player.inbox() if subject_is(m, ending)]


@dataclass
class Game:
    app: Flask
    table: Table
    ruleset: Ruleset[Any]
    players: dict[str, MailPlayer]
    multi: set[str] = field(default_factory=set)  # channels that sent a move then an attack
    channels: dict[str, int] = field(default_factory=dict)
    seen_kinds: set[str] = field(default_factory=set)
    picked: int = 0  # lines chosen from the per-unit lists
    pairs: list[tuple[int, list[str]]] = field(default_factory=list)  # (round, [move, attack])
    retyped: int = 0  # web turns typed whole because the lists' line order would not do
    several: int = 0  # units given two or more lines from their lists in one web turn

    @property
    def id(self) -> str:
        return self.table.id

    def state(self) -> Any:
        return self.ruleset.load(self.table.state(self.app))

    def step(self, t: int) -> Step:
        with session_scope(self.app) as s:
            step = s.scalars(select(Step).where(Step.game_id == self.id, Step.t == t)).one()
            s.expunge(step)
            return step

    def submissions(self) -> int:
        with session_scope(self.app) as s:
            return int(s.scalar(select(func.count()).select_from(Submission)) or 0)

    def player_path(self, seat: str) -> str:
        return f"/games/{self.id}/player/{self.table.tokens[seat]}"

    def orders_for(self, seat: str) -> list[str]:
        """The engine bot's choice of orders for this seat now; where it leaves everything
        to the game (the heroes villain seat) a random pick of the legal orders instead."""
        text = self.table.bot(self.app, seat)
        if not text.strip():
            text = bot_orders(self.ruleset, self.state(), seat, f"by-hand-{seat}", kind="random")
        return [ln for ln in text.splitlines() if ln.strip()]

    def move_then_attack(self, seat: str) -> list[str] | None:
        """A unit's legal move to a square next to an enemy, then its attack on that enemy.

        fivedice: a move beyond MP costs the attack unless it says `lose defence` (and
        beyond 2 x MP costs both), so only the offered `lose defence` moves are taken."""
        state = self.state()
        board = self.ruleset.board(state)
        enemies = [p for p in board.pieces if p.side not in (seat, None)]
        for unit, choices in sorted(self.ruleset.legal_orders(state, seat).items()):
            moves = [c for c in choices if c.role == "move" and c.square]
            lose_defence = [m for m in moves if m.args[1:] == ("lose", "defence")]
            keeping = lose_defence or [m for m in moves if len(m.args) == 1]
            for enemy in enemies:
                for move in keeping:
                    if distance(parse_square(move.square or ""), parse_square(enemy.square)) != 1:
                        continue
                    pair = [move.format(), f"{unit} attack {enemy.id}"]
                    if self.accepts(seat, pair):
                        return pair
        return None

    def plan(self, seat: str, channel: str) -> list[str]:
        """The bot's orders; in jep1 and fivedice, until this channel has shown it, one
        unit's lines replaced by a move next to an enemy and then an attack on it."""
        lines = self.orders_for(seat)
        if self.ruleset.info.id in MULTI_LINE and channel not in self.multi:
            pair = self.move_then_attack(seat)
            if pair is not None:
                unit = unit_of(pair[0])
                lines = [ln for ln in lines if unit_of(ln) != unit] + pair
                self.multi.add(channel)
                self.pairs.append((self.table.status()["round"], pair))
        return lines

    # -- the web form -------------------------------------------------------------

    def form_data(self, seat: str, lines: list[str], extra: list[str]) -> tuple[dict[str, str], list[str]]:
        """Fill the form: each of a unit's lists takes its first line it offers, the rest typed.

        Returns the form fields and the order text as the server will number it (the
        chosen lines, then the free-text box)."""
        form = read_form(self.table.client, self.player_path(seat))
        legal = legal_text(self.ruleset, self.state(), seat)
        units = form.units()
        assert {u: sorted(ln for _, offered in lists for ln in offered) for u, lists in units.items()} \
            == {u: sorted(c) for u, c in legal.items() if c}, "each unit's lists offer exactly its legal orders"
        for u, lists in units.items():  # each list (each group of a long one) keeps the ruleset's order
            for _, offered in lists:
                for group in {form.group_of[c] for c in offered}:
                    shown = [c for c in offered if form.group_of[c] == group]
                    assert shown == [c for c in legal[u] if c in shown], (u, group, shown)
        assert list(units) == sorted(units, key=lambda u: [(int(p), "") if p.isdigit() else (-1, p)
                                                   for p in re.split(r"(\d+)", u) if p]), \
            "units in natural order (B2 before B10)"
        assert form.hidden["round"] == str(self.table.status()["round"])
        data = {"csrf_token": form.hidden["csrf_token"], "round": form.hidden["round"],
                "units": form.hidden["units"]}
        rest = list(lines)
        chosen: dict[str, str] = {}
        for unit, lists in units.items():  # each list takes the unit's first line it offers
            for name, offered in lists:
                first = next((ln for ln in rest if unit_of(ln) == unit.upper() and ln in offered), None)
                if first is not None:
                    chosen[name] = first
                    rest.remove(first)
        if chosen and not self.accepts(seat, [*chosen.values(), *rest]):
            # The form sends the lists' lines first, in unit order; where the rules read
            # lines in order (universal: a move can block a later one), that can refuse
            # what the player meant, so they type the lines in their own order instead.
            chosen, rest = {}, list(lines)
            self.retyped += 1
        self.picked += len(chosen)
        self.several += sum(1 for lists in units.values() if sum(name in chosen for name, _ in lists) > 1)
        data.update({name: chosen.get(name, "") for lists in units.values() for name, _ in lists})
        typed = rest + extra if lines or extra else ["pass"]
        data["free"] = "\n".join(typed)
        return data, [*chosen.values(), *typed]

    def accepts(self, seat: str, lines: list[str]) -> bool:
        try:
            self.ruleset.parse_orders(self.state(), seat, "\n".join(lines))
        except OrderErrors:
            return False
        return True

    def by_web(self, seat: str, lines: list[str], mistake: str | None = None) -> None:
        path = self.player_path(seat)
        number = self.table.status()["round"]
        if mistake is not None:
            before = self.submissions()
            data, numbered = self.form_data(seat, lines, [mistake])
            r = self.table.client.post(path, data=data)
            page = r.get_data(as_text=True)
            assert r.status_code == 422, error_box(page)
            line = numbered.index(mistake) + 1
            box = data["free"].split("\n").index(mistake) + 1  # typed last, in the box
            assert "Nothing was stored" in page
            assert f"box line {box} <code>{escape(mistake)}</code>" in page, error_box(page)
            # The copy of the orders as sent, each with where it was written: the
            # mistake is the refused line.
            copy = page.split("The orders as sent, each with where you wrote it")[1].split("</ol>")[0]
            items = re.findall(r"<li[^>]*>.*?</li>", copy, re.S)
            assert len(items) == len(numbered) and f"<code>{escape(mistake)}</code>" in items[line - 1]
            assert [i for i, item in enumerate(items, 1) if "refused" in item] == [line]
            assert self.submissions() == before
            forged = {k: v for k, v in self.form_data(seat, lines, [])[0].items() if k != "csrf_token"}
            r = self.table.client.post(path, data=forged)
            assert r.status_code == 400 and "CSRF" in r.get_data(as_text=True)
            assert self.submissions() == before
        data, numbered = self.form_data(seat, lines, [])
        r = self.table.client.post(path, data=data)  # stored: Post/Redirect/Get
        assert r.status_code == 303, (error_box(r.get_data(as_text=True)), lines)
        r = self.table.client.get(r.headers["Location"])
        page = r.get_data(as_text=True)
        assert r.status_code == 200, (error_box(page), lines)
        # (said of the round it was for when these orders closed it)
        found = re.search(r"(?:Round (\d+): your orders are stored|Your orders for round (\d+) were stored)"
                          r" as version (\d+): ([^<]*?)(?:\. They were the last orders it waited for[^<]*)?</p>",
                          page)
        assert found is not None, error_box(page)
        assert int(found.group(1) or found.group(2)) == number
        if lines:
            # The stored text, without the readiness and receipt sentences that follow it.
            text = re.sub(r"\. You are (?:NOT )?ready[,:].*$", "", found.group(4))
            text = re.sub(r"\. Receipt [0-9a-f]{64} \(keep it[^)]*\)\s*$", "", text)
            accepted = text.replace("&#39;", "'").split("; ")
            assert norm(accepted) == norm(lines), (accepted, lines)
        confirmation = mails(self.players[seat], f"Orders stored for round {number}")[-1]
        assert "sent by web" in text_of(confirmation)
        self.confirmed(confirmation, lines)
        self.channels["web"] = self.channels.get("web", 0) + 1

    # -- mail ---------------------------------------------------------------------

    def results_mail(self, seat: str, number: int) -> EmailMessage:
        ending = "The game has started" if number == 1 else f"Round {number - 1} results"
        found = mails(self.players[seat], ending)
        assert len(found) == 1, [str(m["Subject"]) for m in self.players[seat].inbox()]
        return found[0]

    def reply(self, seat: str, mail: EmailMessage, body: str) -> Outcome:
        out = self.players[seat].reply(mail, body)
        assert isinstance(out, Outcome) and out.status == "processed", out
        return out

    def by_mail(self, seat: str, lines: list[str], mistake: str | None = None) -> None:
        number = self.table.status()["round"]
        mail = self.results_mail(seat, number)
        text = text_of(mail)
        token = re.search(r"TOKEN (\S+)", text)
        assert token is not None and token.group(1) in mail["Reply-To"].addresses[0].addr_spec
        assert "It needs your orders" in text
        if mistake is not None:
            sent = [*lines, mistake]
            self.reply(seat, mail, "\n".join(sent))
            refused = mails(self.players[seat], f"Orders NOT stored for round {number}")[-1]
            body = text_of(refused)
            line = sent.index(mistake) + 1
            assert re.search(rf"^ *{line}  {re.escape(mistake)}\n +\^ ", body, re.M), body
        self.reply(seat, mail, "\n".join(lines) if lines else "pass")
        confirmation = mails(self.players[seat], f"Orders stored for round {number}")[-1]
        assert "sent by mail" in text_of(confirmation)
        self.confirmed(confirmation, lines)
        self.channels["mail"] = self.channels.get("mail", 0) + 1

    def confirmed(self, mail: EmailMessage, lines: list[str]) -> None:
        """The confirmation lists the accepted lines, numbered, as the rules read them."""
        text = text_of(mail)
        listed = re.findall(r"^ *\d+  (.+)$", text.split("As the rules read them:")[1].split("\n\n")[0], re.M)
        assert norm(listed) == norm(lines or ["pass"]), (listed, lines)

    # -- what a round shows -------------------------------------------------------

    def check_round(self, number: int) -> None:
        api = self.table.client.get(f"/api/games/{self.id}/rounds/{number}").json
        step = self.step(number + 1)
        board = self.ruleset.board(self.ruleset.load(step.state))
        page = self.table.client.get(f"/games/{self.id}/rounds/{number}").get_data(as_text=True)
        assert "<svg" in page
        for event in api["events"]:
            assert str(escape(plain(event["text"]))) in page
        for sent_in, (_move, attack) in self.pairs:
            # Both lines were taken: the attack was made, or the log says why not (the
            # target moved off or fell, an enemy's skirmish spent it), or the unit fell.
            unit = unit_of(attack)
            if sent_in == number and any(p.id == unit for p in board.pieces):
                assert any(e["text"].startswith(f"{unit} attacks") or
                           (f"'{attack}'" in e["text"] and "skipped" in e["text"])
                           for e in api["events"]), api["events"]
        for roll in api["rolls"]:
            assert f"<td>d{roll['n']}</td><td>{roll['face']}</td>" in page
        for seat, player in self.players.items():
            found = mails(player, f"Round {number} results")
            assert len(found) == 1, f"{seat}: one results mail for round {number}"
            text, html = text_of(found[0]), html_of(found[0])
            self.check_grid(board, text, html)
            for event in api["events"]:  # as the rules wrote it, with its counts read ("1 square")
                assert f"- {plain(event['text'])}" in text
                assert f"<li>{escape(plain(event['text']))}</li>" in html
            count = len(api["rolls"])
            assert (f"ROLL LOG OF ROUND {number} (dice step {number + 1}, {count} "
                    f"roll{'s' if count != 1 else ''})") in text
            for roll in api["rolls"]:
                row = f"{roll['j']:4d}  d{roll['n']:<4} {roll['face']:4d}  {roll['label']}"
                assert row.rstrip() in text
                assert f"<b>{roll['face']}</b></td><td style=\"padding:2px 8px\">{escape(roll['label'])}</td>" in html
            self.check_specific(seat, board, api, text, html)
        if self.ruleset.info.id == "heroes":
            self.check_heroes_page(board)

    def check_grid(self, board: Board, text: str, html: str) -> None:
        grid = text.split("THE GRID\n")[1]
        columns = "   ".join("abcdefghijklmnopqrstuvwxyz"[: board.width])
        assert grid.splitlines()[0].strip() == columns
        rows = grid.splitlines()[1: board.height + 1]
        assert [r.split()[0] for r in rows] == [str(n) for n in range(board.height, 0, -1)]
        assert '<table role="grid"' in html
        for piece in board.pieces:
            assert re.search(rf"^  {re.escape(piece.label)} +{piece.square.lower()} ", grid, re.M), piece
            assert f">{escape(piece.label)}</b>" in html

    def check_specific(self, seat: str, board: Board, api: dict[str, Any], text: str, html: str) -> None:
        if self.ruleset.info.id != "heroes":
            return
        legend = text.split("THE GRID\n")[1].split("WHAT HAPPENED")[0]
        assert re.search(r"^  r +rooftop", legend, re.M) and " r " in legend.split("Pieces:")[0]
        assert "rooftop" in html
        for piece in board.pieces:
            line = next(ln for ln in legend.splitlines() if ln.startswith(f"  {piece.label} "))
            assert piece.kind in line, (piece, line)  # hero, civvie, henchman, nemesis
            assert f'<td style="padding:2px 8px">{piece.kind}</td>' in html
            if piece.facing:
                assert f"facing {piece.facing}" in line, (piece, line)
                assert f"facing {piece.facing}; {escape(piece.note)}</td>" in html
            self.seen_kinds.add(piece.kind)
        heroes = [p for p in board.pieces if p.kind == "hero"]
        yours = text.split("YOUR UNITS\n")[1].split("\n\n")[0]
        for hero in heroes:
            if hero.side == seat:
                assert (f"- {hero.label} on {hero.square}, health {hero.health}/{hero.max_health}, "
                        f"facing {hero.facing} ({hero.note})") in yours, yours
        events = [e["text"] for e in api["events"] if e["text"].startswith("Civvies saved:")]
        assert len(events) == 1, api["events"]
        for hero in heroes:
            count = re.search(r"(\d+) civvies? saved", hero.note)
            assert count is not None
            assert f"{hero.id} ({hero.side}) {count.group(1)}" in events[0]
            assert re.search(rf"^  {hero.label} .*{count.group(1)} civvies? saved", legend, re.M), legend

    def check_heroes_page(self, board: Board) -> None:
        page = self.table.client.get(f"/games/{self.id}").get_data(as_text=True)
        assert "rooftop" in page
        svg = page.split("<svg", 1)[1].split("</svg>", 1)[0]
        for piece in board.pieces:  # each figure drawn as what it is, facing marked
            owner = piece.side or "game"
            # (the group names the piece and its square for tapping the grid)
            assert (f'<g class="piece {piece.kind}" data-id="{escape(piece.id)}" '
                    f'data-square="{piece.square.lower()}"><title>{escape(piece.label)} ({owner}, '
                    f"{piece.kind}) on {piece.square}") in svg, piece
        assert svg.count("<title>facing ") == sum(1 for p in board.pieces if p.facing)
        for piece in board.pieces:
            cells = (f'<tr><td data-label="Piece">{escape(piece.label)}</td>'
                     f'<td data-label="Square">{piece.square.lower()}</td>')
            row = next((ln for ln in page.splitlines() if cells in ln), None)
            assert row is not None, piece
            assert f'<td data-label="Kind">{piece.kind}</td>' in row
            if piece.facing:
                assert f"facing {piece.facing}" in row, row


def new_game(app: Flask, ruleset_id: str, **extra: Any) -> Game:
    client = app.test_client()
    table = start(client, ruleset_id, SEATS,
                  options={**OPTIONS.get(ruleset_id, {}), **extra, "max_rounds": MAX_ROUNDS})
    app_client_read = stored_mail(app)

    def send(raw: bytes) -> Outcome:
        with app.app_context():
            return receive(raw)

    players = {s: MailPlayer(f"{s}@example.org", app_client_read, send) for s in SEATS}
    return Game(app, table, find_ruleset(ruleset_id), players)


CASES = [pytest.param(r, {}, id=r) for r in ruleset_ids()] + [
    # heroes with the last seat playing the henchmen and nemeses
    pytest.param("heroes", {"villain_player": True}, id="heroes-villain"),
]


@pytest.mark.parametrize(("ruleset_id", "options"), CASES)
def test_a_human_plays_it_from_the_web_form_and_by_mail(csrf_app: Flask, ruleset_id: str,
                                                        options: dict[str, Any], tmp_path: Path) -> None:
    game = new_game(csrf_app, ruleset_id, **options)
    # Round 1 on the web: lists, typed lines, a mistake sent back by line number, the fix.
    for seat in game.table.status()["expected"]:
        game.by_web(seat, game.plan(seat, "web"), mistake=f"{seat[0].upper()}9 jump z99")
    game.check_round(1)
    # Round 2 by mail: a reply to the results mail, a mistake, the fix.
    if game.table.status()["status"] == "active":
        for seat in game.table.status()["expected"]:
            game.by_mail(seat, game.plan(seat, "mail"), mistake="bogus order here")
        game.check_round(2)
    # Then every round, both ways, alternating per seat and round, until the game ends.
    while (status := game.table.status())["status"] == "active":
        number = status["round"]
        assert number <= MAX_ROUNDS
        for i, seat in enumerate(status["expected"]):
            channel = "web" if (number + i) % 2 == 0 else "mail"
            lines = game.plan(seat, channel)
            (game.by_web if channel == "web" else game.by_mail)(seat, lines)
        game.check_round(number)
    assert game.table.status()["status"] == "finished"
    assert set(game.channels) == {"web", "mail"}
    assert game.picked > 0, "orders were chosen from the per-unit lists"
    with session_scope(csrf_app) as s:
        given = set(s.scalars(select(Seat.name).join(Submission, Submission.seat_id == Seat.id)
                              .where(Seat.game_id == game.id, Submission.accepted != "pass")))
    assert given == set(SEATS), "every player (the villain seat too) gave real orders"
    if ruleset_id in MULTI_LINE:
        assert game.multi == {"web", "mail"}, "a move then an attack for one unit, both ways"
        assert game.several > 0, "a unit's move and attack chosen from its lists"
    if ruleset_id == "heroes":
        assert {"hero", "civvie", "henchman", "nemesis"} <= game.seen_kinds
    for player in game.players.values():
        over = [m for m in player.inbox() if "Game over" in str(m["Subject"])]
        assert len(over) == 1 and "THE FINAL GRID" in text_of(over[0])
    record = game.table.client.get(f"/api/games/{game.id}/record")
    assert record.status_code == 200
    result = verify(parse_record(record.data))
    assert result.ok, result.difference
    path = tmp_path / "record.json"
    path.write_bytes(record.data)
    assert check(str(path), out=io.StringIO()) == EXIT_OK


def test_the_page_after_the_last_orders_shows_the_next_round(sqlite_app: Flask) -> None:
    """The last player's orders resolve the round (in-process here, by a worker in full
    mode) before the page is drawn: it must show round 2, not what the request read before."""
    table = start(sqlite_app.test_client(), "universal", SEATS, options=OPTIONS["universal"])
    for seat in SEATS:
        r = table.client.post(f"/games/{table.id}/player/{table.tokens[seat]}",
                              data={"round": "1", "units": "0", "free": "pass"}, follow_redirects=True)
        assert r.status_code == 200, error_box(r.get_data(as_text=True))
    page = r.get_data(as_text=True)
    assert table.status()["round"] == 2
    # The notice says the orders closed round 1, not "stored" above round 2's form.
    assert "Round 1: your orders are stored" not in page
    assert "Your orders for round 1 were stored as version 1" in page and "round 2 is open" in page
    assert "Orders for round 2" in page and '<input type="hidden" name="round" value="2">' in page


def test_the_rulesets_index_lists_every_ruleset_with_its_page() -> None:
    root = Path(__file__).resolve().parents[2]
    index = (root / "docs/rulesets/README.md").read_text()
    for ruleset_id in ruleset_ids():
        assert f"| [`{ruleset_id}`]({ruleset_id}.md) |" in index
        assert (root / f"docs/rulesets/{ruleset_id}.md").is_file()
    assert "(docs/rulesets/README.md)" in (root / "README.md").read_text()


@pytest.mark.parametrize("ruleset_id", ["jep1", "heroes"])
def test_sending_the_form_again_as_it_comes_keeps_every_line(csrf_app: Flask, ruleset_id: str) -> None:
    """The form starts from the orders that count; a unit with two lines from its list
    (jep1 move + guard, heroes move + face) must not lose one when it is sent again."""
    game = new_game(csrf_app, ruleset_id)
    state = game.state()
    legal = legal_text(game.ruleset, state, "alice")
    _unit, choices = sorted(legal.items())[0]
    move = next(c for c in choices if c.split()[1] == "move")
    other = next(c for c in choices if c.split()[1] in ("guard", "face"))
    assert game.table.put("alice", f"{move}\n{other}").status_code == 200
    # both lines count, in the order the rules read them (dicepost-dice/v3)
    counted = canonical_input(game.ruleset, state, "alice", f"{move}\n{other}", NEW_GAME_PROFILE).splitlines()
    assert sorted(counted) == sorted([move, other])
    form = read_form(game.table.client, game.player_path("alice"))
    # Both lines stand in the form, in the order they count: in the unit's lists while that
    # keeps to the lists' order, else in the box (the rules read them alike either way).
    shown = [v for chosen in form.selected.values() for v in chosen] + form.typed["free"].split("\n")
    assert sorted(line for line in shown if line.strip()) == sorted([move, other])
    r = game.table.client.post(game.player_path("alice"), data=form.as_a_browser_sends_it())
    assert r.status_code == 303, error_box(r.get_data(as_text=True))  # stored: Post/Redirect/Get
    with session_scope(csrf_app) as s:
        latest = s.scalars(select(Submission).order_by(Submission.version.desc())).first()
        assert latest is not None and latest.version == 2 and latest.source == "web"
        assert latest.accepted.splitlines() == counted


def test_sending_the_form_again_keeps_the_order_the_lines_were_written(csrf_app: Flask) -> None:
    """universal reads a side's lines in the order written: a later unit's line written
    first must still come first when the pre-filled form is sent again."""
    game = new_game(csrf_app, "universal")
    legal = legal_text(game.ruleset, game.state(), "alice")
    first, second = sorted(legal, key=lambda u: (len(u), u))[:2]
    written = next([b, a] for b in legal[second] for a in legal[first]
                   if " move " in a and " move " in b and a.split()[-1] != b.split()[-1]
                   and game.accepts("alice", [b, a]))
    assert game.table.put("alice", "\n".join(written)).status_code == 200
    form = read_form(game.table.client, game.player_path("alice"))
    r = game.table.client.post(game.player_path("alice"), data=form.as_a_browser_sends_it())
    assert r.status_code == 303, error_box(r.get_data(as_text=True))  # stored: Post/Redirect/Get
    with session_scope(csrf_app) as s:
        versions = s.scalars(select(Submission).order_by(Submission.version)).all()
        assert [v.version for v in versions] == [1, 2] and versions[1].source == "web"
        assert versions[1].accepted.splitlines() == versions[0].accepted.splitlines() == written
