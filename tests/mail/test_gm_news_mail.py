"""The new mail kinds over real SMTP (aiosmtpd): the GM's news (every GM action and
announcement reaches every player, bulk, with the game's threading and unsubscribe headers)
and a message at the table (one to one; replying to it answers its sender alone)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from service.clock import FakeClock
from service.db import session_scope
from service.models import AuditLog, Outbox
from service.outbound.deliver import deliver
from service.sweeper import sweep_and_ring
from tests.mail.conftest import start_game
from tests.mail.mail_world import html_of, text_of
from tests.mail.smtp_server import SmtpServer


@pytest.fixture
def smtp():
    with SmtpServer() as server:
        yield server


def _send_news(app) -> None:
    with session_scope(app) as s:
        pending = list(s.scalars(select(Outbox.id).where(Outbox.status == "pending", Outbox.kind == "gm_news")))
    with app.app_context():
        for oid in pending:
            assert deliver(oid) == "sent"


def test_a_pause_and_an_announcement_reach_both_players_by_smtp_in_one_mail(sqlite_app, smtp):
    """The GM's actions of a few minutes come in one mail to each player, sent when the
    sweeper finds it due; saving the policy as it stands mails and logs nothing."""
    clock = sqlite_app.config["CLOCK"] = FakeClock(datetime.now(UTC))
    game = start_game(sqlite_app)
    sqlite_app.config["SMTP_URL"] = f"smtp://127.0.0.1:{smtp.port}"
    client = sqlite_app.test_client()
    gm = {"Authorization": f"Bearer {game.gm_token}"}
    assert client.post(f"/api/games/{game.id}/gm/pause", headers=gm).status_code == 200
    clock.advance(timedelta(minutes=1))
    r = client.post(f"/api/games/{game.id}/gm/announce", headers=gm, json={"text": "Back on Friday.\nBe kind."})
    assert r.status_code == 200 and r.json["text"] == "Back on Friday.\nBe kind."
    assert client.post(f"/api/games/{game.id}/gm/announce", headers=gm, json={}).json["field"] == "text"
    policy = {"kind": "duration", "duration": "PT72H"}
    logged = _log(sqlite_app, game.id)
    saved = [client.put(f"/api/games/{game.id}/gm/policy", headers=gm, json=policy) for _ in range(4)]
    assert [(r.status_code, r.json["changed"]) for r in saved] == [(200, True)] + [(200, False)] * 3
    assert _log(sqlite_app, game.id) == [*logged, "gm_set_policy"]  # the same policy again: nothing told
    with sqlite_app.app_context():
        sweep_and_ring()
    assert smtp.received == []  # still gathering
    clock.advance(timedelta(minutes=2, seconds=30))
    with sqlite_app.app_context():
        sweep_and_ring()
    got = sorted((m.recipients[0], str(m.message["Subject"])) for m in smtp.received)
    assert got == [("alice@example.org", "[Mail duel] GM paused the game, and 2 more changes"),
                   ("bob@example.org", "[Mail duel] GM paused the game, and 2 more changes")]
    news = smtp.received[0].message
    text, html = text_of(news), html_of(news)
    assert "The game master of Mail duel did 3 things, oldest first:" in text
    assert text.count("GM changed the deadline policy") == 1
    assert "- GM paused the game: no round closes until it resumes; the deadline was" in text
    assert "- GM announcement: Back on Friday.\nBe kind." in text
    assert text.index("GM paused") < text.index("GM announcement")
    assert "Orders you send now are\nkept, and they count when play resumes." in text
    assert "they count when play resumes" in html and "<li><b>GM announcement: Back on Friday." in html
    assert news["Precedence"] == "bulk" and news["List-Unsubscribe"].startswith("<http://dicepost.test/")
    assert news["In-Reply-To"].startswith(f"<game-{game.id}-seat-")

    # Later, a new mail: the one sent is never added to.
    assert client.post(f"/api/games/{game.id}/gm/resume", headers=gm).status_code == 200
    clock.advance(timedelta(minutes=4))
    with sqlite_app.app_context():
        sweep_and_ring()
    later = [m for m in smtp.received[2:] if m.recipients == ["alice@example.org"]]
    assert [str(m.message["Subject"]) for m in later] == ["[Mail duel] GM resumed the game after a pause of 3 minutes"]


def _log(app, game_id: str) -> list[str]:
    with session_scope(app) as s:
        return list(s.scalars(select(AuditLog.action).where(AuditLog.game_id == game_id).order_by(AuditLog.id)))


def test_a_message_at_the_table_goes_by_smtp_and_its_reply_answers_it(sqlite_app, smtp):
    """alice writes MSG bob by mail; bob gets it over SMTP and answers by replying to it."""
    game = start_game(sqlite_app)
    sqlite_app.config["SMTP_URL"] = f"smtp://127.0.0.1:{smtp.port}"
    game.send(_raw(game.reply_to("alice"), "MSG bob\nMeet me at the ford.", "<msg1@c>", "alice@example.org"))
    _send_news(sqlite_app)  # nothing of the GM here; the message went out as it was queued
    got = next(m for m in smtp.received if "Message from" in str(m.message["Subject"]))
    assert got.recipients == ["bob@example.org"]
    assert str(got.message["Subject"]) == "[Mail duel] Message from alice to you"
    assert "Meet me at the ford." in text_of(got.message) and "alone" in text_of(got.message)
    assert got.message["Precedence"] is None  # one to one, not news for every player
    reply = (f"From: bob@example.org\r\nTo: {got.message['Reply-To']}\r\nSubject: Re: x\r\n"
             f"Message-ID: <msg2@c>\r\nIn-Reply-To: {got.message['Message-ID']}\r\n\r\nOn my way.\r\n").encode()
    game.send(reply)
    page = sqlite_app.test_client().get(f"/games/{game.id}/player/{game.tokens['alice']}").get_data(as_text=True)
    assert "On my way." in page and "bob</strong>\n→ <strong>alice</strong>" in page


def _raw(to: str, body: str, mid: str, sender: str) -> bytes:
    return f"From: {sender}\r\nTo: {to}\r\nSubject: Re: x\r\nMessage-ID: {mid}\r\n\r\n{body}\r\n".encode()
