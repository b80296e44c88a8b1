"""Forged bounces (SQLite and PostgreSQL).

Before: a bounce without our signed return path was matched by the Message-ID it quoted,
and a reminder's Message-ID was `<game.reminder.round@domain>`: public parts. Two forged
delivery reports marked a player's address failing, stopped their mail in every game and
told the opponent "mail to bob bounces". Now a Message-ID carries a MAC under SECRET_KEY,
and without the return path only a delivery report (multipart/report) quoting such an id
counts.
"""

from __future__ import annotations

from flask import Flask
from sqlalchemy import func, select

from service.db import session_scope
from service.mail.outbox import ours
from service.models import FailingAddress, MailBounce, Outbox
from tests.mail.conftest import start_game
from tests.mail.smtp_server import SmtpServer
from tests.mail.test_bounces import BOB, _bounce_of, mail_bob_as_the_service

_sent = iter(range(1, 100))


def _distinct(raw: bytes) -> bytes:
    """The report with a Message-ID of its own (the fixtures' reports have none)."""
    return f"Message-ID: <report-{next(_sent)}@mx.example.org>\r\n".encode() + raw


def _bounces(app: Flask) -> tuple[int, int, int]:
    with session_scope(app) as s, s.begin():
        return (int(s.scalar(select(func.count()).select_from(MailBounce)) or 0),
                int(s.scalar(select(func.count()).select_from(FailingAddress)) or 0),
                int(s.scalar(select(func.count()).select_from(Outbox).where(Outbox.kind == "unreachable")) or 0))


def test_forged_bounces_without_our_return_path_name_nobody(app: Flask) -> None:
    with SmtpServer() as smtp:
        game = start_game(app)
        app.config["SMTP_URL"] = f"smtp://127.0.0.1:{smtp.port}"
        _oid, got = mail_bob_as_the_service(app, game, smtp)
        real = str(got.message["Message-ID"])
        stem, domain = real.strip("<>").split("@")
        assert ours(app.config["SECRET_KEY"], real) and not ours("another key", real)
        guessable = f"<{stem.rsplit('.', 1)[0]}@{domain}>"  # what the probe built from the API's figures
        plain = "dicepost@dicepost.localhost"  # not the signed return path
        for n, fixture in enumerate(("postfix.eml", "outlook.eml"), start=10):
            outcome = game.send(_distinct(_bounce_of(fixture, got, to=plain, msgid=guessable, n=str(n))))
            assert (outcome.status, outcome.detail) == ("ignored", f"a bounce ({'5.1.1' if fixture == 'postfix.eml' else '5.1.10'}) for no mail of ours"), outcome
        # A plain bounce (no delivery report) quoting even the real id names nobody either.
        outcome = game.send(_distinct(_bounce_of("exim.eml", got, to=plain, n="12")))
        assert outcome.detail.endswith("for no mail of ours"), outcome
        assert _bounces(app) == (0, 0, 0)
        # The real delivery report, quoting the real id, still finds bob's mail.
        outcome = game.send(_distinct(_bounce_of("postfix.eml", got, to=plain, n="2")))
        assert outcome.detail.startswith("hard bounce 5.1.1 for bob"), outcome
        assert _bounces(app)[:2] == (1, 1)
        with session_scope(app) as s, s.begin():
            assert s.get(FailingAddress, BOB) is not None
