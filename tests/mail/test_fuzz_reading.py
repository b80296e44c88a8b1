"""Any bytes at all can arrive by mail: reading them never raises, and the webhook answers
them clearly on SQLite and on PostgreSQL."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.inbound.body import body_text, parse_message
from service.inbound.commands import read_reply
from service.inbound.html_text import html_to_text
from service.inbound.identify import candidate_tokens, sender_address
from service.inbound.receive import _robot, message_key
from service.mail.settings import mail_settings

HEADERS = st.sampled_from([
    b"Content-Type: text/plain; charset=", b"Content-Type: multipart/alternative; boundary=",
    b"Content-Type: text/html; charset=", b"Content-Transfer-Encoding: ", b"Message-ID: ",
    b"Subject: =?utf-8?b?", b"To: ", b"From: ", b"Content-Type: text/plain; format=flowed; delsp=",
])
PIECES = st.one_of(st.binary(max_size=60), HEADERS, st.sampled_from([
    b"\r\n", b"\n", b"--", b"base64", b"quoted-printable", b"iso-8859-1", b"x-unknown", b"utf-8",
    b"<html><blockquote>", b"</div>", b"=E9", b"=\r\n", b"> ", b"-- \r\n", b"TOKEN ", b"yes",
]))


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(PIECES, max_size=40))
def test_any_message_reads_without_raising(pieces):
    raw = b"".join(pieces)
    msg = parse_message(raw)
    reply = read_reply(body_text(msg), str(msg.get("Subject") or ""))
    assert reply.command in ("orders", "status", "clear", "help", "join", "unsubscribe", "empty")
    assert message_key(msg, raw)
    settings = mail_settings({"SECRET_KEY": "k"})
    _robot(msg, settings)
    sender_address(msg)
    assert isinstance(candidate_tokens(msg, reply.tokens, settings), list)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("<>/=\"' abcdivpbrquoteblockscript&;#x1\n")), max_size=200))
def test_any_html_converts(html):
    assert isinstance(html_to_text(html), str)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(st.lists(PIECES, min_size=1, max_size=30))
def test_any_message_through_the_webhook_is_kept_and_answered_clearly(db_mail_game, pieces):
    from sqlalchemy import func, select

    from service.db import session_scope
    from service.models import InboundMail

    db_mail_game.app.config["INBOUND_SECRET"] = "s"
    raw = b"".join(pieces)
    r = db_mail_game.app.test_client().post("/api/inbound/email", data=raw, headers={"X-Dicepost-Secret": "s"})
    if not raw.strip():
        assert r.status_code == 400
        return
    assert r.status_code == 200, r.data
    assert r.json["status"] in ("processed", "refused", "ignored", "duplicate"), r.json
    with session_scope(db_mail_game.app) as s:
        kept = s.scalar(select(func.count()).select_from(InboundMail).where(InboundMail.raw == raw))
    # A duplicate is a message whose Message-ID was seen before: the first one is the one kept.
    assert kept == 1 or r.json["status"] == "duplicate"
    assert r.json["status"] == "duplicate" or r.json["inbound_id"] is not None
