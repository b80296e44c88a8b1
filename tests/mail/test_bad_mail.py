"""Mail that cannot be taken is answered with the reason; nothing in an answer quotes SQL.

An order mail with a NUL byte was dropped on PostgreSQL with no answer (the orders' INSERT
failed and the mail was kept as failed) and the webhook answered with the SQL statement.
"""

from __future__ import annotations

from sqlalchemy import func, select

from service.db import session_scope
from service.models import InboundMail, Outbox, StoredMail, Submission
from tests.mail.mail_world import text_of

SECRET = "bad-mail-secret"
LEAKS = ("SELECT", "INSERT", "UPDATE", "psycopg", "sqlite3", "[SQL", "Traceback")


def _mail(to: str, body: bytes, sender: str = "alice@example.org", mid: str = "<bad1@client.example.org>") -> bytes:
    head = (f"From: {sender}\r\nTo: {to}\r\nSubject: Re: orders\r\nMessage-ID: {mid}\r\n"
            "Content-Type: text/plain; charset=utf-8\r\n\r\n").encode()
    return head + body


def test_order_mail_with_a_nul_byte_is_answered_with_the_reason(db_mail_game):
    game = db_mail_game
    game.app.config["INBOUND_SECRET"] = SECRET
    raw = _mail(game.reply_to("alice"), b"A1 move c\x003\r\n")
    r = game.app.test_client().post("/api/inbound/email", data=raw, content_type="message/rfc822",
                                    headers={"X-Dicepost-Secret": SECRET})
    assert r.status_code == 200, r.get_data(as_text=True)
    assert r.json["status"] == "refused" and "NUL" in r.json["detail"], r.json
    assert not any(leak in r.get_data(as_text=True) for leak in LEAKS), r.json
    answer = game.players["alice"].latest("Status")
    assert "could not be taken" in text_of(answer) and "NUL" in text_of(answer)
    with session_scope(game.app) as s:
        assert s.scalar(select(func.count()).select_from(Submission)) == 0
        assert s.scalars(select(InboundMail.status)).one() == "refused"


def test_a_mail_that_breaks_processing_answers_the_webhook_without_the_error(db_mail_game, monkeypatch):
    from service.inbound import receive as inbound

    def boom(*_a, **_k):
        raise RuntimeError('(psycopg.errors.Bad) INSERT INTO submissions VALUES ("\x00")')

    monkeypatch.setattr(inbound, "perform", boom)
    game = db_mail_game
    game.app.config["INBOUND_SECRET"] = SECRET
    r = game.app.test_client().post("/api/inbound/email", data=_mail(game.reply_to("alice"), b"pass\r\n"),
                                    headers={"X-Dicepost-Secret": SECRET})
    assert r.status_code == 200 and r.json["status"] == "failed", r.json
    assert not any(leak in r.get_data(as_text=True) for leak in LEAKS), r.json
    with session_scope(game.app) as s:  # the operator still has the error, in storable text
        assert "INSERT INTO submissions" in s.scalars(select(InboundMail.result)).one()


def test_refusals_are_counted_per_address_whatever_its_letter_case(db_mail_game):
    """3 refusals an hour to one mailbox, however its address is written."""
    game = db_mail_game
    variants = ["mallory@evil.example", "Mallory@evil.example", "MALLORY@EVIL.EXAMPLE",
                "mallory@Evil.Example", "mAllory@evil.example", "MaLLoRy@evil.example"]
    for i, sender in enumerate(variants):
        out = game.send(_mail("dicepost@dicepost.localhost", b"pass\r\n", sender=sender, mid=f"<v{i}@evil>"))
        assert out.status == "refused", out
    with session_scope(game.app) as s:
        refusals = list(s.scalars(select(Outbox.to_address).where(Outbox.kind == "refusal")))
        kept = s.scalar(select(func.count()).select_from(StoredMail)
                        .where(func.lower(StoredMail.to) == "mallory@evil.example"))
    assert refusals == ["mallory@evil.example"] * 3
    assert kept == 3
