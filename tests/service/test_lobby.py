"""The lobby: public games by filter (open seats, active, waiting, finished, ruleset), and a
visitor taking an open seat from a public game's page."""

from __future__ import annotations

import re
from typing import Any

from flask import Flask

from service.db import session_scope
from service.lobby import open_seats
from service.models import Game, Seat
from service.timekeeping.due import open_for_replacement
from tests.service.play import Table, create, start, without_nonce


def _html(r: Any) -> str:
    return without_nonce(r.get_data(as_text=True))  # each answer has its own nonce


def _gm(table: Table, action: str, body: dict[str, Any] | None = None) -> Any:
    r = table.client.post(f"/api/games/{table.id}/gm/{action}", json=body or {},
                          headers={"Authorization": f"Bearer {table.created['gm_token']}"})
    assert r.status_code == 200, r.json
    return r


def _titled(client: Any, title: str, **extra: Any) -> Table:
    table = start(client, **extra)
    with session_scope(client.application) as s, s.begin():
        s.get(Game, table.id).title = title
    return table


def _listed(client: Any, query: str = "") -> list[str]:
    r = client.get("/lobby" + query)
    assert r.status_code == 200, _html(r)
    return re.findall(r'<tr data-game="\w+">\s*<td data-label="Game"><a [^>]*>([^<]+)</a>', _html(r))


def test_the_lobby_filters_public_games(app: Flask, client: Any) -> None:
    waiting = create(client)
    with session_scope(app) as s, s.begin():
        s.get(Game, waiting.id).title = "Waiting"
    open_game = _titled(client, "Needs a player")
    _gm(open_game, "replace", {"seat": "bob"})  # no address named: anyone may take bob
    _titled(client, "Running")
    invited = _titled(client, "Invited newcomer")
    _gm(invited, "replace", {"seat": "bob", "email": "newcomer@example.org"})  # kept for them
    done = _titled(client, "Drawn")
    _gm(done, "end")
    hidden = _titled(client, "Private", public=False)
    _gm(hidden, "replace", {"seat": "bob"})
    jep = _titled(client, "Duel", ruleset="jep1")

    assert _listed(client) == ["Duel", "Drawn", "Invited newcomer", "Running", "Needs a player", "Waiting"]
    assert _listed(client, "?show=open") == ["Needs a player"]
    assert _listed(client, "?show=active") == ["Duel", "Invited newcomer", "Running", "Needs a player"]
    assert _listed(client, "?show=waiting") == ["Waiting"]
    assert _listed(client, "?show=finished") == ["Drawn"]
    assert _listed(client, "?ruleset=jep1") == ["Duel"]
    assert _listed(client, "?show=open&ruleset=jep1") == []
    page = _html(client.get("/lobby?show=open"))
    assert "2 seats, <strong>1 open</strong> (bob)" in page and jep.id not in page
    assert "No public game has an open seat" in _html(client.get("/lobby?show=open&ruleset=jep1"))


def test_a_bad_filter_is_refused_by_name(sqlite_app: Flask) -> None:
    client = sqlite_app.test_client()
    r = client.get("/lobby?show=everything")
    assert r.status_code == 422
    assert "show: &#39;everything&#39; is not a filter; choose one of open, active" in _html(r)
    r = client.get("/lobby?ruleset=chess")
    assert r.status_code == 422 and "there is no ruleset &#39;chess&#39;" in _html(r)


def test_a_visitor_takes_an_open_seat_from_the_game_page(app: Flask, client: Any) -> None:
    table = start(client)
    _gm(table, "replace", {"seat": "bob"})
    page = _html(client.get(f"/games/{table.id}"))
    assert "Take the seat bob" in page and "Take the seat alice" not in page

    visitor = app.test_client()
    r = visitor.post(f"/games/{table.id}/seats/bob/take")
    assert r.status_code == 303 and r.headers["Location"].endswith(f"/games/{table.id}/seats/bob/taken")
    shown = _html(visitor.get(r.headers["Location"]))
    assert "You now play bob" in shown
    link = re.search(r'href="http://dicepost\.test(/games/\w+/player/[^"]+)"', shown)
    assert link is not None
    assert _html(visitor.get(r.headers["Location"])) == shown  # a reload shows the same link
    assert visitor.get(link.group(1)).status_code == 200
    token = link.group(1).rsplit("/", 1)[1]
    assert client.get(f"/api/games/{table.id}/orders", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    assert "Take the seat" not in _html(client.get(f"/games/{table.id}"))

    again = app.test_client().post(f"/games/{table.id}/seats/bob/take")
    assert again.status_code == 409 and "seat bob is not open" in _html(again)
    # another browser never sees the first visitor's link
    assert app.test_client().get(f"/games/{table.id}/seats/bob/taken").status_code == 303


def test_only_a_public_games_unclaimed_open_seats_are_taken(app: Flask, client: Any) -> None:
    hidden = start(client, public=False)
    _gm(hidden, "replace", {"seat": "bob"})
    assert "Take the seat" not in _html(client.get(f"/games/{hidden.id}"))
    assert client.post(f"/games/{hidden.id}/seats/bob/take").status_code == 404
    invited = start(client)
    _gm(invited, "replace", {"seat": "bob", "email": "newcomer@example.org"})
    refused = client.post(f"/games/{invited.id}/seats/bob/take")
    assert refused.status_code == 409 and "keeps it for an invited player" in _html(refused)
    assert client.post(f"/games/{invited.id}/seats/carol/take").status_code == 404
    assert client.post(f"/games/{invited.id}/seats/alice/take").status_code == 409


def test_a_seat_opened_by_the_missed_turn_policy_is_offered(sqlite_app: Flask) -> None:
    client = sqlite_app.test_client()
    table = start(client)
    with sqlite_app.test_request_context(), session_scope(sqlite_app) as s, s.begin():
        game = s.get(Game, table.id)
        seat = next(x for x in game.seats if x.name == "alice")
        open_for_replacement(s, game, seat, "service")
    with session_scope(sqlite_app) as s, s.begin():
        assert open_seats(s, s.get(Game, table.id)) == ["alice"]
    assert "Take the seat alice" in _html(client.get(f"/games/{table.id}"))


def test_seats_taken_per_client_are_limited(sqlite_app: Flask) -> None:
    sqlite_app.config["SEATS_PER_CLIENT"] = "2 per hour"
    client = sqlite_app.test_client()
    tables = [start(client) for _ in range(3)]
    for table in tables:
        _gm(table, "replace", {"seat": "bob"})
    assert [client.post(f"/games/{t.id}/seats/bob/take").status_code for t in tables[:2]] == [303, 303]
    refused = client.post(f"/games/{tables[2].id}/seats/bob/take")
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0
    assert "too many open seats taken from your address (2 per hour)" in _html(refused)
    with session_scope(sqlite_app) as s, s.begin():
        seat = s.query(Seat).filter_by(game_id=tables[2].id, name="bob").one()
        assert seat.player_token_hash is None  # nothing taken
    other = client.post(f"/games/{tables[2].id}/seats/bob/take", environ_base={"REMOTE_ADDR": "198.51.100.9"})
    assert other.status_code == 303
