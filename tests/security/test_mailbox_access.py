"""The embedded mailbox is the machine's own user's: loopback only, and only with its key.

Before, every visitor of an embedded default read every player's mail at /mailbox (their
invitation, sign-in and reply links) and could answer a mail as its player.
"""

from __future__ import annotations

import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import func, select
from werkzeug.middleware.proxy_fix import ProxyFix
from werkzeug.serving import make_server

from service import create_app
from service.db import session_scope
from service.models import StoredMail, Submission
from service.web.mailbox import COOKIE, mailbox_key, mailbox_link
from tests.conftest import base_config, loopback_client, migrated_sqlite
from tests.mail.conftest import start_game


def _link_path(app: Flask) -> str:
    link = mailbox_link(app)
    assert link is not None
    return link.split("://", 1)[1].split("/", 1)[1].join(["/", ""])


def _a_mail_id(app: Flask) -> int:
    with session_scope(app) as s:
        return int(s.scalar(select(func.min(StoredMail.id))) or 0)


def test_without_the_key_nothing_is_shown_or_answered(sqlite_app: Flask) -> None:
    game = start_game(sqlite_app)
    client = loopback_client(sqlite_app)
    mail_id = _a_mail_id(sqlite_app)
    assert client.get("/mailbox").status_code == 403
    assert client.get(f"/mailbox/{mail_id}").status_code == 403
    assert client.get("/mailbox/newest").status_code == 403
    assert client.get("/mailbox?key=" + "0" * 32).status_code == 403
    assert client.post(f"/mailbox/{mail_id}/reply", data={"body": "pass"}).status_code == 403
    page = client.get(f"/mailbox/{mail_id}").get_data(as_text=True)
    assert "dicepost run" in page and game.id not in page
    with session_scope(sqlite_app) as s:
        assert s.scalar(select(func.count()).select_from(Submission)) == 0


def test_the_printed_link_opens_it_and_the_key_moves_to_a_cookie(sqlite_app: Flask) -> None:
    start_game(sqlite_app)
    client = loopback_client(sqlite_app)
    opened = client.get(_link_path(sqlite_app))
    assert opened.status_code == 302 and opened.headers["Location"].endswith("/mailbox")
    cookie = client.get_cookie(COOKIE, domain="127.0.0.1", path="/mailbox")
    assert cookie is not None and cookie.value == mailbox_key(sqlite_app) and cookie.http_only
    assert client.get("/mailbox").status_code == 200
    assert client.get(f"/mailbox/{_a_mail_id(sqlite_app)}").status_code == 200
    with session_scope(sqlite_app) as s:
        newest = int(s.scalar(select(func.max(StoredMail.id))) or 0)
    assert newest > 0 and client.get("/mailbox/newest").json == {"newest": newest}


def test_a_client_that_is_not_loopback_is_refused_even_with_the_key(sqlite_app: Flask) -> None:
    start_game(sqlite_app)
    client = loopback_client(sqlite_app)
    remote = {"REMOTE_ADDR": "203.0.113.7"}
    assert client.get(_link_path(sqlite_app), environ_base=remote).status_code == 404
    assert client.get(f"/mailbox/{_a_mail_id(sqlite_app)}", environ_base=remote,
                      headers={"Cookie": f"{COOKIE}={mailbox_key(sqlite_app)}"}).status_code == 404


def test_a_forwarded_for_header_does_not_make_a_client_loopback(sqlite_app: Flask) -> None:
    sqlite_app.wsgi_app = ProxyFix(sqlite_app.wsgi_app, x_for=1)  # type: ignore[method-assign]
    client = loopback_client(sqlite_app)
    r = client.get(_link_path(sqlite_app), environ_base={"REMOTE_ADDR": "203.0.113.7"},
                   headers={"X-Forwarded-For": "127.0.0.1"})
    assert r.status_code == 404


def test_full_mode_has_no_mailbox(tmp_path: Path) -> None:
    full = create_app(base_config(f"sqlite:///{tmp_path}/full.sqlite3", REDIS_URL="redis://127.0.0.1:1/0"))
    assert mailbox_link(full) is None
    assert full.test_client().get("/mailbox?key=" + mailbox_key(full)).status_code == 404


def _get(url: str) -> int:
    """The status after redirects, keeping cookies like a browser."""
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
    try:
        with opener.open(url, timeout=10) as r:
            return int(r.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


@pytest.mark.parametrize("host, any_address, expected", [
    ("127.0.0.1", False, 200), ("0.0.0.0", False, 404), ("0.0.0.0", True, 200)])
def test_over_real_http_by_the_address_the_process_is_bound_to(tmp_path: Path, host: str,
                                                               any_address: bool, expected: int) -> None:
    """A server on 0.0.0.0 is reachable from anywhere: no mailbox there unless asked for."""
    from service.db import engine_of

    app: Any = create_app(base_config(migrated_sqlite(tmp_path / "m.sqlite3"), MAILBOX_ANY_ADDRESS=any_address))
    server = make_server(host, 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_port}"
        assert _get(base + "/mailbox") == (403 if expected == 200 else 404)
        assert _get(mailbox_link(app, base) or "") == expected
    finally:
        server.shutdown()
        thread.join(10)
        engine_of(app).dispose()
