"""DKIM: with a selector and key configured every mail is signed, and dkimpy's own verifier,
given the public key as the TXT record a receiver would look up, accepts it."""

from __future__ import annotations

import base64
import subprocess
from pathlib import Path

import dkim
import pytest
from sqlalchemy import select

from service import create_app
from service.db import session_scope
from service.mail.server_url import ConfigError
from service.models import StoredMail
from tests.conftest import base_config, sqlite_app_with
from tests.mail.conftest import start_game
from tests.mail.smtp_server import SmtpServer
from tests.mail.test_outbox import _deliver, _queue

DOMAIN = "dicepost.example"
SELECTOR = "dp2026"


@pytest.fixture(scope="module")
def key_pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes]:
    """A fresh 2048-bit key (openssl, as docs/mail.md tells an operator) and its TXT record."""
    folder = tmp_path_factory.mktemp("dkim")
    private = folder / "dkim.pem"
    subprocess.run(["openssl", "genrsa", "-out", str(private), "2048"], check=True, capture_output=True)
    der = subprocess.run(["openssl", "rsa", "-in", str(private), "-pubout", "-outform", "DER"],
                         check=True, capture_output=True).stdout
    return private, b"v=DKIM1; k=rsa; p=" + base64.b64encode(der)


def _dns(record: bytes):
    def lookup(name: bytes, timeout: int = 5) -> bytes | None:
        return record if name == f"{SELECTOR}._domainkey.{DOMAIN}.".encode() else None
    return lookup


@pytest.fixture
def signing_app(tmp_path, key_pair):
    yield from sqlite_app_with(tmp_path, MAIL_DOMAIN=DOMAIN, DKIM_SELECTOR=SELECTOR,
                               DKIM_KEY_FILE=str(key_pair[0]))


def test_every_mail_sent_over_smtp_verifies(signing_app, key_pair):
    game = start_game(signing_app, title="Ünïcode duel ⚔")
    with SmtpServer() as server:
        signing_app.config["SMTP_URL"] = f"smtp://127.0.0.1:{server.port}"
        for kind in ("status", "help"):
            assert _deliver(signing_app, _queue(signing_app, game.id, kind=kind)) == "sent"
    assert len(server.received) == 2
    for got in server.received:
        assert got.raw.startswith(b"DKIM-Signature:")
        sig = got.message["DKIM-Signature"]
        assert f"d={DOMAIN}" in sig and f"s={SELECTOR}" in sig
        assert dkim.verify(got.raw, dnsfunc=_dns(key_pair[1])), got.message["Subject"]
        # One changed header and the same verifier refuses it.
        assert not dkim.verify(got.raw.replace(b"\r\nSubject: ", b"\r\nSubject: Re: ", 1),
                               dnsfunc=_dns(key_pair[1]))


def test_mail_kept_in_the_embedded_mailbox_is_signed_too(signing_app, key_pair):
    start_game(signing_app)
    with session_scope(signing_app) as s:
        kept = [(m.subject, m.raw.encode("utf-8")) for m in s.scalars(select(StoredMail))]
    assert len(kept) >= 2
    for subject, raw in kept:
        assert dkim.verify(raw, dnsfunc=_dns(key_pair[1])), subject


def test_without_the_settings_nothing_is_signed(sqlite_app):
    game = start_game(sqlite_app)
    with SmtpServer() as server:
        sqlite_app.config["SMTP_URL"] = f"smtp://127.0.0.1:{server.port}"
        assert _deliver(sqlite_app, _queue(sqlite_app, game.id)) == "sent"
    assert server.received[0].message["DKIM-Signature"] is None


@pytest.mark.parametrize(("settings", "expected"), [
    ({"DKIM_SELECTOR": SELECTOR}, "DICEPOST_DKIM_SELECTOR is set but DICEPOST_DKIM_KEY_FILE is not"),
    ({"DKIM_KEY_FILE": "KEY"}, "DICEPOST_DKIM_KEY_FILE is set but DICEPOST_DKIM_SELECTOR is not"),
    ({"DKIM_SELECTOR": SELECTOR, "DKIM_KEY_FILE": "MISSING"}, "DICEPOST_DKIM_KEY_FILE="),
    ({"DKIM_SELECTOR": SELECTOR, "DKIM_KEY_FILE": "GARBAGE"}, "not a usable DKIM private key"),
    ({"DKIM_SELECTOR": "dp 2026", "DKIM_KEY_FILE": "KEY"}, "DICEPOST_DKIM_SELECTOR='dp 2026'"),
])
def test_a_bad_or_half_configuration_stops_the_start_with_one_line(tmp_path, key_pair, settings, expected):
    garbage = tmp_path / "garbage.pem"
    garbage.write_text("-----BEGIN RSA PRIVATE KEY-----\nbm90IGEga2V5\n-----END RSA PRIVATE KEY-----\n")
    files = {"KEY": str(key_pair[0]), "MISSING": str(tmp_path / "nope.pem"), "GARBAGE": str(garbage)}
    config = {k: files.get(v, v) for k, v in settings.items()}
    with pytest.raises(ConfigError) as err:
        create_app(base_config(f"sqlite:///{tmp_path}/x.sqlite3", MAIL_DOMAIN=DOMAIN, **config))
    message = str(err.value)
    assert expected in message and "\n" not in message
    if settings.get("DKIM_KEY_FILE") == "MISSING":
        assert "nope.pem" in message and "cannot read the key" in message


def test_the_settings_are_read_from_the_environment(tmp_path, key_pair):
    from service.config import from_env

    config = from_env(str(tmp_path), {"DICEPOST_DKIM_SELECTOR": SELECTOR,
                                      "DICEPOST_DKIM_KEY_FILE": str(key_pair[0]), "SECRET_KEY": "k"})
    assert (config["DKIM_SELECTOR"], config["DKIM_KEY_FILE"]) == (SELECTOR, str(key_pair[0]))
