"""The web's smaller holes (SQLite and PostgreSQL): sessions that outlive sign-out, text a
link puts on a page, framing and inline script, huge numbers in form JSON.
"""

from __future__ import annotations

import re

from flask import Flask
from flask.testing import FlaskClient

from tests.dashboard.test_signin import new_game, sign_in


def _copy_session(app: Flask, client: FlaskClient) -> FlaskClient:
    """Another browser holding a copy of the client's session cookie."""
    domain = app.config.get("SERVER_NAME") or "localhost"
    cookie = client.get_cookie("session", domain=domain)
    assert cookie is not None
    copied = app.test_client()
    copied.set_cookie("session", cookie.value, domain=domain)
    return copied


def test_signing_out_ends_every_copy_of_the_session(app: Flask) -> None:
    """Before: the session cookie held only the address, so a copy taken before sign-out
    (a shared computer, a stolen backup) stayed signed in for the cookie's lifetime."""
    client = app.test_client()
    new_game(client, [{"name": "red", "email": "red@example.org"}, {"name": "blue", "email": "blue@example.org"}])
    sign_in(app, client, "red@example.org")
    copied = _copy_session(app, client)
    assert copied.get("/me").status_code == 200
    assert client.post("/signout").status_code == 302
    assert client.get("/me").status_code == 302
    assert copied.get("/me").status_code == 302  # the copy is signed out too
    # a new sign-in is a new secret: the old copy stays out
    sign_in(app, client, "red@example.org")
    assert client.get("/me").status_code == 200 and copied.get("/me").status_code == 302


def test_the_games_page_says_only_what_was_saved_never_what_a_link_wrote(app: Flask) -> None:
    """Before: /me?saved=<text> showed the text as "Mail settings saved: <text>", so a
    link could make the page say anything (escaped, but in the service's voice)."""
    client = app.test_client()
    new_game(client, [{"name": "red", "email": "red@example.org"}, {"name": "blue", "email": "blue@example.org"}])
    sign_in(app, client, "red@example.org")
    page = client.get("/me?saved=your+account+is+suspended%2C+call+555-0100").get_data(as_text=True)
    assert "suspended" not in page and "Mail settings saved" not in page
    saved = client.post("/me/zone", data={"zone": "Europe/Paris"})
    assert saved.status_code == 302 and "saved" not in saved.headers["Location"]
    page = client.get(saved.headers["Location"]).get_data(as_text=True)
    assert "Mail settings saved: your time zone, Europe/Paris" in page
    assert "Mail settings saved" not in client.get("/me").get_data(as_text=True)  # said once


def test_every_page_forbids_framing_and_runs_only_its_own_scripts_and_styles(app: Flask) -> None:
    """Before: only /verify had a policy; any page could be framed (clickjacking the order
    form), and a script injected into one would have run."""
    client = app.test_client()
    game_id, tokens = new_game(client, [{"name": "red", "email": "red@example.org"},
                                        {"name": "blue", "email": "blue@example.org"}])
    paths = ["/", "/lobby", "/signin", "/rules", f"/games/{game_id}", f"/games/{game_id}/player/{tokens['red']}",
             f"/games/{game_id}/player/{tokens['red']}/schedule", "/games/new", "/no-such-page"]
    for path in paths:
        r = client.get(path)
        policy = r.headers.get("Content-Security-Policy", "")
        assert "frame-ancestors 'none'" in policy and r.headers["X-Frame-Options"] == "DENY", path
        if r.mimetype != "text/html" or r.status_code == 404:
            continue
        assert "script-src 'nonce-" in policy and "unsafe-inline" not in policy and "default-src 'none'" in policy
        nonce = policy.split("'nonce-", 1)[1].split("'", 1)[0]
        html = r.get_data(as_text=True)
        tags = re.findall(r"<(script|style)\b([^>]*)>", html)
        assert tags, path
        for tag, attributes in tags:
            # every script and stylesheet carries this answer's nonce; the board's <style> its hash
            assert f'nonce="{nonce}"' in attributes or (tag == "style" and "svg" in html), (path, tag)
        assert not re.search(r"\son[a-z]+=", html) and " style=" not in html, path
    assert client.get("/games/new").headers["Content-Security-Policy"] != client.get(
        "/games/new").headers["Content-Security-Policy"]  # a fresh nonce each answer
    verify = client.get("/verify").headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in verify and "'wasm-unsafe-eval'" in verify
    assert "wasm-unsafe-eval" not in client.get("/").headers["Content-Security-Policy"]
    api = client.get(f"/api/games/{game_id}").headers["Content-Security-Policy"]
    assert api == "default-src 'none'; frame-ancestors 'none'"


def test_a_number_of_5001_digits_in_a_form_json_field_is_refused_naming_it(app: Flask) -> None:
    """The create form's options and the join form's force (the GM's policy form:
    tests/security/test_bad_input.py): a clear refusal at the field, never a 500."""
    client = app.test_client()
    long = "9" * 5001
    r = client.post("/games", data={"ruleset": "universal", "seats": "alice\nbob", "options": f"width = {long}"})
    assert r.status_code == 422 and "width" in r.get_data(as_text=True)
    created = client.post("/api/games", json={"ruleset": "universal", "seats": [{"name": "a"}, {"name": "b"}]}).json
    invite = created["seats"][0]["invite_token"]
    r = client.post(f"/games/{created['id']}/join/{invite}", data={"force": '{"units": ' + long + '}'})
    assert r.status_code == 422 and "force" in r.get_data(as_text=True)
