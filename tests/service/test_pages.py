"""The web pages: readable without JavaScript, escaped, CSRF-protected, showing the dice."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

from flask import Flask, render_template
from sqlalchemy import event, select

from engine import find_ruleset
from service import create_app
from service.db import engine_of, get_session, session_scope
from service.models import Game, Seat, Step, Submission
from service.urls import record_url
from service.web.data import RECENT, round_page
from tests.conftest import base_config, loopback_client, migrated_sqlite
from tests.service.play import counts, create, start, without_nonce


def _html(r: Any) -> str:
    return without_nonce(r.get_data(as_text=True))  # each answer has its own nonce


def _play_round(app: Flask, table: Any) -> None:
    for seat in table.status()["expected"]:
        assert table.put(seat, table.bot(app, seat)).status_code == 200


def test_home_lists_public_games_and_escapes(app: Flask, client: Any) -> None:
    create(client, title="<script>alert(1)</script>")
    create(client, title="hidden game", public=False)
    page = _html(client.get("/"))
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "<script>alert(1)" not in page
    assert "hidden game" not in page
    assert 'name="csrf_token"' in page and 'name="ruleset"' in page
    assert all(f'value="{r}"' in page for r in ("universal", "jep1", "fivedice", "heroes"))


def test_home_says_how_many_play_each_ruleset(sqlite_app: Flask) -> None:
    """jep1 is for exactly two: '2 players', not '2–2 players'; universal: '2–4 players'."""
    page = _html(sqlite_app.test_client().get("/"))
    assert "(jep1, 2 players)" in page and "2–2" not in page
    assert "(universal, 2–4 players)" in page


def test_create_game_from_the_form(app: Flask, client: Any) -> None:
    """Post/Redirect/Get: the POST answers 303 to the created page, whose reload shows the
    same links and creates nothing."""
    before = counts(app)
    r = client.post("/games", data={"ruleset": "universal", "title": "Form game",
                                    "seats": "alice alice@example.org\nbob", "options": "width = 10",
                                    "public": "on", "policy_preset": "monthu",
                                    "policy_timezone": "Europe/Berlin"})
    assert r.status_code == 303 and r.headers["Location"].endswith("/created")
    page = _html(client.get(r.headers["Location"]))
    links = re.findall(r'href="(http://dicepost\.test/games/\w+/join/[^"]+)"', page)
    assert len(links) == 2 and "Keep these links" in page
    assert "Invitations mailed to alice (alice@example.org)" in page
    assert _html(client.get(r.headers["Location"])) == page  # the reload
    assert counts(app)["games"] == before["games"] + 1
    game_id = r.headers["Location"].split("/")[2]
    with session_scope(app) as s, s.begin():
        policy = dict(s.get(Game, game_id).deadline_policy)
    assert policy["kind"] == "calendar" and policy["days"] == ["mon", "thu"]
    assert policy["time"] == "20:00" and policy["timezone"] == "Europe/Berlin"
    # Another browser (no session cookie) is not shown the links.
    other = app.test_client().get(r.headers["Location"])
    assert other.status_code == 410 and "/join/" not in _html(other)
    r = client.post("/games", data={"ruleset": "universal", "seats": "alice\nbob", "options": "colour = red"})
    assert r.status_code == 422 and "colour" in _html(r) and "options.colour" in _html(r)


def test_the_create_form_shows_every_problem_at_once(app: Flask, client: Any) -> None:
    before = counts(app)
    r = client.post("/games", data={
        "ruleset": "universal", "title": "x" * 201, "seats": "alice\nbob b@example.org extra",
        "options": "colour = red", "policy_preset": "custom", "policy_kind": "calendar",
        "policy_time": "25:00", "policy_timezone": "Mars/Olympus", "policy_absence_limit": "soon"})
    assert r.status_code == 422 and counts(app) == before
    page = _html(r)
    for expected in ("title: at most 200 characters", "seats line 2", "option colour",
                     "tick at least one day", "unknown IANA time zone", "expected HH:MM",
                     "&#39;soon&#39; is not a duration"):
        assert expected in page, expected
    assert "7 problems to fix" in page
    assert 'id="policy_time-error"' in page  # at its field too
    assert 'value="Mars/Olympus"' in page  # what was typed is kept


def test_forms_need_the_csrf_token(tmp_path: Path) -> None:
    app = create_app(base_config(migrated_sqlite(tmp_path / "csrf.sqlite3"), WTF_CSRF_ENABLED=True))
    client = app.test_client()
    before = counts(app)
    r = client.post("/games", data={"ruleset": "universal", "seats": "alice\nbob"})
    assert r.status_code == 400 and "CSRF" in _html(r)
    assert counts(app) == before
    page = _html(client.get("/"))
    token = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert token is not None
    r = client.post("/games", data={"ruleset": "universal", "seats": "alice\nbob",
                                    "csrf_token": token.group(1)})
    assert r.status_code == 303
    # The JSON API is exempt: it authenticates with bearer tokens, not cookies.
    assert client.post("/api/games", json={"ruleset": "universal",
                                           "seats": [{"name": "a"}, {"name": "b"}]}).status_code == 201


def test_join_page_without_javascript(app: Flask, client: Any) -> None:
    table = create(client)
    seat = table.created["seats"][0]
    path = f"/games/{table.id}/join/{seat['invite_token']}"
    page = _html(client.get(path))
    assert "crypto.getRandomValues" in page and 'name="entropy"' in page
    assert table.created["commitment"] in page
    keep = " ".join(re.sub(r"<[^>]+>", "", page.split('id="keep-s0">', 1)[1].split("</p>", 1)[0]).split())
    assert "Keep S0 and your entropy" in keep and "proof of the game you joined" in keep
    assert "dicepost verify RECORD --commitment S0 --entropy SEAT=HEX" in keep
    r = client.post(path, data={"entropy": "", "force": ""})
    assert r.status_code == 303 and r.headers["Location"] == path + "/done"
    done = _html(client.get(path + "/done"))
    url = re.search(r'href="(http://dicepost\.test/games/\w+/player/[^"]+)"', done)
    assert url is not None and "Keep this link" in done
    assert _html(client.get(path + "/done")) == done  # a reload joins nothing and shows the same
    # The used invitation, in this browser: back to the joined page; elsewhere: the seat is taken.
    assert client.get(path).headers["Location"] == path + "/done"
    taken = app.test_client().get(path)
    assert taken.status_code == 409 and "This seat of" in _html(taken) and "is taken" in _html(taken)
    assert f'href="/games/{table.id}"' in _html(taken) and 'name="entropy"' not in _html(taken)
    assert app.test_client().post(path, data={"entropy": ""}).status_code == 409
    with session_scope(app) as s, s.begin():
        joined = s.scalars(select(Seat).where(Seat.name == "alice", Seat.game_id == table.id)).one()
        assert joined.entropy_source == "server"
    r = client.post(f"/games/{table.id}/join/{table.created['seats'][1]['invite_token']}",
                    data={"entropy": "12", "force": ""})
    assert r.status_code == 422 and "entropy must be hex" in _html(r)
    r = client.post(f"/games/{table.id}/join/{table.created['seats'][1]['invite_token']}",
                    data={"entropy": "", "force": "{oops"})
    assert r.status_code == 422 and "not valid JSON" in _html(r)


def test_game_and_round_pages(app: Flask, client: Any) -> None:
    table = start(client)
    page = _html(client.get(f"/games/{table.id}"))
    assert "<svg" in page and "waiting for orders" in page
    assert table.created["commitment"] in page and "holds" in page and "FAILS" not in page
    record_url = f"http://dicepost.test/api/games/{table.id}/record"
    assert f'href="/verify?record={quote(record_url, safe="/")}"' in page
    assert table.put("alice", table.bot(app, "alice")).status_code == 200
    moved = re.findall(r'<td data-label="Round 1">([^<]*)</td>', _html(client.get(f"/games/{table.id}")))
    assert moved == ["submitted", "waiting for orders"]
    _play_round(app, table)
    page = _html(client.get(f"/games/{table.id}"))
    assert f'href="/games/{table.id}/rounds/1"' in page and "Roll log of round 1" in page and "of step" not in page
    rnd = client.get(f"/api/games/{table.id}/rounds/1").json
    round_page = _html(client.get(f"/games/{table.id}/rounds/1"))
    assert rnd["key"] in round_page and "holds" in round_page and "<svg" in round_page
    for roll in rnd["rolls"][:5]:
        assert f"<td>d{roll['n']}</td><td>{roll['face']}</td>" in round_page
    assert client.get(f"/games/{table.id}/rounds/2").status_code == 404
    assert client.get("/games/nope").status_code == 404


def _svg(page: str, label: str) -> str:
    return page.split(f'aria-label="{label}"', 1)[1].split("</svg>", 1)[0]


def test_a_round_page_shows_the_grid_before_and_after(app: Flask, client: Any) -> None:
    """Each piece stands in the before grid where the previous step left it and in the after
    grid where the round left it (the bots move units, so the two differ)."""
    table = start(client)
    _play_round(app, table)
    _play_round(app, table)
    page = _html(client.get(f"/games/{table.id}/rounds/2"))
    assert "Before round 2" in page and "After round 2" in page
    assert "Where each piece stood before round 2" in page  # its legend, behind a disclosure
    ruleset = find_ruleset("universal")
    with session_scope(app) as s, s.begin():
        boards = {step.t: ruleset.board(ruleset.load(step.state)) for step in
                  s.scalars(select(Step).where(Step.game_id == table.id, Step.t.in_((2, 3))))}
    seen = {}
    for t, label in ((2, "the grid before round 2"), (3, "the grid after round 2")):
        svg = _svg(page, label)
        seen[t] = {p.id: p.square.lower() for p in boards[t].pieces}
        for piece, square in seen[t].items():
            assert f'data-id="{piece}" data-square="{square}"' in svg, (label, piece)
    assert seen[2] != seen[3]
    # The before grid carries no arrows: round 1's marks are round 1's page's.
    assert boards[2].marks and "<polyline" not in _svg(page, "the grid before round 2")
    assert "<polyline" in _svg(page, "the grid after round 2")


def _statements_of(app: Flask, client: Any, path: str) -> list[str]:
    """The SQL statements one GET of path runs."""
    seen: list[str] = []

    def on(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        seen.append(statement)

    event.listen(engine_of(app), "before_cursor_execute", on)
    try:
        assert client.get(path).status_code == 200
    finally:
        event.remove(engine_of(app), "before_cursor_execute", on)
    return seen


def test_the_game_page_reads_only_the_latest_step_whole(app: Flask, client: Any) -> None:
    """As rounds accumulate the page runs the same statements, and only one reads a state
    (the latest step's, by its id, to draw the board the first time): the key checks read
    each step's t and key alone, and a second view of the step reads no state at all."""
    table = start(client)
    _play_round(app, table)
    after_one = _statements_of(app, client, f"/games/{table.id}")
    for _ in range(3):
        _play_round(app, table)
    after_four = _statements_of(app, client, f"/games/{table.id}")
    assert len(after_four) == len(after_one)
    reading_states = [s for s in after_four if re.search(r"\bsteps\.state\b", s)]
    assert len(reading_states) == 1 and "WHERE steps.id = " in reading_states[0], reading_states
    latest = [s for s in after_four if "ORDER BY steps.t DESC" in s and "LIMIT" in s]
    assert len(latest) == 1 and not re.search(r"\bsteps\.(state|events|rolls|inputs)\b", latest[0]), latest
    page = _html(client.get(f"/games/{table.id}"))
    assert all(f'href="/games/{table.id}/rounds/{n}"' in page for n in range(1, 5))
    # Drawn once per step: a second view of the same step runs fewer statements (the key
    # checks are not read again) and shows the same page.
    again = _statements_of(app, client, f"/games/{table.id}")
    assert len(again) < len(after_four)
    # The game with its seats, controllers, round and who moved in one statement, then the
    # latest step, the schedule log and the table talk (SQLite's BEGIN IMMEDIATE aside).
    assert len([s for s in again if not s.startswith("BEGIN")]) == 4, again
    assert not [s for s in again if re.search(r"\bsteps\.(state|events|rolls)\b", s)], again
    def unsigned(html: str) -> str:  # the CSRF tokens carry the time they were signed
        return re.sub(r'name="csrf_token" value="[^"]*"', "", html)

    assert unsigned(_html(client.get(f"/games/{table.id}"))) == unsigned(page)


def test_the_round_page_puts_its_drawn_parts_in_as_they_render(app: Flask, client: Any) -> None:
    """The grids and the round's events are drawn once per step: the page is what rendering
    them in place gives, and a second view reads none of the steps' JSON."""
    table = start(client)
    _play_round(app, table)
    _play_round(app, table)
    path = f"/games/{table.id}/rounds/2"
    first = client.get(path).data
    again = _statements_of(app, client, path)
    assert not [s for s in again if re.search(r"\bsteps\.(state|events|rolls)\b", s)], again
    # One transaction: the game (read once, for the reader and the page), the round's step,
    # the step before it and the GM's news (SQLite's BEGIN IMMEDIATE aside).
    assert len([s for s in again if not s.startswith("BEGIN")]) == 4, again
    assert without_nonce(client.get(path).data) == without_nonce(first)
    with app.test_request_context(path):
        session = get_session()
        with session.begin():
            page = round_page(session, table.id, 2)
            in_place = render_template("web/round.html", page=page, record_url=record_url(table.id))
    assert without_nonce(in_place) == without_nonce(first) and "<svg" in in_place and "Roll log of round 2" in in_place


def test_the_game_page_lists_the_latest_keys_and_the_rounds_page_all(app: Flask, client: Any) -> None:
    """Past RECENT steps the game page shows the latest keys and rounds with a summary of the
    whole chain; every step's key check and every round's link is on the rounds page."""
    table = start(client)
    for _ in range(RECENT + 1):
        _play_round(app, table)
    with session_scope(app) as s, s.begin():
        keys = {step.t: step.key for step in s.scalars(select(Step).where(Step.game_id == table.id))}
    assert len(keys) == RECENT + 2
    page = _html(client.get(f"/games/{table.id}"))
    assert f"All {len(keys)} revealed keys hold." in page and "FAILS" not in page
    shown = [t for t, key in keys.items() if key in page]
    assert sorted(shown) == sorted(keys)[-RECENT:]
    assert f'href="/games/{table.id}/rounds/1"' not in page
    assert f'href="/games/{table.id}/rounds"' in page
    assert all(f'href="/games/{table.id}/rounds/{n}"' in page for n in range(2, RECENT + 2))
    every = _html(client.get(f"/games/{table.id}/rounds"))
    assert all(key in every for key in keys.values()) and "FAILS" not in every
    assert every.count(">holds<") == len(keys)
    assert all(f'href="/games/{table.id}/rounds/{n}"' in every for n in range(1, RECENT + 2))
    assert table.created["commitment"] in every and "/verify?record=" in every
    assert client.get("/games/nope/rounds").status_code == 404


def test_player_page_orders_form(app: Flask, client: Any) -> None:
    table = start(client)
    path = f"/games/{table.id}/player/{table.tokens['alice']}"
    page = _html(client.get(path))
    assert "Orders for round 1" in page and "<select" in page and 'name="free"' in page
    units = client.get(f"/api/games/{table.id}/orders", headers=table.auth("alice")).json["units"]
    unit, choices = sorted(units.items())[0]
    move = next(c for c in choices if " move " in c)
    r = client.post(path, data={"round": "1", "units": "1", "unit-0": move, "free": ""})
    # Post/Redirect/Get: back to the page, which shows the notice once; a reload sends nothing.
    assert r.status_code == 303 and r.headers["Location"].endswith(path)
    r = client.get(path)
    assert r.status_code == 200 and "stored as version 1" in _html(r)
    assert "stored as version" not in _html(client.get(path))
    before = counts(app)
    r = client.post(path, data={"round": "1", "units": "0", "free": f"{unit} move a1 b2 zz99\nQ7 jump"})
    assert r.status_code == 422
    page = _html(r)
    assert "Nothing was stored" in page and "line 2" in page
    assert counts(app) == before
    with session_scope(app) as s, s.begin():
        sub = s.scalars(select(Submission)).one()
        assert (sub.source, sub.accepted) == ("web", move)
    r = client.post(path, data={"round": "5", "units": "0", "free": "pass"})
    assert r.status_code == 409 and "not open" in _html(r)
    assert client.get(f"/games/{table.id}/player/wrong").status_code == 401


def test_mailbox_only_in_embedded_mode(tmp_path: Path, sqlite_app: Flask) -> None:
    from service.web.mailbox import mailbox_key

    box = loopback_client(sqlite_app)
    assert box.get(f"/mailbox?key={mailbox_key(sqlite_app)}", follow_redirects=True).status_code == 200
    create(sqlite_app.test_client())  # its invitations are in the mailbox
    mail = box.get("/mailbox/1")
    said = re.search(r"<p>To \S+, <time datetime=\"[^\"]+\">([^<]+)</time>", _html(mail))
    assert said and re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC", said.group(1)), said  # no raw ISO time
    full = create_app(base_config(f"sqlite:///{tmp_path}/full.sqlite3", REDIS_URL="redis://127.0.0.1:1/0"))
    assert full.test_client().get("/mailbox").status_code == 404


def _your_units(page: str) -> list[list[str]]:
    table = page.split("<h3>Your units</h3>")[1].split("</table>")[0]
    return [re.findall(r"<t[hd]>(.*?)</t[hd]>", row) for row in re.findall(r"<tr>(.*?)</tr>", table, re.S)]


def test_your_units_show_the_facing_where_pieces_have_one(app: Flask, client: Any) -> None:
    from engine import find_ruleset

    heroes = start(client, "heroes")
    page = _html(client.get(f"/games/{heroes.id}/player/{heroes.tokens['alice']}"))
    rows = _your_units(page)
    assert rows[0] == ["Unit", "Square", "Health", "Facing", "Note"]
    ruleset = find_ruleset("heroes")
    mine = [p for p in ruleset.board(ruleset.load(heroes.state(app))).pieces if p.side == "alice"]
    assert mine and all(p.facing for p in mine)
    assert {(row[0], row[3]) for row in rows[1:]} == {(p.label, p.facing) for p in mine}
    universal = start(client)  # no piece has a facing: no empty column
    rows = _your_units(_html(client.get(f"/games/{universal.id}/player/{universal.tokens['alice']}")))
    assert rows[0] == ["Unit", "Square", "Health", "Note"] and len(rows) > 1


def test_the_board_caption_explains_this_board(app: Flask, client: Any) -> None:
    heroes = start(client, "heroes")
    page = _html(client.get(f"/games/{heroes.id}"))
    caption = page.split("<figcaption>")[1].split("</figcaption>")[0]
    assert "a black triangle on a piece&#39;s edge points the way it faces" in caption and "rooftop" in caption
    # Setup's spawn roll comes from this game's own dice: the caption names the game's
    # figures exactly when the grid draws some (wording per kind: tests/service/test_svg.py).
    drawn = set(re.findall(r'<g class="piece (henchman|civvie|nemesis)"[ >]', page))  # data-id, data-square follow
    assert ("diamonds are henchmen" in caption) == ("henchman" in drawn)
    assert ("dashed diamonds are civvies" in caption) == ("civvie" in drawn)
    assert ("heavy diamonds are nemeses" in caption) == ("nemesis" in drawn)
    universal = start(client)
    caption = _html(client.get(f"/games/{universal.id}")).split("<figcaption>")[1].split("</figcaption>")[0]
    assert "triangle" not in caption and "diamonds" not in caption and "Circles are" in caption
    player = _html(client.get(f"/games/{heroes.id}/player/{heroes.tokens['alice']}"))
    assert "points the way it faces" in player.split("<figcaption>")[1].split("</figcaption>")[0]


def test_units_are_listed_in_natural_order(app: Flask, client: Any) -> None:
    """B2 before B10, in the order form and in the Your units table."""
    table = create(client, "jep1", options={"points": 5000, "width": 12, "height": 12})
    for seat in table.created["seats"]:
        force = {"units": ["scout"] * 12} if seat["name"] == "alice" else None
        r = client.post(f"/api/games/{table.id}/join",
                        json={"invite_token": seat["invite_token"], **({"force": force} if force else {})})
        assert r.status_code == 200, r.json
        table.tokens[seat["name"]] = r.json["player_token"]
    page = _html(client.get(f"/games/{table.id}/player/{table.tokens['alice']}"))
    units = client.get(f"/api/games/{table.id}/orders", headers=table.auth("alice")).json["units"]
    assert len(units) == 12

    def natural(name: str) -> tuple[str, int]:
        prefix = name.rstrip("0123456789")
        return prefix, int(name[len(prefix):])

    ordered = sorted(units, key=natural)
    assert ordered != sorted(units)  # ...10, 11, 12 after 9, not after 1
    form = page.split('name="units"')[1].split("</form>")[0]
    listed = list(dict.fromkeys(re.findall(r'<option value="([^" ]+) ', form)))
    assert listed == ordered
    table_rows = [row[0] for row in _your_units(page)[1:]]
    assert table_rows == ordered


def test_a_refused_form_comes_back_as_it_was_sent(app: Flask, client: Any) -> None:
    """The list keeps its chosen line and the box only the typed lines: sending the
    fixed form again does not send the list's line twice."""
    table = start(client)
    path = f"/games/{table.id}/player/{table.tokens['alice']}"
    legal = client.get(f"/api/games/{table.id}/orders", headers=table.auth("alice")).json["legal"]
    order = next(o for o in legal[min(legal, key=lambda u: (len(u), u))] if o["role"] == "move")
    move = order["text"]
    r = client.post(path, data={"round": "1", "units": str(len(legal)), "unit-0": move, "free": "Q7 jump"})
    assert r.status_code == 422
    form = _html(r).split("<form", 1)[1].split("</form>")[0]
    # Each option names the order's role and square, for taps on the grid.
    assert f'<option value="{move}" data-role="move" data-square="{order["square"]}" selected>' in form
    assert re.search(r'<textarea name="free"[^>]*>\s*Q7 jump</textarea>', form)


def test_not_ready_orders_hold_the_round_and_the_last_ready_one_sees_it_resolving(sqlite_app: Flask) -> None:
    """The form's "These are my final orders" box: unticked, the orders are stored and the
    round waits for the sender (remembered: the box comes back unticked); ticked by the last
    one, the round closes and, until the resolution is in, the page says it is being
    resolved (never "no orders to give"), then shows the next round."""
    from service.resolution import resolve_round
    from tests.service.play import doorbells_lost

    client = sqlite_app.test_client()
    table = start(client)
    alice, bob = (f"/games/{table.id}/player/{table.tokens[s]}" for s in ("alice", "bob"))
    form = {"round": "1", "units": "0", "free": "pass", "ready_asked": "1"}
    assert 'name="ready" value="on" id="ready" checked' in _html(client.get(alice))  # ready by default
    client.post(alice, data=form)  # the box unticked
    page = _html(client.get(alice))
    assert "You are NOT ready: the round waits for you until its deadline" in page
    assert 'id="ready" aria' in page  # remembered: the box comes back unticked
    assert "You are <strong>not ready</strong>" in page
    client.post(bob, data={**form, "ready": "on"})
    assert "You are ready: the round closes as soon as every expected player is ready" in _html(client.get(bob))
    assert table.status()["round"] == 1  # everyone is in, but alice is not ready
    with doorbells_lost():  # the resolution not in yet (a busy worker)
        client.post(alice, data={**form, "ready": "on"})
    page = _html(client.get(alice))
    assert "You are ready, and so is everyone else: the round is closed and being resolved." in page
    assert 'id="resolving"' in page and "is being resolved now" in page
    assert "Round 1 is closed and being resolved" in page and "no orders to give" not in page
    assert 'name="free"' not in page  # nothing to send to a closed round
    with sqlite_app.app_context(), session_scope(sqlite_app) as s:
        assert resolve_round(s, table.id, 1)
    page = _html(client.get(alice))
    assert "Orders for round 2" in page and "Round 1: what happened to you" in page
