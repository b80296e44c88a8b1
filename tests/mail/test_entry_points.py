"""The three ways in share one path: webhook, `dicepost mail-ingest`; and no-login mail settings."""

from __future__ import annotations

import base64
import os
import subprocess

from service.mail.tokens import make_token
from tests.conftest import ROOT, dicepost_command, loopback_client
from tests.mail.test_inbound import _current_orders, _mail

SECRET = "hook-secret-123"


def test_webhook_needs_the_shared_secret(mail_game):
    app, client = mail_game.app, mail_game.app.test_client()
    raw = _mail(mail_game.reply_to("alice"), "pass")
    assert client.post("/api/inbound/email", data=raw).status_code == 404  # off without INBOUND_SECRET
    app.config["INBOUND_SECRET"] = SECRET
    assert client.post("/api/inbound/email", data=raw).status_code == 401
    wrong = client.post("/api/inbound/email", data=raw, headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 401
    assert _current_orders(mail_game, "alice") is None
    ok = client.post("/api/inbound/email", data=raw, content_type="message/rfc822",
                     headers={"Authorization": f"Bearer {SECRET}"})
    assert ok.status_code == 200 and ok.json["status"] == "processed", ok.json
    assert _current_orders(mail_game, "alice") == "pass"
    again = client.post("/api/inbound/email", data=raw, headers={"X-Dicepost-Secret": SECRET})
    assert again.json["status"] == "duplicate"


def test_webhook_form_fields_and_basic_auth(mail_game):
    mail_game.app.config["INBOUND_SECRET"] = SECRET
    client = mail_game.app.test_client()
    basic = base64.b64encode(f"provider:{SECRET}".encode()).decode()
    raw = _mail(mail_game.reply_to("bob"), "pass", sender="bob@example.org", mid="<form@c>")
    r = client.post("/api/inbound/email", data={"email": raw.decode()},
                    headers={"Authorization": f"Basic {basic}"})
    assert r.status_code == 200 and r.json["status"] == "processed", r.json
    assert _current_orders(mail_game, "bob") == "pass"
    empty = client.post("/api/inbound/email", data={"other": "x"}, headers={"X-Dicepost-Secret": SECRET})
    assert empty.status_code == 400


def test_webhook_takes_mail_larger_than_the_apps_form_limit(mail_game):
    mail_game.app.config["INBOUND_SECRET"] = SECRET
    big = _mail(mail_game.reply_to("alice"), "pass\n" + "# padding\n" * 20_000, mid="<big@c>")
    assert len(big) > mail_game.app.config["MAX_CONTENT_LENGTH"]
    r = mail_game.app.test_client().post("/api/inbound/email", data=big, headers={"X-Dicepost-Secret": SECRET})
    assert r.status_code == 200 and r.json["status"] == "processed", r.json


def test_mail_ingest_command_reads_stdin(mail_game, tmp_path):
    db = mail_game.app.config["DATABASE_URL"]
    env = {**os.environ, "DATABASE_URL": db, "SECRET_KEY": "test-secret", "DICEPOST_BASE_URL": "http://dicepost.test"}
    env.pop("REDIS_URL", None)
    raw = _mail(mail_game.reply_to("alice"), "pass", mid="<cli@c>")
    run = subprocess.run([*dicepost_command(), "mail-ingest"], input=raw, env=env, cwd=ROOT,
                         capture_output=True, timeout=120)
    assert run.returncode == 0, run.stderr.decode()[-2000:]
    assert b'"status": "processed"' in run.stdout
    assert _current_orders(mail_game, "alice") == "pass"
    empty = subprocess.run([*dicepost_command(), "mail-ingest"], input=b"", env=env, cwd=ROOT,
                           capture_output=True, timeout=120)
    assert empty.returncode == 65


def _unsubscribe_token(game, name: str) -> str:
    seat = game.seat(name)
    return make_token("test-secret", "unsubscribe", seat.id, seat.reply_token_salt)


def test_unsubscribe_link_works_without_logging_in(mail_game):
    client = mail_game.app.test_client()
    token = _unsubscribe_token(mail_game, "alice")
    page = client.get(f"/mail/unsubscribe/{token}")
    assert page.status_code == 200 and b"Unsubscribe" in page.data
    assert mail_game.seat("alice").mail_pref == "all"  # a GET (a link scanner) changes nothing
    done = client.post(f"/mail/unsubscribe/{token}", data={"List-Unsubscribe": "One-Click"})
    assert done.status_code == 200 and b"no more mail of this game" in done.data
    assert mail_game.seat("alice").mail_pref == "none"


def test_preferences_page(mail_game):
    client = mail_game.app.test_client()
    token = _unsubscribe_token(mail_game, "bob")
    assert b'value="all" checked' in client.get(f"/mail/preferences/{token}").data
    r = client.post(f"/mail/preferences/{token}", data={"mail_pref": "results"})
    assert r.status_code == 303 and mail_game.seat("bob").mail_pref == "results"
    shown = client.get(r.headers["Location"]).data
    assert b"Saved: " in shown and b'value="results" checked' in shown
    assert client.post(f"/mail/preferences/{token}", data={"mail_pref": "sometimes"}).status_code == 400
    reply_token = mail_game.reply_to("bob").split("+")[1].split("@")[0]
    for bad in (reply_token, token[:-1] + ("a" if token[-1] != "a" else "b"), "1.aaaaaaaaaaaaaaaa", "x"):
        assert client.get(f"/mail/preferences/{bad}").status_code == 404
    assert mail_game.seat("bob").mail_pref == "results"


def test_the_unsubscribe_link_in_a_mail_is_the_one_that_works(mail_game):
    msg = mail_game.start_mail("alice")
    url = str(msg["List-Unsubscribe"]).split(">")[0].lstrip("<")
    path = url.replace("http://dicepost.test", "")
    assert mail_game.app.test_client().post(path).status_code == 200
    assert mail_game.seat("alice").mail_pref == "none"


def test_embedded_mailbox_shows_both_parts_and_replies_through_the_inbound_path(mail_game):
    from sqlalchemy import select

    from service.db import session_scope
    from service.models import StoredMail

    with session_scope(mail_game.app) as s:
        mail_id = s.scalars(select(StoredMail.id).where(StoredMail.to == "alice@example.org",
                                                        StoredMail.subject.like("%has started"))).one()
    from service.web.mailbox import mailbox_key

    client = loopback_client(mail_game.app)
    client.get(f"/mailbox?key={mailbox_key(mail_game.app)}")  # the link `dicepost run` prints
    page = client.get(f"/mailbox/{mail_id}")
    assert page.status_code == 200
    assert b"THE GRID" in page.data and b"<iframe sandbox" in page.data and b"srcdoc=\"&lt;!doctype html&gt;" in page.data
    assert b"=3D" not in page.data.split(b"<details>")[0]  # decoded, not quoted-printable
    sent = client.post(f"/mailbox/{mail_id}/reply", data={"body": "pass"})
    assert sent.status_code == 302 and "processed" in sent.headers["Location"]
    assert _current_orders(mail_game, "alice") == "pass"
    mail_game.app.config["EMBEDDED"] = False
    assert client.post(f"/mailbox/{mail_id}/reply", data={"body": "pass"}).status_code == 404
