"""A game plays the rules revision it was created under to its end; new games get the
newest; its pages name the revision and link its rules; the rules page lists every
revision's changes in words."""

from __future__ import annotations

import re
from typing import Any

from flask import Flask
from markupsafe import escape

from engine.grid import distance, parse_square
from engine.registry import find_ruleset
from engine.verify import verify
from service.db import session_scope
from service.models import Game
from tests.golden.scratch import MORALE, ONE_SQUARE, SCRATCH, TOO_FAR, MoraleRevised, Scratch, registered
from tests.service.play import Table, start


def _html(r: Any) -> str:
    assert r.status_code == 200, r.status_code
    return r.get_data(as_text=True)


def _play_round(app: Flask, table: Table) -> None:
    for seat in table.status()["expected"]:
        assert table.put(seat, table.bot(app, seat)).status_code == 200


def _moves(app: Flask, table: Table) -> dict[str, int]:
    """alice's offered moves (as the API lists them) and how many squares each goes."""
    rules = find_ruleset(SCRATCH, 1)
    at = {p.id: parse_square(p.square) for p in rules.board(rules.load(table.state(app))).pieces}
    legal = table.client.get(f"/api/games/{table.id}/orders", headers=table.auth("alice")).json["legal"]
    return {o["text"]: distance(at[unit], parse_square(o["square"]))
            for unit, orders in legal.items() for o in orders if o["role"] == "move"}


def test_a_game_keeps_its_revision_and_new_games_get_the_newest(app: Flask, client: Any) -> None:
    with registered(Scratch()):
        old = start(client, SCRATCH)  # created and set up under revision 1
    with registered(MoraleRevised()):
        new = start(client, SCRATCH)
        assert (old.status()["revision"], new.status()["revision"]) == (1, 2)
        with session_scope(app) as s, s.begin():
            assert {g.id: g.revision for g in s.query(Game)} == {old.id: 1, new.id: 2}

        # The orders each game takes are its revision's: legal orders, the parser.
        old_moves, new_moves = _moves(app, old), _moves(app, new)
        assert max(old_moves.values()) > 1 and max(new_moves.values()) == 1
        far = max(old_moves, key=lambda text: old_moves[text])
        assert old.put("alice", far).status_code == 200
        refused = new.put("alice", far)
        assert refused.status_code == 422 and TOO_FAR in str(refused.json)

        # And so are the dice: revision 2 rolls a morale die first, revision 1 does not.
        for table in (old, new):
            _play_round(app, table)
        first = {t.id: client.get(f"/api/games/{t.id}/rounds/1").json["rolls"][0]["label"]
                 for t in (old, new)}
        assert first[new.id] == "morale" and first[old.id] != "morale"
        for table, revision in ((old, 1), (new, 2)):
            record = client.get(f"/api/games/{table.id}/record").json
            assert record["revision"] == revision == record["steps"][0]["inputs"]["revision"]
            v = verify(record)
            assert v.ok and v.revision == revision, v.difference


def test_the_game_pages_name_the_revision_and_link_its_rules(app: Flask, client: Any) -> None:
    with registered(Scratch()):
        old = start(client, SCRATCH)
    with registered(MoraleRevised()):
        new = start(client, SCRATCH)
        page = _html(client.get(f"/games/{old.id}"))
        assert (f'<a href="/rules/{SCRATCH}/1">{SCRATCH}, rules revision 1</a>' in page)
        assert f'new games play revision 2: <a href="/rules/{SCRATCH}#revisions">what changed</a>' in page
        page = _html(client.get(f"/games/{new.id}"))
        assert f'<a href="/rules/{SCRATCH}/2">{SCRATCH}, rules revision 2</a>' in page
        assert "new games play revision" not in page
        _play_round(app, old)
        round_page = _html(client.get(f"/games/{old.id}/rounds/1"))
        assert f'<a href="/rules/{SCRATCH}/1">The rules of {SCRATCH}, revision 1</a>' in round_page
        player = _html(client.get(f"/games/{old.id}/player/{old.tokens['alice']}"))
        assert f'href="/rules/{SCRATCH}/1"' in player


def test_the_rules_page_lists_every_revision_with_its_changes(app: Flask, client: Any) -> None:
    with registered(MoraleRevised()):
        newest = _html(client.get(f"/rules/{SCRATCH}"))
        assert "Rules revision <strong>2</strong>, the one new games play" in newest
        assert 'class="warn"' not in newest
        revisions = newest.split('<h3 id="revisions">', 1)[1]
        assert re.findall(r'<div class="card" id="revision-(\d)">', revisions) == ["2", "1"]
        for change in (MORALE, ONE_SQUARE, *Scratch.info.revisions[0].changes):
            assert f"<li>{escape(change)}</li>" in revisions
        assert f'<a href="/rules/{SCRATCH}/1">Revision 1</a>' in revisions

        older = _html(client.get(f"/rules/{SCRATCH}/1"))
        assert "Rules revision <strong>1</strong> · " in older
        assert (f'<p class="warn" id="older">These are the rules of revision 1: a game created under it '
                f'plays it to its end. New games play revision 2: <a href="/rules/{SCRATCH}">') in older
        assert 'Revision 1</a> <small>(this page)</small>' in older
        for missing in ("3", "0"):
            gone = client.get(f"/rules/{SCRATCH}/{missing}")
            assert gone.status_code == 404
            assert f"has no revision {missing}" in gone.get_data(as_text=True)
        listed = next(r for r in client.get("/api/rulesets").json if r["id"] == SCRATCH)
        assert listed["revision"] == 2
        assert listed["revisions"] == [{"number": 1, "changes": list(Scratch.info.revisions[0].changes)},
                                       {"number": 2, "changes": [MORALE, ONE_SQUARE]}]
    shipped = _html(client.get("/rules/universal"))
    assert "Rules revision <strong>1</strong>, the one new games play" in shipped
    assert 'id="revision-1"' in shipped
    assert "Rules revision <strong>1</strong>, the one new games play" in _html(client.get("/rules/universal/1"))
