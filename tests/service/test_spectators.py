"""Private games and spectator links: every page and API of a private game refused
without a token, worded as for a game that does not exist; each kind of token (player,
GM, spectator; by header or by this browser's session) lets it through; the GM makes and
revokes spectator links; following a private game only through one; the GM's unread count."""

from __future__ import annotations

import re
from typing import Any

import pytest

from service.db import session_scope
from service.follow import follow_token
from service.models import Follower, Game, Spectator
from tests.dashboard.test_signin import sign_in
from tests.service.schedule_world import World

TITLE = "Secret Skirmish"


@pytest.fixture
def world(tmp_path: Any) -> World:
    w = World(tmp_path).start({"kind": "duration", "duration": "PT48H"}, public=False)
    with session_scope(w.app) as s, s.begin():  # a title that must not leak
        s.get(Game, w.game_id).title = TITLE
    for seat in ("red", "blue"):  # round 1 resolves: there is a round page and a record step
        assert w.submit(seat).status_code == 200
    assert w.steps() == 2
    return w


def spectator_link(world: World, label: str = "the newsletter") -> str:
    """A new spectator link, made on the GM's page and read back from it."""
    gm = f"/games/{world.game_id}/gm/{world.gm_token}"
    r = world.client.post(f"{gm}/spectators", data={"label": label})
    assert r.status_code == 303 and r.headers["Location"].endswith(f"{gm}#spectators")
    page = world.client.get(gm).get_data(as_text=True)
    links = re.findall(r'class="mono spectator-link" href="([^"]+)"', page)
    assert links
    return links[-1]


def paths(world: World) -> list[str]:
    g = world.game_id
    return [f"/games/{g}", f"/games/{g}/rounds/1", f"/api/games/{g}", f"/api/games/{g}/rounds/1",
            f"/api/games/{g}/record"]


def test_a_private_game_answers_as_a_missing_game_without_a_token(world: World) -> None:
    stranger = world.app.test_client()
    missing = stranger.get("/games/nosuchgame1").get_data(as_text=True)
    assert "a private game&#39;s pages open only with a player, GM or spectator link" in missing
    for path in paths(world):
        r = stranger.get(path)
        body = r.get_data(as_text=True)
        assert r.status_code == 404, path
        assert TITLE not in body and "spectator link" in body, path
    # A wrong token by header opens nothing either.
    for path in paths(world):
        assert stranger.get(path, headers={"Authorization": "Bearer not-a-token"}).status_code == 404
    # Following, and the follow pages, neither: the title stays hidden.
    assert stranger.post(f"/games/{world.game_id}/follow", data={"email": "x@example.org"}).status_code == 404
    done = stranger.get(f"/games/{world.game_id}/follow/asked").get_data(as_text=True)
    assert TITLE not in done
    # The list of public games does not name it.
    assert world.game_id not in stranger.get("/api/games").get_data(as_text=True)
    assert world.game_id not in stranger.get("/lobby").get_data(as_text=True)


@pytest.mark.parametrize("kind", ["player", "gm", "spectator"])
def test_each_kind_of_token_opens_every_page_by_header(world: World, kind: str) -> None:
    token = {"player": world.tokens["red"], "gm": world.gm_token,
             "spectator": spectator_link(world).rsplit("/", 1)[1]}[kind]
    stranger = world.app.test_client()
    for path in paths(world):
        r = stranger.get(path, headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200, (kind, path)
    assert TITLE in stranger.get(f"/games/{world.game_id}",
                                 headers={"Authorization": f"Bearer {token}"}).get_data(as_text=True)


@pytest.mark.parametrize("kind", ["player", "gm", "spectator", "signed-in"])
def test_each_kind_of_link_opens_the_pages_in_its_browser_without_tokens_in_them(world: World, kind: str) -> None:
    link = spectator_link(world) if kind == "spectator" else ""
    browser = world.app.test_client()
    if kind == "player":
        token = world.tokens["blue"]
        assert browser.get(f"/games/{world.game_id}/player/{token}").status_code == 200
    elif kind == "gm":
        token = world.gm_token
        assert browser.get(f"/games/{world.game_id}/gm/{token}").status_code == 200
    elif kind == "spectator":
        token = link.rsplit("/", 1)[1]
        r = browser.get(link.removeprefix("http://dicepost.test"))
        # Straight on to the game page: the token leaves the address bar at once.
        assert r.status_code == 303 and r.headers["Location"] == f"/games/{world.game_id}"
        assert r.headers["Referrer-Policy"] == "no-referrer"
    else:
        token = ""
        sign_in(world.app, browser, "red@example.org")  # through the mailed link
    for path in paths(world):
        r = browser.get(path)
        assert r.status_code == 200, (kind, path)
        if token:
            assert token not in r.get_data(as_text=True), (kind, path)
    page = browser.get(f"/games/{world.game_id}").get_data(as_text=True)
    assert TITLE in page
    assert ("Follow this game" in page) == (kind == "spectator")  # a private game: spectators follow


def test_public_games_stay_open(tmp_path: Any) -> None:
    world = World(tmp_path).start({"kind": "duration", "duration": "PT48H"})
    stranger = world.app.test_client()
    for path in (f"/games/{world.game_id}", f"/api/games/{world.game_id}", f"/api/games/{world.game_id}/record"):
        assert stranger.get(path).status_code == 200, path
    assert "Follow this game" in stranger.get(f"/games/{world.game_id}").get_data(as_text=True)


def test_revoking_a_link_closes_it_and_stops_its_followers_mail(world: World) -> None:
    link = spectator_link(world, "Carol")
    token = link.rsplit("/", 1)[1]
    spectator = world.app.test_client()
    assert spectator.get(link.removeprefix("http://dicepost.test")).status_code == 303
    r = spectator.post(f"/games/{world.game_id}/follow", data={"email": "carol@example.org"})
    assert r.status_code == 303
    with session_scope(world.app) as s:
        follower = s.query(Follower).one()
        row = s.query(Spectator).one()
        assert follower.spectator_id == row.id and row.label == "Carol"
        assert row.token_hash != token and token not in row.token_hash  # kept hashed only
        sid, follow_link = row.id, f"/follow/{follow_token('test', follower.id, follower.salt)}"
    # The follow link (mailed) opens the game in another browser too, while the link is live.
    elsewhere = world.app.test_client()
    assert elsewhere.get(follow_link).status_code == 200
    assert elsewhere.get(f"/games/{world.game_id}").status_code == 200
    gm = f"/games/{world.game_id}/gm/{world.gm_token}"
    r = world.client.post(f"{gm}/spectators/{sid}/revoke", follow_redirects=True)
    assert "The spectator link for Carol is revoked" in r.get_data(as_text=True)
    assert "spectator-link" not in world.client.get(gm).get_data(as_text=True)
    # The session that holds it, the header and the link itself: all refused now.
    assert spectator.get(f"/games/{world.game_id}").status_code == 404
    assert world.app.test_client().get(f"/api/games/{world.game_id}",
                                       headers={"Authorization": f"Bearer {token}"}).status_code == 404
    assert "not valid" in spectator.get(link.removeprefix("http://dicepost.test")).get_data(as_text=True)
    with session_scope(world.app) as s:
        assert s.query(Follower).count() == 0
    assert elsewhere.get(f"/games/{world.game_id}").status_code == 404
    assert elsewhere.get(follow_link).status_code == 404


def test_spectator_links_refuse_bad_input_and_other_games(world: World, tmp_path: Any) -> None:
    gm = f"/games/{world.game_id}/gm/{world.gm_token}"
    r = world.client.post(f"{gm}/spectators", data={"label": "x" * 81}, follow_redirects=True)
    assert "label: at most 80 characters, got 81" in r.get_data(as_text=True)
    r = world.client.post(f"{gm}/spectators/999/revoke", follow_redirects=True)
    assert "this game has no spectator link 999" in r.get_data(as_text=True)
    assert world.client.post(f"/games/{world.game_id}/gm/wrong/spectators").status_code == 401
    # A spectator link opens its own game only.
    token = spectator_link(world).rsplit("/", 1)[1]
    assert world.app.test_client().get(f"/games/{world.game_id}/watch/{token}x").status_code == 404
    assert world.app.test_client().get(f"/games/abcdefghij/watch/{token}").status_code == 404


def test_following_a_private_game_needs_a_spectator_link(world: World) -> None:
    player = world.app.test_client()
    assert player.get(f"/games/{world.game_id}/player/{world.tokens['red']}").status_code == 200
    r = player.post(f"/games/{world.game_id}/follow", data={"email": "red2@example.org"})
    assert r.status_code == 404  # players get the game's mail already; spectators follow
    assert "spectator link" in r.get_data(as_text=True)


def test_the_gm_sees_how_many_messages_are_new(world: World) -> None:
    for seat, to, text in (("red", "all", "hello"), ("blue", "gm", "may I pause?"), ("red", "blue", "psst")):
        r = world.client.post(f"/games/{world.game_id}/player/{world.tokens[seat]}/messages",
                              data={"to": to, "text": text})
        assert r.status_code == 303
    gm = f"/games/{world.game_id}/gm/{world.gm_token}"
    page = world.client.get(gm).get_data(as_text=True)
    # red's private message to blue is not the GM's to read (nor to count) in this game
    assert '<a href="#messages">2 new messages</a> at the table since you last opened this page.' in page
    assert "(2 new)" in page
    again = world.client.get(gm).get_data(as_text=True)
    assert "new-messages" not in again and "(2 new)" not in again  # seen now
    world.client.post(f"{gm}/messages", data={"to": "all", "text": "from the GM"})  # its own: not new
    world.client.post(f"/games/{world.game_id}/player/{world.tokens['blue']}/messages",
                      data={"to": "red", "text": "between players"})
    world.client.post(f"/games/{world.game_id}/player/{world.tokens['blue']}/messages",
                      data={"to": "all", "text": "to the table"})
    assert "1 new message</a>" in world.client.get(gm).get_data(as_text=True)
