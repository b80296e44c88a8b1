"""The IMAP poller against a real dovecot: mail is stored before the mailbox lets go of it."""

from __future__ import annotations

import pytest

from service.inbound.imap import parse_imap_url, poll_configured
from service.mail.server_url import ConfigError
from tests.mail import client_mails
from tests.mail.dovecot import Dovecot, dovecot_binary
from tests.mail.test_inbound import _current_orders, _mail

pytestmark = pytest.mark.skipif(dovecot_binary() is None, reason="dovecot-imapd is not installed")


@pytest.fixture
def dovecot():
    server = Dovecot().start()
    yield server
    server.stop()


def test_poll_takes_orders_and_empties_the_inbox(mail_game, dovecot):
    app = mail_game.app
    app.config["IMAP_URL"] = dovecot.url
    dovecot.append(client_mails.html_only(mail_game.reply_to("alice"), "pass", mid="<i1@c>"))
    dovecot.append(_mail(mail_game.reply_to("bob"), "pass", sender="bob@example.org", mid="<i2@c>"))
    dovecot.append(_mail("dicepost@dicepost.localhost", "pass", sender="x@evil.example", mid="<i3@c>"))
    with app.app_context():
        report = poll_configured()
    assert report is not None and report.fetched == 3
    assert report.statuses == {"processed": 2, "refused": 1}
    assert dovecot.count() == 0
    assert _current_orders(mail_game, "alice") is None  # both were in: round 1 is resolved
    assert mail_game.players["alice"].latest("Round 1 results")
    # The same message delivered again (a second copy in the mailbox) is a duplicate.
    dovecot.append(_mail(mail_game.reply_to("bob"), "pass", sender="bob@example.org", mid="<i2@c>"))
    with app.app_context():
        again = poll_configured()
    assert again is not None and again.statuses == {"duplicate": 1}


def test_keep_marks_read_instead_of_deleting(mail_game, dovecot):
    mail_game.app.config["IMAP_URL"] = dovecot.url.replace("/INBOX", "/INBOX?keep=1")
    dovecot.append(_mail(mail_game.reply_to("alice"), "STATUS", mid="<k1@c>"))
    with mail_game.app.app_context():
        first = poll_configured()
        second = poll_configured()
    assert first is not None and first.statuses == {"processed": 1}
    assert second is not None and second.fetched == 0  # read mail is not fetched again
    assert dovecot.count() == 1


def test_a_wrong_password_keeps_the_mail_on_the_server(mail_game, dovecot):
    mail_game.app.config["IMAP_URL"] = dovecot.url.replace("imap-secret", "wrong")
    dovecot.append(_mail(mail_game.reply_to("alice"), "pass", mid="<w1@c>"))
    with mail_game.app.app_context():
        assert poll_configured() is None
    assert dovecot.count() == 1


def test_imap_url_parsing():
    s = parse_imap_url("imaps://me%40x:p%2Fw@mail.example.org/Dice%20Post?timeout=5")
    assert (s.host, s.port, s.tls, s.username, s.password, s.path, s.timeout) == (
        "mail.example.org", 993, True, "me@x", "p/w", "Dice Post", 5.0)
    assert parse_imap_url("imap://u@h").port == 143
    for bad in ("pop3://u@h", "imap://h", "imaps://u@h?starttls=1"):
        with pytest.raises(ConfigError):
            parse_imap_url(bad)


def test_the_sweeper_polls_imap(mail_game, dovecot):
    from service.sweeper import sweep_and_ring

    mail_game.app.config["IMAP_URL"] = dovecot.url
    dovecot.append(_mail(mail_game.reply_to("alice"), "pass", mid="<sw@c>"))
    with mail_game.app.app_context():
        sweep_and_ring()
    assert dovecot.count() == 0
    assert _current_orders(mail_game, "alice") == "pass"


def test_mail_poll_command(mail_game, dovecot):
    import os
    import subprocess

    from tests.conftest import ROOT, dicepost_command

    dovecot.append(_mail(mail_game.reply_to("bob"), "pass", sender="bob@example.org", mid="<cmd@c>"))
    env = {**os.environ, "DATABASE_URL": mail_game.app.config["DATABASE_URL"], "SECRET_KEY": "test-secret",
           "IMAP_URL": dovecot.url}
    env.pop("REDIS_URL", None)
    run = subprocess.run([*dicepost_command(), "mail-poll"], env=env, cwd=ROOT, capture_output=True, timeout=120)
    assert run.returncode == 0, run.stderr.decode()[-2000:]
    assert b'"fetched": 1' in run.stdout and b'"processed": 1' in run.stdout
    assert _current_orders(mail_game, "bob") == "pass"
