"""Inbound mail read within bounded work (SQLite and PostgreSQL).

Before: a mail of multipart parts nested 1,000 deep (54 KB) was a 500 from the webhook and
`dicepost mail-ingest` exited 1 with a traceback (the parser's recursion); 40,000 parts took
~20 s to read and 60,000 TOKEN lines (1.6 MB) 74 s, each token compared with every other
and checked against the database. Now a mail of more than 200 MIME parts is refused unread
(413; mail-ingest exits 65 saying why), and at most 20 TOKEN lines of a mail are looked at.
"""

from __future__ import annotations

import os
import secrets
import subprocess

from service.inbound.reply_text import MAX_TOKENS, quoted_tokens, written
from tests.conftest import ROOT, dicepost_command
from tests.mail.conftest import MailGame
from tests.mail.test_inbound import _current_orders, _mail

SECRET = "hook-secret-123"


def nested(depth: int) -> bytes:
    head = "From: eve@example.org\r\nTo: play@dicepost.localhost\r\nSubject: deep\r\nMIME-Version: 1.0\r\n"
    opening = "".join(f"Content-Type: multipart/mixed; boundary=b{i}\r\n\r\n--b{i}\r\n" for i in range(depth))
    closing = "".join(f"\r\n--b{i}--\r\n" for i in reversed(range(depth)))
    return (head + opening + "Content-Type: text/plain\r\n\r\nhello" + closing).encode()


def test_a_mail_nested_1000_deep_is_refused_unread_by_every_way_in(db_mail_game: MailGame) -> None:
    app = db_mail_game.app
    app.config["INBOUND_SECRET"] = SECRET
    raw = nested(1000)
    r = app.test_client().post("/api/inbound/email", data=raw, headers={"X-Dicepost-Secret": SECRET})
    assert r.status_code == 413 and "200 MIME parts" in r.json["detail"], r.json
    env = {**os.environ, "DATABASE_URL": app.config["DATABASE_URL"], "SECRET_KEY": "test-secret",
           "DICEPOST_BASE_URL": "http://dicepost.test"}
    env.pop("REDIS_URL", None)
    run = subprocess.run([*dicepost_command(), "mail-ingest"], input=raw, env=env, cwd=ROOT,
                         capture_output=True, timeout=120)
    assert run.returncode == 65, run.stderr.decode()[-2000:]  # EX_DATAERR: the MTA bounces it, saying why
    assert b"200 MIME parts" in run.stderr and b"Traceback" not in run.stderr  # said on stderr, for the MTA
    # an ordinary reply still goes through
    ok = app.test_client().post("/api/inbound/email", data=_mail(db_mail_game.reply_to("alice"), "pass"),
                                headers={"X-Dicepost-Secret": SECRET})
    assert ok.status_code == 200 and _current_orders(db_mail_game, "alice") == "pass"


def test_sixty_thousand_token_lines_are_not_each_looked_at(db_mail_game: MailGame) -> None:
    lines = [f"TOKEN {secrets.token_hex(12)}" for _ in range(60_000)]
    text = "pass\n" + "\n".join(lines)
    assert len(quoted_tokens(text)) == MAX_TOKENS == 20
    assert quoted_tokens(text)[-1] == lines[-1].split()[1]  # the last ones: a footer ends our mail
    assert len(written(text)[1]) == MAX_TOKENS
    raw = _mail(db_mail_game.reply_to("alice"), text)
    assert 1_500_000 < len(raw) < 2 * 1024 * 1024
    outcome = db_mail_game.send(raw)
    assert outcome.status == "processed", outcome  # the plus-address still names alice
