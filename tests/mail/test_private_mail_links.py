"""A private game's mails to a player link its pages through the seat's open link, so a
link opens in a browser that never saw the player page; a public game's links stay plain."""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import select

from service.db import session_scope
from service.logs import redact
from service.mail.settings import mail_settings
from service.models import Outbox, Seat
from service.outbound.compose import compose
from tests.mail.mail_world import parse, text_of
from tests.service.schedule_world import World

BASE = "http://dicepost.test"


def _results_text(world: World, seat: str, step: int) -> str:
    with world.app.app_context(), session_scope() as s, s.begin():
        seat_id = s.scalars(select(Seat.id).where(Seat.game_id == world.game_id, Seat.name == seat)).one()
        rows = s.scalars(select(Outbox).where(Outbox.game_id == world.game_id, Outbox.seat_id == seat_id,
                                              Outbox.kind == "results")).all()
        row = next(r for r in rows if int(r.payload["step"]) == step)
        return text_of(parse(compose(s, row, mail_settings(world.app.config)).raw))


def _links(text: str, game_id: str) -> list[str]:
    return sorted(set(re.findall(rf"{BASE}(/games/{game_id}[^\s<>\"')]*)", text)))


def _played(tmp_path: Any, public: bool) -> World:
    world = World(tmp_path).start({"kind": "duration", "duration": "PT48H"}, public=public)
    for seat in ("red", "blue"):
        assert world.submit(seat).status_code == 200
    assert world.steps() == 2
    return world


def test_a_private_games_mail_links_open_in_a_fresh_browser(tmp_path: Any) -> None:
    world = _played(tmp_path, public=False)
    g = world.game_id
    links = _links(_results_text(world, "red", 2), g)
    opened = [p for p in links if f"/games/{g}/open/" in p]
    wheres = {p.rsplit("/open/", 1)[1].split("/", 1)[1].split("#")[0] for p in opened}
    assert wheres == {"game", "round/1", "verify", "record"}, links
    assert f"/games/{g}" not in links and f"/games/{g}/rounds/1" not in links  # no bare link that 404s
    # "Check these dice": what red holds rides in the fragment, which the browser keeps across
    # the redirect to the verifier; the verifier's own fetch of the record then answers.
    check = next(p for p in opened if "/verify#" in p)
    path, fragment = check.split("#", 1)
    assert "commitment=" in fragment and "seat=red" in fragment
    browser = world.app.test_client()
    assert browser.get(f"/api/games/{g}/record").status_code == 404
    r = browser.get(path)
    assert r.status_code == 303 and r.headers["Location"].startswith("/verify?record=")
    assert path.split("/")[4] not in r.headers["Location"]
    assert browser.get(r.headers["Location"]).status_code == 200
    assert browser.get(f"/api/games/{g}/record").status_code == 200
    # "Game record" opens in a fresh browser too: the seat's open link, then the record.
    record = next(p for p in opened if p.endswith("/record"))
    browser = world.app.test_client()
    r = browser.get(record)
    assert r.status_code == 303 and r.headers["Location"] == f"/api/games/{g}/record"
    assert browser.get(r.headers["Location"]).json["game_id"] == g
    assert f"{BASE}/api/games/{g}/record" not in _results_text(world, "red", 2)  # no bare link that 404s
    for path in (p for p in opened if "/verify#" not in p and not p.endswith("/record")):
        browser = world.app.test_client()
        assert browser.get(path.replace("/open/", "/x/")).status_code == 404  # sanity: no such route
        r = browser.get(path)
        target = f"/games/{g}" if path.endswith("/game") else f"/games/{g}/rounds/1"
        assert r.status_code == 303 and r.headers["Location"] == target, path
        page = browser.get(target)
        assert page.status_code == 200, path
        assert path.split("/")[4] not in page.get_data(as_text=True)  # the token left the page
        # The browser now reads the game as red: the other pages and the record open too.
        assert browser.get(f"/api/games/{g}/record").status_code == 200
        assert redact(path) == f"/games/{g}/open/***/" + path.split("/", 5)[5]
    # Without it, the same pages stay closed.
    assert world.app.test_client().get(f"/games/{g}/rounds/1").status_code == 404


def test_an_open_link_reads_only_and_stops_with_its_seat(tmp_path: Any) -> None:
    world = _played(tmp_path, public=False)
    g = world.game_id
    path = next(p for p in _links(_results_text(world, "red", 2), g) if p.endswith("/game"))
    token = path.split("/")[4]
    # It is no player token: the player page and the API's orders refuse it.
    assert world.app.test_client().get(f"/games/{g}/player/{token}").status_code in (401, 403, 404)
    put = world.app.test_client().put(f"/api/games/{g}/orders", headers={"Authorization": f"Bearer {token}"},
                                      json={"round": 2, "orders": ""})
    assert put.status_code in (401, 403)
    # Forged, for another game, or a page it does not open: refused.
    forged = token[:-1] + ("a" if token[-1] != "a" else "b")
    for bad in (f"/games/{g}/open/{forged}/game", f"/games/nosuchgame1/open/{token}/game",
                f"/games/{g}/open/not-a-token/game", f"/games/{g}/open/{token}/gm",
                f"/games/{g}/open/{token}/round/x"):
        r = world.app.test_client().get(bad)
        assert r.status_code == 404, bad
    # The GM removes red: the link stops.
    assert world.gm("POST", "remove", {"seat": "red", "units": "hold"}).status_code == 200
    browser = world.app.test_client()
    r = browser.get(path)
    assert r.status_code == 404 and "not valid" in r.get_data(as_text=True)
    assert browser.get(f"/games/{g}").status_code == 404


def test_a_public_games_mail_links_stay_plain(tmp_path: Any) -> None:
    world = _played(tmp_path, public=True)
    links = _links(_results_text(world, "red", 2), world.game_id)
    assert not [p for p in links if "/open/" in p]
    assert f"/games/{world.game_id}/rounds/1" in links


def test_a_private_games_invitation_links_only_what_opens_before_joining(tmp_path: Any) -> None:
    world = World(tmp_path)
    created = world.client.post("/api/games", json={"ruleset": "universal", "public": False, "seats": [
        {"name": "red", "email": "red@example.org"}, {"name": "blue", "email": "blue@example.org"}]}).json
    g = created["id"]
    with world.app.app_context(), session_scope() as s, s.begin():
        row = s.scalars(select(Outbox).where(Outbox.game_id == g, Outbox.kind == "invitation")).first()
        assert row is not None
        text = text_of(parse(compose(s, row, mail_settings(world.app.config)).raw))
    links = re.findall(rf"{BASE}(/[^\s<>\"')]*)", text)
    assert [p for p in links if f"/games/{g}/join/" in p], text
    browser = world.app.test_client()
    for path in links:  # the invitation, the rules, your games (after signing in): none is a 404
        assert browser.get(path.split("#")[0]).status_code in (200, 302, 303), path
    assert "Game page:" not in text and "Game record:" not in text
