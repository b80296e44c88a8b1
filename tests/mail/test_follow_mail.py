"""Spectators over real SMTP (aiosmtpd): following a public game by mail takes a confirmed
link, then each resolved round mails the follower a link to it (never anyone's orders),
and the same link stops the mails. Bad addresses, private and finished games and too many
asks are refused with the reason."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from service.db import session_scope
from service.models import Game, Outbox
from service.outbound.deliver import deliver
from tests.mail.conftest import start_game
from tests.mail.mail_world import html_of, text_of
from tests.mail.smtp_server import SmtpServer


@pytest.fixture
def smtp():
    with SmtpServer() as server:
        yield server


def _deliver(app) -> None:
    with session_scope(app) as s:
        pending = list(s.scalars(select(Outbox.id).where(Outbox.status == "pending")))
    with app.app_context():
        for oid in pending:
            deliver(oid)


def _to(smtp, address: str) -> list:
    return [m.message for m in smtp.received if m.recipients == [address]]


def test_a_spectator_follows_a_game_by_mail_and_stops(sqlite_app, smtp):
    game = start_game(sqlite_app)
    sqlite_app.config["SMTP_URL"] = f"smtp://127.0.0.1:{smtp.port}"
    fan = sqlite_app.test_client()
    assert "Follow by mail" in fan.get(f"/games/{game.id}").get_data(as_text=True)
    r = fan.post(f"/games/{game.id}/follow", data={"email": "Fan@Example.org"})
    assert r.status_code == 303 and r.headers["Location"].endswith(f"/games/{game.id}/follow/asked")
    assert "went to <strong>fan@example.org</strong>" in fan.get(r.headers["Location"]).get_data(as_text=True)
    assert fan.post(f"/games/{game.id}/follow", data={"email": "lurker@example.org"}).status_code == 303
    _deliver(sqlite_app)

    (ask,) = _to(smtp, "fan@example.org")
    assert str(ask["Subject"]).endswith("Follow Mail duel by mail?")
    link = re.search(r"http://dicepost\.test(/follow/[\w.]+)", text_of(ask))
    assert link is not None and link.group(1) in html_of(ask)
    page = fan.get(link.group(1)).get_data(as_text=True)
    assert "Follow Mail duel by mail?" in page and ">Follow</button>" in page
    confirmed = fan.post(link.group(1), data={"action": "follow"})
    assert confirmed.status_code == 303
    assert "You follow Mail duel by mail" in fan.get(link.group(1)).get_data(as_text=True)

    for name in ("alice", "bob"):  # round 1 by mail
        player = game.players[name]
        player.reply(game.start_mail(name), "pass")
    _deliver(sqlite_app)
    news = [m for m in _to(smtp, "fan@example.org") if "round 1 resolved" in str(m["Subject"])]
    assert len(news) == 1, [str(m["Subject"]) for m in _to(smtp, "fan@example.org")]
    text = text_of(news[0])
    assert f"http://dicepost.test/games/{game.id}/rounds/1" in text and link.group(1) in text
    assert "TOKEN" not in text  # no orders, no player's reply token
    assert news[0]["Precedence"] == "bulk" and news[0]["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    one_click = re.fullmatch(r"<http://dicepost\.test(/follow/[\w.]+/stop)>", news[0]["List-Unsubscribe"].strip())
    assert one_click is not None and one_click.group(1) == link.group(1) + "/stop"
    # The address that never pressed Follow got its link and nothing more.
    assert [str(m["Subject"]) for m in _to(smtp, "lurker@example.org")] == ["[Mail duel] Follow Mail duel by mail?"]

    # The mail client's one-click POST (no CSRF token, no session) stops the lurker's link too.
    (lurk,) = _to(smtp, "lurker@example.org")
    lurk_stop = re.search(r"<http://dicepost\.test(/follow/[\w.]+/stop)>", lurk["List-Unsubscribe"])
    assert lurk_stop is not None
    csrf_on = sqlite_app.config["WTF_CSRF_ENABLED"]
    sqlite_app.config["WTF_CSRF_ENABLED"] = True
    try:
        assert sqlite_app.test_client().post(lurk_stop.group(1),
                                             data={"List-Unsubscribe": "One-Click"}).status_code == 303
        assert sqlite_app.test_client().post(link.group(1), data={"action": "stop"}).status_code == 400  # CSRF
    finally:
        sqlite_app.config["WTF_CSRF_ENABLED"] = csrf_on
    assert fan.get(lurk_stop.group(1).removesuffix("/stop")).status_code == 404
    stopped = fan.post(link.group(1), data={"action": "stop"})
    assert stopped.status_code == 303 and stopped.headers["Location"].endswith("/follow/stopped")
    assert "You no longer follow Mail duel" in fan.get(stopped.headers["Location"]).get_data(as_text=True)
    gone = fan.get(link.group(1))
    assert gone.status_code == 404 and "this follow link is not valid" in gone.get_data(as_text=True)


def test_follow_refusals_say_why(sqlite_app):
    game = start_game(sqlite_app)
    client = sqlite_app.test_client()
    bad = client.post(f"/games/{game.id}/follow", data={"email": "not an address"})
    assert bad.status_code == 422 and "email" in bad.get_data(as_text=True)
    for _ in range(3):
        assert client.post(f"/games/{game.id}/follow", data={"email": "fan@example.org"}).status_code == 303
    many = client.post(f"/games/{game.id}/follow", data={"email": "fan@example.org"})
    assert many.status_code == 429 and int(many.headers["Retry-After"]) > 0
    assert "fan@example.org has been sent 3 follow links in the last hour" in many.get_data(as_text=True)
    assert client.get("/follow/1.notthemac").status_code == 404
    assert client.get("/follow/nonsense").status_code == 404
    with session_scope(sqlite_app) as s, s.begin():
        s.get(Game, game.id).public = False
    assert client.post(f"/games/{game.id}/follow", data={"email": "x@example.org"}).status_code == 404
    assert "Follow by mail" not in client.get(f"/games/{game.id}").get_data(as_text=True)
    with session_scope(sqlite_app) as s, s.begin():
        done = s.get(Game, game.id)
        done.public, done.status = True, "finished"
    over = client.post(f"/games/{game.id}/follow", data={"email": "x@example.org"})
    assert over.status_code == 409 and "the game is over" in over.get_data(as_text=True)
