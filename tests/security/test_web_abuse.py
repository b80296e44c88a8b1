"""Abuse of the web and API surfaces: CSRF, XSS, header injection, oversized and deeply
nested bodies, path traversal. Each refused request is answered cleanly (4xx, never 5xx)
and changes nothing.

Covered elsewhere and not repeated here: CR/LF in names and titles never reaching mail
headers (tests/mail/test_outbox.py, tests/mail/test_tokens_headers.py), order text larger
than the engine takes but within the body limit (tests/service/test_api_orders.py),
a webhook mail larger than the form limit (tests/mail/test_entry_points.py).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from service import create_app
from service.inbound.web import MAX_RAW_BYTES
from tests.conftest import base_config, loopback_client, migrated_sqlite
from tests.mail.mail_world import html_of, stored_mail
from tests.service.play import counts, create, start

HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>'
RAW_MARKERS = ('<script>alert("x")', "<img src=x onerror")
CAPABILITY_FORMS = {"mail.preferences", "mail.unsubscribe",  # secret token in the URL, one-click from mail
                    "web.follow_stop",
                    # a browser's push endpoint (a secret its push service made) in the body: the
                    # notification's "Turn off" button posts it with no page and no CSRF token
                    "web.push_unsubscribe", "web.push_state"}


def _raw_hostile(text: str) -> bool:
    return any(m.lower() in text.lower() for m in RAW_MARKERS)


@pytest.fixture
def csrf_app(tmp_path: Path) -> Flask:
    app = create_app(base_config(migrated_sqlite(tmp_path / "csrf.sqlite3"), WTF_CSRF_ENABLED=True))
    return app


def _fill(rule: Any, values: dict[str, str]) -> str:
    url = rule.rule
    for arg in rule.arguments:
        url = re.sub(rf"<(?:\w+:)?{arg}>", values.get(arg, "1"), url)  # any other id: 1
    return url


def test_every_form_needs_the_csrf_token(csrf_app: Flask) -> None:
    client = csrf_app.test_client()
    table = start(client)
    fresh = create(client)
    values = {"game_id": table.id, "invite": fresh.created["seats"][0]["invite_token"],
              "token": table.tokens["alice"], "action": "pause", "mail_id": "1", "number": "1"}
    gm_values = {**values, "token": table.created["gm_token"]}
    checked = set()
    for rule in csrf_app.url_map.iter_rules():
        if "POST" not in rule.methods or rule.rule.startswith("/api/") or rule.endpoint in CAPABILITY_FORMS:
            continue
        url = _fill(rule, gm_values if rule.endpoint.startswith("gm.") else values)
        before = counts(csrf_app)
        r = client.post(url, data={"orders": "pass", "round": "1", "ruleset": "universal", "seats": "a\nb"})
        assert r.status_code == 400 and b"CSRF" in r.data, (rule.rule, r.status_code)
        assert counts(csrf_app) == before, rule.rule
        checked.add(rule.endpoint)
    assert {"web.create", "web.join", "web.player", "gm.act", "gm.takeover"} <= checked, checked


def test_every_rendered_form_carries_the_csrf_token(csrf_app: Flask) -> None:
    client = csrf_app.test_client()
    table = start(client)
    fresh = create(client)
    pages = ["/", f"/games/{fresh.id}/join/{fresh.created['seats'][0]['invite_token']}",
             f"/games/{table.id}/player/{table.tokens['alice']}",
             f"/games/{table.id}/player/{table.tokens['alice']}/schedule",
             f"/games/{table.id}/gm/{table.created['gm_token']}"]
    forms = 0
    for page in pages:
        html = client.get(page).get_data(as_text=True)
        for form in re.findall(r"<form\b[^>]*>.*?</form>", html, re.S | re.I):
            if re.search(r'method="?post', form, re.I):
                forms += 1
                assert 'name="csrf_token"' in form, (page, form[:200])
    assert forms >= 4


def test_capability_forms_need_their_secret(csrf_app: Flask) -> None:
    """Preferences and one-click unsubscribe are CSRF-exempt (mail clients post them): the
    unguessable token in the URL is what a forger lacks; a wrong one changes nothing."""
    client = csrf_app.test_client()
    start(client)
    before = counts(csrf_app)
    for path in ("/mail/preferences/forged", "/mail/unsubscribe/forged"):
        r = client.post(path, data={"mail_pref": "none", "List-Unsubscribe": "One-Click"})
        assert r.status_code == 404, path
    assert counts(csrf_app) == before


def _pages_of(client: Any, table: Any) -> dict[str, str]:
    paths = ["/", f"/games/{table.id}", f"/games/{table.id}/rounds/1",
             f"/games/{table.id}/player/{table.tokens['alice']}",
             f"/games/{table.id}/gm/{table.created['gm_token']}", "/mailbox"]
    return {p: client.get(p).get_data(as_text=True) for p in paths}


def test_xss_through_titles_names_orders_and_mail(sqlite_app: Flask) -> None:
    from service.web.mailbox import mailbox_key

    client = loopback_client(sqlite_app)
    assert client.get(f"/mailbox?key={mailbox_key(sqlite_app)}").status_code == 302  # its pages are checked too
    r = client.post("/api/games", json={"ruleset": "universal", "title": "x",
                                        "seats": [{"name": HOSTILE}, {"name": "bob"}]})
    assert r.status_code == 422 and r.content_type == "application/json"  # names are identifiers
    r = client.post("/api/games", json={"ruleset": "universal", "title": "x",
                                        "seats": [{"name": "alice", "email": f"{HOSTILE}@example.org"}, {"name": "bob"}]})
    assert r.status_code == 422
    table = start(client, title=HOSTILE)
    player = f"/games/{table.id}/player/{table.tokens['alice']}"
    # Order text: a refused line is shown back with its error; an accepted one keeps its comment.
    refused = client.post(player, data={"round": "1", "free": f"pass\n{HOSTILE}"})
    assert refused.status_code == 422
    assert not _raw_hostile(refused.get_data(as_text=True)) and "&lt;script&gt;" in refused.get_data(as_text=True)
    assert client.post(player, data={"round": "1", "free": f"pass # {HOSTILE}"}).status_code == 303
    assert table.put("bob", "pass").status_code == 200
    for path, html in _pages_of(client, table).items():
        assert not _raw_hostile(html), path
    seen = [p for p, html in _pages_of(client, table).items() if "&lt;script&gt;" in html]
    assert len(seen) >= 3, seen  # the title (and the order text) are shown, escaped
    mails = stored_mail(sqlite_app)()
    assert mails
    for msg in mails:
        assert not _raw_hostile(html_of(msg)), msg["Subject"]
    for mail_id in range(1, len(mails) + 1):
        assert not _raw_hostile(client.get(f"/mailbox/{mail_id}").get_data(as_text=True))


def test_xss_through_an_email_body(sqlite_app: Flask) -> None:
    from tests.mail.conftest import start_game

    game = start_game(sqlite_app)
    alice = game.players["alice"]
    alice.reply(game.start_mail("alice"), f"{HOSTILE}\nmove nowhere {HOSTILE}")
    answer = alice.inbox()[-1]
    assert "&lt;script&gt;" in html_of(answer) and not _raw_hostile(html_of(answer))


def test_no_response_header_injection(client: Any) -> None:
    for path in ("/games/x%0d%0aSet-Cookie:%20evil=1", "/games/x%0aLocation:%20http://evil.example/",
                 "/api/games/x%0d%0aX-Evil:%201"):
        r = client.get(path)
        assert r.status_code == 404
        assert "evil" not in str(r.headers).lower()


def test_oversized_bodies(sqlite_app: Flask) -> None:
    client = sqlite_app.test_client()
    table = start(client)
    before = counts(sqlite_app)
    big = "x" * (sqlite_app.config["MAX_CONTENT_LENGTH"] + 1)
    r = client.post("/api/games", data='{"title":"' + big + '"}', content_type="application/json")
    assert r.status_code == 413 and "larger than" in r.json["error"]
    r = table.client.put(f"/api/games/{table.id}/orders", headers=table.auth("alice"),
                         json={"round": 1, "orders": big})
    assert r.status_code == 413
    r = client.post(f"/games/{table.id}/player/{table.tokens['alice']}", data={"round": "1", "free": big})
    assert r.status_code == 413
    sqlite_app.config["INBOUND_SECRET"] = "s3cret"
    r = client.post("/api/inbound/email", data=b"From: a@b\r\n\r\n" + b"x" * (MAX_RAW_BYTES + 128 * 1024),
                    headers={"X-Dicepost-Secret": "s3cret"}, content_type="message/rfc822")
    assert r.status_code == 413
    assert counts(sqlite_app) == before


@pytest.mark.parametrize("depth", [100, 1000, 20000])
def test_deeply_nested_json_is_a_clear_400(sqlite_app: Flask, depth: int) -> None:
    client = sqlite_app.test_client()
    sqlite_app.config["PROPAGATE_EXCEPTIONS"] = False  # a crash would be a 500 here, not a traceback
    table = start(client)
    before = counts(sqlite_app)
    nested_list = "[" * depth + "]" * depth
    nested_obj = '{"a":' * depth + "1" + "}" * depth
    gm = {"Authorization": f"Bearer {table.created['gm_token']}"}
    requests = [
        ("POST", "/api/games", nested_list, {}),
        ("POST", "/api/games", '{"ruleset":"universal","seats":[{"name":"a"},{"name":"b"}],"options":'
         + nested_obj + "}", {}),
        ("PUT", f"/api/games/{table.id}/orders", '{"round":1,"orders":' + nested_list + "}", table.auth("alice")),
        ("PUT", f"/api/games/{table.id}/gm/policy", nested_obj, gm),
        ("PUT", f"/api/games/{table.id}/settings", nested_obj, table.auth("alice")),
    ]
    for method, path, body, headers in requests:
        r = client.open(path, method=method, data=body, content_type="application/json", headers=headers)
        assert 400 <= r.status_code < 500, (path, depth, r.status_code)
        assert r.is_json and r.json["error"], (path, r.data[:200])
        if depth > 64 and r.status_code == 400:
            assert "nests deeper" in r.json["error"] or "larger than" in r.json["error"], r.json
    assert counts(sqlite_app) == before


@pytest.mark.parametrize("depth", [1000, 5000])
def test_deeply_nested_json_in_form_fields(sqlite_app: Flask, depth: int) -> None:
    """JSON typed into forms (options, a force, the GM's policy): refused by field, not a crash."""
    sqlite_app.config["PROPAGATE_EXCEPTIONS"] = False
    client = sqlite_app.test_client()
    table = start(client)
    fresh = create(client)
    before = counts(sqlite_app)
    nested = "[" * depth + "]" * depth
    posts = [("/games", {"ruleset": "universal", "seats": "a\nb", "options": f"width = {nested}"}),
             (f"/games/{fresh.id}/join/{fresh.created['seats'][0]['invite_token']}", {"force": nested}),
             (f"/games/{table.id}/gm/{table.created['gm_token']}/policy", {"policy": nested})]
    for path, form in posts:
        r = client.post(path, data=form, follow_redirects=True)  # the GM page flashes its errors
        assert r.status_code in (200, 422), (path, r.status_code)
        assert "nested deeper" in r.get_data(as_text=True) or path == "/games", path  # an option: not a number
        assert path.endswith("/policy") or r.status_code == 422
    assert counts(sqlite_app) == before


TRAVERSALS = ["/static/../../etc/passwd", "/static/..%2f..%2f..%2fetc%2fpasswd", "/static/%2e%2e/%2e%2e/pyproject.toml",
              "/static/..\\..\\pyproject.toml", "/verify/../../../etc/passwd", "/verify/verifier.html/..%2f..%2fsecret_key",
              "/games/..%2f..%2fetc%2fpasswd", "/games/../../instance/secret_key", "/mailbox/..%2f..%2f1",
              "/api/games/..%2F..%2Fetc%2Fpasswd/record", "/mail/preferences/..%2f..%2fetc%2fpasswd",
              "/static//etc/passwd", "/static/%00../pyproject.toml"]


def test_path_traversal(sqlite_app: Flask) -> None:
    client = sqlite_app.test_client()
    """No route takes a file name but Flask's /static; none serves anything outside it."""
    file_routes = [r.rule for r in sqlite_app.url_map.iter_rules() if "filename" in r.arguments]
    assert file_routes == ["/static/<path:filename>"]
    secret = sqlite_app.config["SECRET_KEY"]
    for path in TRAVERSALS:
        r = client.get(path)
        assert r.status_code in (400, 404, 308), (path, r.status_code)
        body = r.get_data(as_text=True)
        assert "root:" not in body and "[build-system]" not in body and secret not in body, path
