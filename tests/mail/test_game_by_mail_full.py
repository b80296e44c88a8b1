"""A whole game played only through mail in full mode: PostgreSQL, Redis, a real worker
process that resolves rounds and sends every mail over SMTP (aiosmtpd), replies coming
back through the webhook (alice) and through IMAP from dovecot (bob)."""

from __future__ import annotations

from collections.abc import Iterator
from email.message import EmailMessage
from typing import Any

import pytest
from flask import Flask

from service import create_app
from service.db import engine_of
from service.inbound.imap import poll_configured
from tests.conftest import WorkerProcess, empty_tables, full_config, full_env, wait_for
from tests.mail.dovecot import Dovecot, dovecot_binary
from tests.mail.mail_world import MailPlayer, text_of
from tests.mail.smtp_server import SmtpServer
from tests.mail.test_game_by_mail_embedded import SEATS, bot, check_chain_in, create, game_row

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(dovecot_binary() is None, reason="dovecot-imapd is not installed")]
SECRET = "full-mode-hook"
MAIL_WAIT = 90.0  # seconds: a worker sends and dovecot delivers before a reply is read


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[SmtpServer, Dovecot]]:
    imap = Dovecot().start()
    with SmtpServer() as smtp:
        yield smtp, imap
    imap.stop()


@pytest.fixture(scope="module")
def mail_env(redis_env: dict[str, str]) -> dict[str, str]:
    # Queues of our own: a worker without SMTP_URL must never take these mails.
    return {**redis_env, "DICEPOST_QUEUE_PREFIX": redis_env["DICEPOST_QUEUE_PREFIX"] + "mail_",
            "DICEPOST_REDIS_PREFIX": redis_env["DICEPOST_REDIS_PREFIX"] + "mail:"}


@pytest.fixture(scope="module")
def mail_worker(pg_url: str, mail_env: dict[str, str], servers: Any,
                tmp_path_factory: pytest.TempPathFactory) -> Iterator[WorkerProcess]:
    smtp, _imap = servers
    env = {**full_env(pg_url, mail_env), "SMTP_URL": f"smtp://127.0.0.1:{smtp.port}",
           "DICEPOST_BASE_URL": "http://dicepost.test"}
    proc = WorkerProcess(env, tmp_path_factory.mktemp("mail-worker") / "worker.log")
    try:
        proc.wait_ready()
        yield proc
    finally:
        proc.stop()


@pytest.fixture
def full_app(pg_url: str, mail_env: dict[str, str], servers: Any, mail_worker: Any) -> Iterator[Flask]:
    smtp, imap = servers
    app = create_app(full_config(pg_url, mail_env, SMTP_URL=f"smtp://127.0.0.1:{smtp.port}",
                                 INBOUND_SECRET=SECRET, IMAP_URL=imap.url))
    assert not app.config["EMBEDDED"]
    empty_tables(app)
    yield app
    engine_of(app).dispose()


def test_whole_game_by_mail_full_mode(full_app, servers, mail_worker):
    smtp, imap = servers
    client = full_app.test_client()

    def read_all() -> list[EmailMessage]:
        return [m.message for m in list(smtp.received)]

    def by_webhook(raw: bytes) -> Any:
        r = client.post("/api/inbound/email", data=raw, headers={"Authorization": f"Bearer {SECRET}"})
        assert r.status_code == 200, r.data
        return r.json["status"]

    def by_imap(raw: bytes) -> Any:
        imap.append(raw)
        with full_app.app_context():
            report = poll_configured()
        assert report is not None and report.fetched == 1
        return next(iter(report.statuses))

    players = {"alice": MailPlayer("alice@example.org", read_all, by_webhook),
               "bob": MailPlayer("bob@example.org", read_all, by_imap)}
    game_id = create(full_app, max_rounds=4)
    for p in players.values():
        invitation = wait_for(lambda p=p: [m for m in p.inbox() if "Invitation" in str(m["Subject"])],
                              "the invitations", MAIL_WAIT)[-1]
        assert p.reply(invitation, "JOIN") == "processed"
    subject = "The game has started"
    rounds = 0
    while game_row(full_app, game_id).status != "finished":
        for name in SEATS:
            p = players[name]
            mail = wait_for(lambda p=p, s=subject: [m for m in p.inbox() if s in str(m["Subject"])],
                            f"{subject!r} for {name}", MAIL_WAIT)[-1]
            text = text_of(mail)
            check_chain_in(text)
            if "It needs your orders" in text:
                assert p.reply(mail, bot(full_app, game_id, name)) == "processed"
        rounds += 1
        subject = f"Round {rounds} results"
        wait_for(lambda s=subject: all(any(s in str(m["Subject"]) for m in p.inbox()) for p in players.values())
                 or game_row(full_app, game_id).status == "finished", f"{subject!r}", MAIL_WAIT)
    assert rounds >= 1
    for p in players.values():
        over = wait_for(lambda p=p: [m for m in p.inbox() if "Game over" in str(m["Subject"])], "game over",
                        MAIL_WAIT)
        assert "THE FINAL GRID" in text_of(over[-1])
    assert imap.count() == 0
    # Every mail went out once per row: no duplicates of any Message-ID.
    ids = [str(m["Message-ID"]) for m in read_all()]
    assert len(ids) == len(set(ids))
