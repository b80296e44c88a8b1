"""No noise: news that arrives together is one push, no "your turn" while the player looks
at the game, nothing inside the game's quiet hours."""

from __future__ import annotations

import secrets

from sqlalchemy import select

from service import push
from service.db import session_scope
from service.models import Game, Seat, SignIn
from service.sign_ins import ADDRESS, SIGN_IN
from service.tokens import token_hash
from tests.push.conftest import PushWorld


def sign_in(world: PushWorld, email: str) -> None:
    secret = secrets.token_urlsafe(16)
    with session_scope(world.app) as s, s.begin():
        s.add(SignIn(secret_hash=token_hash(secret), email=email, created_at=world.clock.now()))
    with world.client.session_transaction() as sess:
        sess[ADDRESS], sess[SIGN_IN] = email, secret


def test_a_player_with_three_games_gets_one_your_turn_in_3_games(tmp_path, service):
    """Collapsed when several arrive together: a player with five games gets one "your turn in 3 games"."""
    world = PushWorld(tmp_path)
    games = [world.start().game_id for _ in range(3)]
    sign_in(world, "red@example.org")
    phone = service.browser("phone")
    r = world.client.post("/push/subscribe", json={"subscription": phone.subscription(), "all": True})
    assert r.status_code == 200 and r.json["on"] == "all:red@example.org"
    # three rounds opened by one pass of the sweeper, say
    with world.app.app_context(), session_scope(world.app) as s, s.begin():
        for game_id in games:
            game = s.get(Game, game_id)
            seat = s.scalars(select(Seat).where(Seat.game_id == game_id, Seat.name == "red")).one()
            push.queue(s, game, seat, push.News("turn", "r2", "Your turn", "round 2", "http://x/"))
    [message] = world.received(service, phone)
    assert message["title"] == "Your turn in 3 games"
    assert message["count"] == 3 and message["events"] == ["turn"] * 3
    assert message["url"].endswith("/me")  # Your games: every game waiting, in one page
    assert message["game"] is None
    # blue has no subscription: blue's news goes nowhere
    assert all(p.seat_id is not None for p in world.pushes()) and len(world.pushes()) == 3


def test_news_waiting_for_a_retry_goes_out_with_the_next(tmp_path, service):
    world = PushWorld(tmp_path).start()
    phone = service.browser("phone")
    world.subscribe(phone, "red")
    service.answers = [(503, {})]
    world.news("red", "results", key="round-1", title="Round 1 results")
    world.news("red", "turn", key="round-2", title="Your turn")
    messages = world.received(service, phone)
    assert len(messages) == 2  # the first failed (503); the second took it along
    assert messages[1]["title"].endswith(": 2 updates")  # one game: its title, then the count
    assert messages[1]["body"] == "Round 1 results\nYour turn"
    assert {p.status for p in world.pushes()} == {"sent"}


def test_no_your_turn_push_while_the_player_has_the_page_open(tmp_path, service):
    """No "your turn" push to a player who is on the game's page right now."""
    world = PushWorld(tmp_path).start()
    phone = service.browser("phone")
    world.subscribe(phone, "red")
    here = world.client.post(f"/games/{world.game_id}/player/{world.tokens['red']}/here")
    assert here.status_code == 200
    assert world.news("red", "turn", key="r1") == []
    assert len(world.news("red", "results", key="round-1")) == 1  # results still come
    assert len(world.news("blue", "turn", key="r1")) == 0  # blue never subscribed
    world.advance(seconds=int(push.PRESENT.total_seconds()) + 1)  # the page closed: no heartbeat since
    assert len(world.news("red", "turn", key="r2")) == 1
    assert [m["events"] for m in world.received(service, phone)] == [["results"], ["turn"]]
    bad = world.client.post(f"/games/{world.game_id}/player/not-a-token/here")
    assert bad.status_code == 401


def test_quiet_hours_hold_a_push_until_they_end(tmp_path, service):
    """Quiet hours and the player's zone apply to push as they do to mail."""
    world = PushWorld(tmp_path).start({"kind": "duration", "duration": "PT48H",
                                       "quiet_hours": {"start": "11:00", "end": "13:00"}})
    phone = service.browser("phone")
    world.subscribe(phone, "red")
    assert len(world.news("red", "results", key="round-1")) == 1  # 12:00 UTC: inside
    [row] = world.pushes()
    assert row.next_attempt_at is not None and row.next_attempt_at.hour == 13
    assert service.received == []
    world.advance(minutes=30)
    world.sweep()
    assert service.received == []
    world.advance(minutes=31)
    assert world.sweep()["push"] == 1
    assert [m["events"] for m in world.received(service, phone)] == [["results"]]
