"""Tournaments: a director creates one with a committed seed, seats it (the games created
and invited together), eight players play it through with the engine's bot choosing their
orders, the standings come out on the page and as CSV, and one command verifies the draw
and every game. An anonymous tournament shows no entrant's name, handle or address before
it ends, in pages, mails, the API or the records."""

from __future__ import annotations

import csv
import hashlib
import html
import io
import json
import re
from fractions import Fraction

from sqlalchemy import select

from engine import find_ruleset
from engine.bots import bot_orders
from engine.tournament import commitment, draw, standings
from service.commands.verify import command as verify_command
from service.db import session_scope
from service.models import Game, PlayerProfile, Step, StoredMail
from tests.mail.mail_world import parse, text_of

SEED = "the director's own words, 2026"
ENTRANTS = [(f"Zorblax{n} Quill", f"entrant{n}@example.org", f"hdl{n}x") for n in range(1, 9)]


def test_the_draw_is_the_committed_seeds_and_standings_break_ties():
    tables = draw(SEED, "T1", 8, 2, 2)
    assert all(sorted(e for table in rnd for e in table) == list(range(8)) for rnd in tables)
    assert tables != draw("another seed", "T1", 8, 2, 2) and tables == draw(SEED, "T1", 8, 2, 2)
    banded = draw(SEED, "T1", 4, 1, 2, bands=[3, 1, 0, 2])  # best first: 3 and 1 never meet
    assert all({3, 1} != set(table) for table in banded[0])
    assert commitment(SEED) == hashlib.sha256(SEED.encode()).hexdigest()
    rows = standings(SEED, "T1", 4, [({"p1": 0, "p2": 1}, {"winners": ["p1"]}),
                                     ({"p1": 2, "p2": 3}, {"winners": []}),
                                     ({"p1": 0, "p2": 2}, {"winners": ["p2"]}),
                                     ({"p1": 1, "p2": 3}, None)])
    assert [(r.entrant, r.points, r.buchholz) for r in rows[:2]] == [
        (2, Fraction(3, 2), Fraction(3, 2)), (0, Fraction(1), Fraction(3, 2))]


def _texts(client, app, game_ids, tid, tokens) -> list[tuple[str, str]]:
    """(where, text) of every page, API answer, record and mail a player or visitor can read."""
    out = [(f"/tournaments/{tid}", client.get(f"/tournaments/{tid}").get_data(as_text=True)),
           ("csv", client.get(f"/tournaments/{tid}/standings.csv").get_data(as_text=True)),
           ("bundle", client.get(f"/tournaments/{tid}/bundle.json").get_data(as_text=True)),
           ("lobby", client.get("/lobby").get_data(as_text=True)),
           ("api games", client.get("/api/games").get_data(as_text=True))]
    for gid in game_ids:
        for url in (f"/games/{gid}", f"/api/games/{gid}", f"/api/games/{gid}/record", f"/games/{gid}/rounds"):
            out.append((url, client.get(url).get_data(as_text=True)))
    for (gid, seat), token in tokens.items():
        out.append((f"player {gid} {seat}", client.get(f"/games/{gid}/player/{token}").get_data(as_text=True)))
        out.append((f"record of {seat}", client.get(f"/api/games/{gid}/record",
                                                    headers={"Authorization": f"Bearer {token}"}).get_data(
            as_text=True)))
    with session_scope(app) as s:
        for row in s.scalars(select(StoredMail)):
            msg = parse(row.raw.encode())
            body = "\n".join(f"{k}: {v}" for k, v in msg.items() if k.lower() != "to") + "\n" + text_of(msg)
            out.append((f"mail to {row.to}", body))
    return out


def _leaks(texts, mine: str | None = None) -> list[str]:
    found = []
    for where, text in texts:
        plain = html.unescape(text)
        for name, address, handle in ENTRANTS:
            if where == f"mail to {address}":
                continue  # a player's own mail may name them
            for word in (name, address, handle, address.split("@")[0]):
                if word in plain:
                    found.append(f"{word} in {where}")
    return found


def test_an_anonymous_tournament_of_eight_plays_through_and_verifies_in_one_command(sqlite_app, tmp_path):
    app = sqlite_app
    client = app.test_client()
    with session_scope(app) as s, s.begin():  # the entrants' public handles: never shown in the games
        for _name, address, handle in ENTRANTS:
            s.add(PlayerProfile(address=address, handle=handle, public=True))
    form = {"title": "Winter cup", "ruleset": "universal", "options": json.dumps({"max_rounds": 2}),
            "rounds": "2", "size": "2", "duration": "PT48H", "seating": "random",
            "entrants": "\n".join(f"{n} <{a}>" for n, a, _h in ENTRANTS),
            "commitment": commitment(SEED), "anonymous": "on", "no_pause": "on", "no_rollback": "on",
            "no_absence": "on"}
    bad = client.post("/tournaments/new", data={**form, "entrants": "Solo <solo@example.org>"})
    assert bad.status_code == 422 and "entrants: 1 entrants do not fill tables of 2" in html.unescape(
        bad.get_data(as_text=True))
    made = client.post("/tournaments/new", data=form)
    assert made.status_code == 303
    director = made.headers["Location"]
    tid = director.split("/")[2]
    page = html.unescape(client.get(director).get_data(as_text=True))
    assert commitment(SEED) in page and "The seed is revealed when the director seats" in page
    wrong = client.post(director, data={"seed": "a guess"})
    assert wrong.status_code == 422 and f"not the commitment {commitment(SEED)}" in html.unescape(
        wrong.get_data(as_text=True))
    assert client.post(director, data={"seed": SEED}).status_code == 303
    page = client.get(director).get_data(as_text=True)
    gm_links = re.findall(r'href="/games/(\w+)/gm/([\w.-]+)"', page)
    assert len(gm_links) == 8  # two rounds of four tables

    # Every entrant joins from their invitation mail.
    tokens: dict[tuple[str, str], str] = {}
    with session_scope(app) as s:
        invites = [(row.to, text_of(parse(row.raw.encode()))) for row in s.scalars(select(StoredMail))]
    for _to, text in invites:
        for game_id, invite in re.findall(r"/games/(\w+)/join/([\w.-]+)", text):
            j = client.post(f"/api/games/{game_id}/join", json={"invite_token": invite})
            assert j.status_code == 200, j.json
            token = j.json["player_token"]
            seat = client.get(f"/api/games/{game_id}/settings", headers={"Authorization": f"Bearer {token}"})
            tokens[(game_id, seat.json["seat"])] = token
    assert len(tokens) == 16
    game_ids = sorted({g for g, _s in tokens})

    # The director forbade pauses.
    gid, gm = gm_links[0]
    paused = client.post(f"/api/games/{gid}/gm/pause", headers={"Authorization": f"Bearer {gm}"})
    assert paused.status_code == 409 and "forbade pauses" in paused.json["error"]

    # Round 1 of every game played: nothing identifies anyone anywhere.
    _play_round(app, client, tokens)
    leaks = _leaks(_texts(client, app, game_ids, tid, tokens))
    assert leaks == []

    while _play_round(app, client, tokens):
        pass
    with session_scope(app) as s:
        assert {g.status for g in s.scalars(select(Game))} == {"finished"}

    # Over: the names are shown (never the addresses), with the standings and their tie-breaks.
    page = html.unescape(client.get(f"/tournaments/{tid}").get_data(as_text=True))
    assert "Zorblax1 Quill" in page and "entrant1@" not in page
    rows = list(csv.reader(io.StringIO(client.get(f"/tournaments/{tid}/standings.csv").get_data(as_text=True))))
    assert rows[0] == ["place", "entrant", "name", "points", "buchholz", "wins", "played"]
    assert [r[0] for r in rows[1:]] == [str(n) for n in range(1, 9)] and {r[6] for r in rows[1:]} == {"2"}
    assert sum(float(r[3]) for r in rows[1:]) == 8  # one point a game
    points = [(float(r[3]), float(r[4]), int(r[5])) for r in rows[1:]]
    assert points == sorted(points, reverse=True)

    bundle = tmp_path / "bundle.json"
    bundle.write_bytes(client.get(f"/tournaments/{tid}/bundle.json").data)
    assert verify_command.main(["--tournament", str(bundle)], standalone_mode=False) == 0
    doc = json.loads(bundle.read_text())
    doc["rounds"][0][0]["seats"] = dict(reversed(list(doc["rounds"][0][0]["seats"].items())))
    bundle.write_text(json.dumps(doc))
    assert verify_command.main(["--tournament", str(bundle)], standalone_mode=False) == 1


def _play_round(app, client, tokens) -> bool:
    """Every seat expected in an open round sends the bot's orders; False when none was."""
    sent = False
    for (gid, seat), token in sorted(tokens.items()):
        with session_scope(app) as s:
            game = s.get(Game, gid)
            if game is None or game.status != "active":
                continue
            state = s.scalars(select(Step.state).where(Step.game_id == gid).order_by(Step.t.desc()).limit(1)).one()
            number = game.current_round
        ruleset = find_ruleset("universal")
        loaded = ruleset.load(state)
        if seat not in ruleset.expected(loaded):
            continue
        text = bot_orders(ruleset, loaded, seat, seed=f"{gid}{number}") or "pass"
        r = client.put(f"/api/games/{gid}/orders", json={"round": number, "orders": text},
                       headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200, r.json
        sent = True
    return sent


def test_seating_by_rating_puts_one_player_of_each_strength_at_every_table(sqlite_app, tmp_path, capsys):
    """The entrants in rating order (best first, unrated last) are published as the bands;
    every table holds one of the top half and one of the bottom half; the bundle verifies
    the draw before any game has started (those games have nothing to check yet)."""
    from service import tournaments
    from service.models import PlayerRating

    app = sqlite_app
    people = [{"name": f"P{n}", "email": f"p{n}@example.org"} for n in range(4)]
    with session_scope(app) as s, s.begin():
        for n, mu in ((0, 20.0), (2, 30.0), (3, 25.0)):  # p1 is unrated
            s.add(PlayerRating(address=f"p{n}@example.org", ruleset="universal", mu=mu, sigma=1.0, games=3))
    with app.test_request_context(), session_scope(app) as s:
        made = tournaments.create(
            s, title="Rated", ruleset="universal", options={}, rounds=2, size=2, seating="rating",
            seed_commitment=commitment(SEED), entrants=people, anonymous=False, no_pause=False,
            no_rollback=True, no_absence=False, deadline_policy=None)
        tournaments.seat(s, made.id, made.director_token, SEED)
        doc = tournaments.bundle(s, made.id)
    assert doc["bands"] == [2, 3, 0, 1]
    for rnd in doc["rounds"]:
        assert all(len({e for e in g["seats"].values()} & {2, 3}) == 1 for g in rnd)
    path = tmp_path / "rated.json"
    path.write_text(json.dumps(doc))
    assert verify_command.main(["--tournament", str(path)], standalone_mode=False) == 0
    out = capsys.readouterr().out
    assert "seating draw: holds (seed, commitment and every table)" in out
    assert out.count("not started yet (no dice rolled: nothing to check)") == 4
