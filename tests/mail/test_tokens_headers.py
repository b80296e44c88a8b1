"""Signed seat tokens and header hygiene."""

from __future__ import annotations

from email import policy
from email.headerregistry import Address
from email.parser import BytesParser

import pytest

from service.mail import mime
from service.mail.headers import (
    AddressError,
    clean_header_text,
    mailbox,
    message_id,
    plus_address,
    plus_tokens,
    standard_headers,
    thread_root,
)
from service.mail.tokens import TokenError, make_token, parse_token, verify_token

KEY = "k" * 32


def test_token_round_trip_and_purpose_separation():
    tok = make_token(KEY, "reply", 42, "salt-a")
    parsed = parse_token(tok)
    assert parsed.seat_id == "42"
    assert verify_token(KEY, "reply", parsed, "salt-a")
    assert not verify_token(KEY, "unsubscribe", parsed, "salt-a")
    assert not verify_token(KEY, "reply", parsed, "salt-b")  # a new salt revokes it
    assert not verify_token("other" * 8, "reply", parsed, "salt-a")
    assert make_token(KEY, "reply", 42, "salt-a") == tok  # stable


def test_token_survives_an_mta_that_changes_case():
    tok = make_token(KEY, "reply", 7, "s")
    assert verify_token(KEY, "reply", parse_token(tok.upper()), "s")


def test_forged_tokens_fail():
    tok = make_token(KEY, "reply", 7, "s")
    seat, mac = tok.split(".")
    other_seat = parse_token(f"8.{mac}")
    assert not verify_token(KEY, "reply", other_seat, "s")
    flipped = mac[:-1] + ("a" if mac[-1] != "a" else "b")
    assert not verify_token(KEY, "reply", parse_token(f"{seat}.{flipped}"), "s")
    for bad in ["", "7", "7.", "7.short", "7." + "1" * 16, "x y." + mac, "../7." + mac]:
        with pytest.raises(TokenError):
            parse_token(bad)


def test_plus_address_fits_rfc_5321_local_part():
    tok = make_token(KEY, "reply", 2**31, "s")
    addr = plus_address("play@dicepost.example", tok)
    assert len(addr.split("@")[0]) <= 64
    assert plus_tokens("play@dicepost.example", [f"Someone <{addr.upper()}>", "x+y@other.org"]) == [
        tok.upper()]


def test_clean_header_text_removes_every_line_break():
    evil = "Round 1\r\nBcc: victim@example.org\n\tX: y\u2028z\x00"
    clean = clean_header_text(evil)
    assert "\r" not in clean and "\n" not in clean and "\u2028" not in clean and "\x00" not in clean
    assert clean == "Round 1 Bcc: victim@example.org X: y z"
    assert len(clean_header_text("x" * 500, 50)) == 50


def test_message_ids_and_threading():
    assert message_id("<g1.results.ab12@dicepost.test>", "other.test") == "<g1.results.ab12@dicepost.test>"
    assert message_id("abc", "d.test") == "<abc@d.test>"
    assert thread_root("g1", 3, "d.test") == "<game-g1-seat-3@d.test>"
    with pytest.raises(AddressError):
        message_id("<\r\n>", "d.test")


def test_headers_with_hostile_names_stay_one_line_each():
    headers = standard_headers(
        sender=mailbox("dicepost\r\nBcc: x@evil.org", "play@dicepost.test"),
        to=mailbox("Eve\nBcc: all@evil.org", "eve@example.org"),
        subject="Round 2 of \"Dragons\r\nBcc: y@evil.org\"",
        msg_id="<g1.results.1@dicepost.test>",
        root="<game-g1-seat-1@dicepost.test>",
        reply_to="play+1.abc@dicepost.test",
        unsubscribe_url="https://dicepost.test/mail/unsubscribe/1.abc",
        date="Mon, 30 Nov 2026 00:00:00 +0000",
    )
    raw = mime.message(mime.header_block(headers), "hi", None, [], seed="<g1.results.1@dicepost.test>")
    back = BytesParser(policy=policy.default).parsebytes(raw)
    assert back.get_all("Bcc") is None
    assert back["Subject"] == 'Round 2 of "Dragons Bcc: y@evil.org"'
    assert back["To"].addresses[0].addr_spec == "eve@example.org"
    assert back["In-Reply-To"] == back["References"] == "<game-g1-seat-1@dicepost.test>"
    assert back["List-Unsubscribe"] == "<https://dicepost.test/mail/unsubscribe/1.abc>"
    assert back["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert back["Reply-To"].addresses[0].addr_spec == "play+1.abc@dicepost.test"


@pytest.mark.parametrize("addr", ["no-at", "a@b@c", "a b@c.d", "x@-bad", "a@b.c\r\nBcc: x@y.z"])
def test_bad_addresses(addr):
    with pytest.raises(AddressError):
        mailbox("x", addr)


def test_mailbox_is_an_address():
    assert isinstance(mailbox("A", "a@b.example"), Address)


def test_mail_domain_in_the_environment_is_the_domain_of_game_mail(tmp_path, monkeypatch):
    """MAIL_DOMAIN=games.example.org in the environment: a composed game mail's Message-ID,
    its thread and its sender all carry that domain, never the default."""
    from sqlalchemy import select

    from service.db import session_scope
    from service.models import Outbox
    from tests.conftest import sqlite_app_with
    from tests.mail.conftest import start_game

    for key in ("MAIL_FROM", "MAIL_REPLY_TO", "DICEPOST_MAIL_FROM", "DICEPOST_MAIL_REPLY_TO"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("MAIL_DOMAIN", "games.example.org")
    for app in sqlite_app_with(tmp_path):
        game = start_game(app)
        start = game.start_mail("alice")
        assert start["Message-ID"].endswith("@games.example.org>")
        assert start["From"].addresses[0].domain == "games.example.org"
        with session_scope(app) as s:
            ids = s.scalars(select(Outbox.message_id)).all()
        assert ids and all(i.endswith("@games.example.org>") for i in ids)
        assert "dicepost.localhost" not in start.as_string()
