"""The player's time zone and the message digest, over real SMTP (aiosmtpd).

ZONE by mail sets the zone of the player's address (a bad one is refused naming the
line); from then on every mail that gives a time gives it in that zone with UTC (and the
game's zone) beside, while the other player's mail keeps UTC and the game's zone. With the
message preference "digest", messages are not mailed one by one: the results mail carries
the round's public talk and the private messages to that seat, never anyone else's.
"""

from __future__ import annotations

from datetime import UTC, datetime
from email.message import EmailMessage
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from flask import Flask
from markupsafe import escape
from sqlalchemy import select

from service.clock import FakeClock
from service.db import session_scope
from service.gm.news import GATHER
from service.models import Outbox, PlayerZone, Round
from service.outbound.deliver import deliver
from service.timekeeping.wording import time_text
from tests.mail.conftest import MailGame, start_game
from tests.mail.mail_world import html_of, text_of
from tests.mail.smtp_server import SmtpServer

BERLIN = {"kind": "duration", "duration": "PT48H", "timezone": "Europe/Berlin"}
NEW_YORK = ZoneInfo("America/New_York")


@pytest.fixture
def smtp():
    with SmtpServer() as server:
        yield server


def _deliver_pending(app: Flask) -> None:
    with session_scope(app) as s:
        pending = list(s.scalars(select(Outbox.id).where(Outbox.status == "pending").order_by(Outbox.id)))
    with app.app_context():
        for oid in pending:
            deliver(oid)


def _mail(game: MailGame, to: str, body: str, n: int) -> Any:
    raw = (f"From: {to}@example.org\r\nTo: {game.reply_to(to)}\r\nSubject: Re: x\r\n"
           f"Message-ID: <zone{n}.{to}@client.example.org>\r\n\r\n{body}\r\n").encode()
    out = game.send(raw)
    _deliver_pending(game.app)
    return out


def _got(smtp: SmtpServer, who: str, subject: str) -> EmailMessage:
    found = [m.message for m in smtp.received
             if m.recipients == [f"{who}@example.org"] and subject in str(m.message["Subject"])]
    assert found, f"{who} got no {subject!r}: {[(m.recipients, str(m.message['Subject'])) for m in smtp.received]}"
    return found[-1]


def _closes(app: Flask, game_id: str, number: int):
    with session_scope(app) as s:
        return s.scalars(select(Round.closes_at).where(Round.game_id == game_id, Round.number == number)).one()


def _orders(app: Flask, game: MailGame, seat: str, number: int) -> None:
    r = app.test_client().put(f"/api/games/{game.id}/orders", headers={"Authorization": f"Bearer {game.tokens[seat]}"},
                              json={"round": number, "orders": "pass"})
    assert r.status_code == 200, r.json


def test_zone_by_mail_puts_every_later_time_in_the_players_zone_with_utc_beside(sqlite_app, smtp):
    clock = sqlite_app.config["CLOCK"] = FakeClock(datetime.now(UTC))
    game = start_game(sqlite_app, policy=BERLIN)
    sqlite_app.config["SMTP_URL"] = f"smtp://127.0.0.1:{smtp.port}"

    out = _mail(game, "alice", "ZONE Mars/Base", 1)
    assert out.detail.startswith("ZONE refused: the line 'ZONE Mars/Base' names no time zone"), out.detail
    refused = text_of(_got(smtp, "alice", "Status"))
    assert "ZONE refused: the line 'ZONE Mars/Base' names no time zone" in refused
    with session_scope(sqlite_app) as s:
        assert s.get(PlayerZone, "alice@example.org") is None  # nothing stored

    out = _mail(game, "alice", "ZONE America/New_York", 2)
    assert out.detail == "zone set", out.detail
    answer = text_of(_got(smtp, "alice", "Status"))
    assert "ZONE    America/New_York: your mails give times in it, UTC beside" in answer

    closes = _closes(sqlite_app, game.id, 1)
    hers = time_text(closes, ZoneInfo("Europe/Berlin"), NEW_YORK)
    his = time_text(closes, ZoneInfo("Europe/Berlin"))
    assert "America/New_York, your time (" in hers and " UTC; " in hers and "Europe/Berlin, the game's" in hers

    _mail(game, "alice", "STATUS", 3)
    _mail(game, "bob", "STATUS", 3)
    status = _got(smtp, "alice", "Status of round 1")
    assert f"Round 1 is open until {hers}." in text_of(status)
    assert str(escape(hers)) in html_of(status)
    assert "Times in this mail: your time zone, America/New_York, with UTC beside" in text_of(status)
    assert f"Round 1 is open until {his}." in text_of(_got(smtp, "bob", "Status of round 1"))

    # The GM's news: each player reads the times in their own zone.
    gm = {"Authorization": f"Bearer {game.gm_token}"}
    r = sqlite_app.test_client().post(f"/api/games/{game.id}/gm/extend", headers=gm, json={"by": "PT12H"})
    assert r.status_code == 200, r.json
    clock.advance(GATHER)  # the GM's news waits a few minutes for the GM's next actions
    _deliver_pending(sqlite_app)
    moved = _closes(sqlite_app, game.id, 1)
    news = text_of(_got(smtp, "alice", "GM extended"))
    assert f"to {time_text(moved, ZoneInfo('Europe/Berlin'), NEW_YORK, year=False)}" in news
    assert "Times are in your time zone, America/New_York, with UTC and the game's beside." in news
    bobs = text_of(_got(smtp, "bob", "GM extended"))
    assert "Times are in the game's time zone, Europe/Berlin." in bobs and "your time" not in bobs

    # A message shows when it was sent; the results show the next deadline in her zone.
    _mail(game, "bob", "MSG alice\nSee you at the ford.", 4)
    message = text_of(_got(smtp, "alice", "Message from bob"))
    assert "See you at the ford." in message and "America/New_York, your time (" in message
    _orders(sqlite_app, game, "alice", 1)
    _orders(sqlite_app, game, "bob", 1)
    _deliver_pending(sqlite_app)
    nxt = _closes(sqlite_app, game.id, 2)
    assert f"Round 2 is open until {time_text(nxt, ZoneInfo('Europe/Berlin'), NEW_YORK)}" in \
        text_of(_got(smtp, "alice", "Round 1 results"))
    assert f"Round 2 is open until {time_text(nxt, ZoneInfo('Europe/Berlin'))}" in \
        text_of(_got(smtp, "bob", "Round 1 results"))

    # ZONE CLEAR: back to UTC and the game's zone.
    _mail(game, "alice", "ZONE CLEAR", 5)
    assert "ZONE    none: your mails give times in UTC and the game's zone" in text_of(_got(smtp, "alice", "Status"))


def _settings(app: Flask, game: MailGame, seat: str, **values: str) -> None:
    r = app.test_client().put(f"/api/games/{game.id}/settings", headers={"Authorization": f"Bearer {game.tokens[seat]}"},
                              json=values)
    assert r.status_code == 200, r.json
    assert all(r.json[k] == v for k, v in values.items()), r.json


def _digest(text: str) -> str:
    start = text.index("TABLE TALK")
    return text[start:text.index("EVERY PLAYER'S ORDERS", start)]


def test_the_digest_carries_the_rounds_talk_and_ones_own_private_messages_in_the_results(sqlite_app, smtp):
    game = start_game(sqlite_app, policy=BERLIN)
    sqlite_app.config["SMTP_URL"] = f"smtp://127.0.0.1:{smtp.port}"
    _settings(sqlite_app, game, "alice", message_pref="digest")
    _settings(sqlite_app, game, "bob", mail_pref="results", message_pref="digest")  # results only, digest too

    _mail(game, "bob", "MSG all\nHello table.", 1)
    _mail(game, "bob", "MSG alice\nA secret for alice.", 2)
    _mail(game, "alice", "MSG bob\nA secret for bob.", 3)
    _mail(game, "alice", "MSG all\nHello bob, good luck.", 4)
    assert not [m for m in smtp.received if "Message from" in str(m.message["Subject"])]  # none one by one
    with session_scope(sqlite_app) as s:
        assert not list(s.scalars(select(Outbox).where(Outbox.kind == "message")))

    _orders(sqlite_app, game, "alice", 1)
    _orders(sqlite_app, game, "bob", 1)
    _deliver_pending(sqlite_app)
    alices = _got(smtp, "alice", "Round 1 results")
    talk = _digest(text_of(alices))
    assert "TABLE TALK IN ROUND 1 (your digest: the public messages and those to you)" in talk
    assert "- bob to everyone, " in talk and "Hello table." in talk
    assert "- bob to you, privately, " in talk and "A secret for alice." in talk
    assert "- you to everyone, " in talk and "Hello bob, good luck." in talk
    assert "To write at the table, put a line MSG <seat|all|gm> in your reply" in talk
    assert "A secret for bob." not in text_of(alices) and "A secret for bob." not in html_of(alices)
    assert talk.index("Hello table.") < talk.index("A secret for alice.") < talk.index("Hello bob, good luck.")
    assert "A secret for alice." in html_of(alices)

    bobs = _got(smtp, "bob", "Round 1 results")
    talk = _digest(text_of(bobs))
    assert "Hello table." in talk and "A secret for bob." in talk and "Hello bob, good luck." in talk
    assert "A secret for alice." not in text_of(bobs) and "A secret for alice." not in html_of(bobs)

    # The next results carry the next round's talk only; "none" leaves the digest out.
    _settings(sqlite_app, game, "bob", message_pref="none")
    _mail(game, "alice", "MSG all\nRound two talk.", 5)
    _orders(sqlite_app, game, "alice", 2)
    _orders(sqlite_app, game, "bob", 2)
    _deliver_pending(sqlite_app)
    talk = _digest(text_of(_got(smtp, "alice", "Round 2 results")))
    assert "Round two talk." in talk and "Hello table." not in talk
    assert "TABLE TALK" not in text_of(_got(smtp, "bob", "Round 2 results"))


def test_each_message_still_comes_one_by_one_and_the_results_carry_no_digest(sqlite_app, smtp):
    game = start_game(sqlite_app, policy=BERLIN)
    sqlite_app.config["SMTP_URL"] = f"smtp://127.0.0.1:{smtp.port}"
    _settings(sqlite_app, game, "bob", mail_pref="results", message_pref="each")  # results only, messages each
    _mail(game, "alice", "MSG bob\nStraight to you.", 1)
    assert "Straight to you." in text_of(_got(smtp, "bob", "Message from alice"))
    _orders(sqlite_app, game, "alice", 1)
    _orders(sqlite_app, game, "bob", 1)
    _deliver_pending(sqlite_app)
    assert "TABLE TALK" not in text_of(_got(smtp, "bob", "Round 1 results"))


def test_a_replacement_invitation_gives_the_open_rounds_deadline_in_the_newcomers_zone(sqlite_app, smtp):
    """The newcomer's address set its zone in another game: the invitation to a game under
    way gives the open round's deadline in it, UTC and the game's zone beside."""
    game = start_game(sqlite_app, policy=BERLIN)
    with session_scope(sqlite_app) as s, s.begin():
        s.add(PlayerZone(address="erin@example.org", zone="Asia/Tokyo", updated_at=_closes(sqlite_app, game.id, 1)))
    sqlite_app.config["SMTP_URL"] = f"smtp://127.0.0.1:{smtp.port}"
    gm = {"Authorization": f"Bearer {game.gm_token}"}
    r = sqlite_app.test_client().post(f"/api/games/{game.id}/gm/replace", headers=gm,
                                      json={"seat": "bob", "email": "erin@example.org"})
    assert r.status_code == 200, r.json
    _deliver_pending(sqlite_app)
    invitation = _got(smtp, "erin", "Invitation")
    closes = time_text(_closes(sqlite_app, game.id, 1), ZoneInfo("Europe/Berlin"), ZoneInfo("Asia/Tokyo"))
    assert f"Round 1 is open until {closes}." in text_of(invitation)
    assert str(escape(closes)) in html_of(invitation)
    assert "Times in this mail: your time zone, Asia/Tokyo, with UTC beside" in text_of(invitation)
