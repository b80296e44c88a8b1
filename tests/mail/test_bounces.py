"""Bounces back to seats: every mail to a seat leaves with a signed per-recipient return path
(VERP); the delivery reports of the common mail servers, written here as fixtures in their
formats, map to the seat and the outbox row; a dead address is noticed and no longer mailed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from flask import Flask
from sqlalchemy import select

from service.db import session_scope
from service.mail.outbox import enqueue
from service.mail.settings import mail_settings
from service.mail.tokens import parse_token, verify_token
from service.models import FailingAddress, Game, MailBounce, Outbox, Seat
from tests.conftest import wait_for
from tests.mail.conftest import MailGame, start_game
from tests.mail.smtp_server import Received, SmtpServer
from tests.mail.test_outbox import _deliver, _queue, _row

FIXTURES = Path(__file__).parent / "fixtures" / "bounces"
BOB = "bob@example.org"


def _fill(name: str, **values: str) -> bytes:
    text = (FIXTURES / name).read_text()
    for key, value in values.items():
        text = text.replace("{" + key + "}", value)
    assert "{" not in re.sub(r"\{(?!\w+\})", "", text), f"{name}: a placeholder left"
    return text.replace("\r\n", "\n").replace("\n", "\r\n").encode()


@pytest.fixture
def smtp():
    with SmtpServer() as server:
        yield server


@pytest.fixture
def game(sqlite_app, smtp) -> MailGame:
    game = start_game(sqlite_app)  # set up with the embedded mailbox, then over SMTP
    sqlite_app.config["SMTP_URL"] = f"smtp://127.0.0.1:{smtp.port}"
    return game


def _mail_bob(game: MailGame, smtp: SmtpServer, kind: str = "status") -> tuple[int, Received]:
    oid = _queue(game.app, game.id, "bob", kind=kind)
    assert _deliver(game.app, oid) == "sent"
    return oid, smtp.received[-1]


def _bounce_of(name: str, got: Received, **extra: str) -> bytes:
    values = {"to": got.sender, "rcpt": BOB, "msgid": str(got.message["Message-ID"]),
              "subject": str(got.message["Subject"]), "n": "1", **extra}
    return _fill(name, **values)


def mail_bob_as_the_service(app: Flask, game: MailGame, smtp: SmtpServer) -> tuple[int, Received]:
    """A keyed mail to bob queued as the service queues its reminders (its Message-ID made
    by the service, with its MAC), and sent: (outbox id, what the server got)."""
    with app.app_context(), session_scope(app) as s, s.begin():
        seat = s.scalars(select(Seat).where(Seat.game_id == game.id, Seat.name == "bob")).one()
        row = enqueue(s, "status", {}, game=s.get(Game, game.id), seat=seat, key=f"{seat.id}.r1")
        assert row is not None
        oid = row.id
    if _row(app, oid).status != "sent":  # the after-commit doorbell may have sent it already
        wait_for(lambda: _row(app, oid).status == "sent" or _deliver(app, oid) == "sent", "the mail to bob sent")
    return oid, smtp.received[-1]


def _failing(game: MailGame) -> FailingAddress | None:
    with session_scope(game.app) as s:
        row = s.get(FailingAddress, BOB)
        if row is not None:
            s.expunge(row)
        return row


def test_each_mail_to_a_seat_carries_its_own_signed_return_path(game, smtp):
    oid, got = _mail_bob(game, smtp)
    bob = game.seat("bob")
    local, domain = got.sender.split("@")
    assert domain == "dicepost.localhost" and local.startswith("bounce+")
    token = parse_token(local.split("+", 1)[1])
    assert token.seat_id == f"{bob.id}-{oid}"
    assert verify_token(mail_settings(game.app.config).secret_key, "bounce", token, bob.reply_token_salt)
    # The header sender is unchanged: only the envelope names the seat.
    assert got.message["From"].addresses[0].addr_spec == "dicepost@dicepost.localhost"
    assert got.recipients == [BOB]


@pytest.mark.parametrize(("fixture", "status"), [
    ("postfix.eml", "5.1.1"), ("exim.eml", "5.1.1"), ("gmail.eml", "5.1.1"), ("outlook.eml", "5.1.10")])
def test_a_hard_bounce_in_each_servers_format_maps_to_the_seat_and_its_mail(game, smtp, fixture, status):
    oid, got = _mail_bob(game, smtp)
    outcome = game.send(_bounce_of(fixture, got))
    assert outcome.status == "ignored", outcome
    assert outcome.detail == f"hard bounce {status} for bob: the address is now failing"
    bob_id = game.seat("bob").id
    with session_scope(game.app) as s:
        bounce = s.scalars(select(MailBounce)).one()
        assert (bounce.seat_id, bounce.outbox_id, bounce.address, bounce.hard, bounce.status) == (
            bob_id, oid, BOB, True, status)
    failing = _failing(game)
    assert failing is not None and failing.seat_id == bob_id and status in failing.reason


def test_without_the_return_path_the_quoted_message_id_still_finds_the_seat(game, smtp):
    oid, got = mail_bob_as_the_service(game.app, game, smtp)
    outcome = game.send(_bounce_of("outlook.eml", got, to="dicepost@dicepost.localhost"))
    assert outcome.detail.startswith("hard bounce 5.1.10 for bob")
    with session_scope(game.app) as s:
        assert s.scalars(select(MailBounce.outbox_id)).one() == oid


def test_a_forged_return_path_names_nobody(game, smtp):
    _oid, got = _mail_bob(game, smtp)
    local, domain = got.sender.split("@")
    forged = f"{local[:-4]}{'aaaa' if not local.endswith('aaaa') else 'bbbb'}@{domain}"
    outcome = game.send(_bounce_of("postfix.eml", got, to=forged, msgid="<somebody@else.example>"))
    assert (outcome.status, outcome.detail) == ("ignored", "a bounce (5.1.1) for no mail of ours")
    assert _failing(game) is None


def test_soft_bounces_mark_the_address_only_when_they_repeat(game, smtp):
    _oid, got = _mail_bob(game, smtp)
    details = [game.send(_bounce_of("postfix_delayed.eml", got, n=str(n))).detail for n in (1, 2)]
    assert details == ["soft bounce 4.2.2 for bob (1 of 3 within 7 days)",
                       "soft bounce 4.2.2 for bob (2 of 3 within 7 days)"]
    assert _failing(game) is None
    third = game.send(_bounce_of("postfix_delayed.eml", got, n="3"))
    assert third.detail == "soft bounce 4.2.2 for bob: the address is now failing"
    assert _failing(game) is not None


def test_the_soft_bounce_limit_is_configurable(game, smtp):
    game.app.config["SOFT_BOUNCES"] = "1"
    _oid, got = _mail_bob(game, smtp)
    assert game.send(_bounce_of("postfix_delayed.eml", got)).detail.endswith("the address is now failing")


def test_a_failing_address_end_to_end(game, smtp):
    """Bob's address dies: alice is told by mail, the GM console and page, bob's player page
    and "Your games" show it, bob gets no more game mail, but the sign-in link he asks for."""
    _oid, got = _mail_bob(game, smtp)
    before = len(smtp.received)
    game.send(_bounce_of("gmail.eml", got))
    told = [r for r in smtp.received[before:] if r.recipients == ["alice@example.org"]]
    assert len(told) == 1 and "Mail to bob bounces" in str(told[0].message["Subject"])
    assert "5.1.1" in told[0].message.get_body(("plain",)).get_content()
    client = game.app.test_client()
    console = client.get(f"/api/games/{game.id}/gm", headers={"Authorization": f"Bearer {game.gm_token}"}).json
    by_name = {s["name"]: s for s in console["seats"]}
    assert by_name["alice"]["mail_failing"] is None
    assert by_name["bob"]["mail_failing"]["reason"].startswith("5.1.1")
    assert "cannot be reached: mail to bob@example.org bounces" in client.get(
        f"/games/{game.id}/gm/{game.gm_token}").get_data(as_text=True)
    page = client.get(f"/games/{game.id}/player/{game.tokens['bob']}").get_data(as_text=True)
    assert 'id="mail-failing"' in page and "Give an address that works" in page
    settings = client.get(f"/api/games/{game.id}/settings",
                          headers={"Authorization": f"Bearer {game.tokens['bob']}"}).json
    assert settings["email"] == BOB and settings["mail_failing"]["reason"].startswith("5.1.1")
    # No more game mail to bob: skipped, and nothing reaches the server.
    sent = len(smtp.received)
    oid = _queue(game.app, game.id, "bob", kind="status")
    assert _deliver(game.app, oid) == "skipped"
    assert "bounced" in (_row(game.app, oid).last_error or "")
    assert len(smtp.received) == sent
    # The sign-in link he asks for still goes out.
    client.post("/signin", data={"email": BOB}).close()  # the link is issued once the answer is sent
    with session_scope(game.app) as s:
        login = s.scalars(select(Outbox).where(Outbox.kind == "login")).one()
        assert login.status == "sent"
    assert smtp.received[-1].recipients == [BOB]
    # "Your games", signed in with that link, says so too.
    link = re.search(r"https?://\S+/signin/\S+", smtp.received[-1].message.get_body(("plain",)).get_content())
    assert link is not None
    client.post(link.group(0).replace("http://dicepost.test", ""))
    mine = client.get("/me").get_data(as_text=True)
    assert 'id="mail-failing"' in mine


def test_giving_an_address_again_clears_it_and_mail_flows(game, smtp):
    _oid, got = _mail_bob(game, smtp)
    game.send(_bounce_of("exim.eml", got))
    client = game.app.test_client()
    auth = {"Authorization": f"Bearer {game.tokens['bob']}"}
    bad = client.put(f"/api/games/{game.id}/settings", json={"email": "not an address"}, headers=auth)
    assert bad.status_code == 422 and "email" in bad.json["error"]
    r = client.put(f"/api/games/{game.id}/settings", json={"email": "bob@new.example"}, headers=auth)
    assert r.status_code == 200, r.json
    assert (r.json["email"], r.json["mail_failing"]) == ("bob@new.example", None)
    with session_scope(game.app) as s:
        assert s.scalars(select(Seat.email).where(Seat.game_id == game.id, Seat.name == "bob")).one() \
            == "bob@new.example"
    assert _failing(game) is not None  # the old address still bounces; it is just not bob's now
    _oid, again = _mail_bob(game, smtp)
    assert again.recipients == ["bob@new.example"]
