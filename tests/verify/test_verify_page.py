"""service.verify_page: /verify and /verify/verifier.html serve the page's exact bytes."""

from __future__ import annotations

import base64
import hashlib
import re

import pytest
from flask import Blueprint, Flask, jsonify, render_template_string

from engine.dice import chain
from service import verify_page
from tests.verify.conftest import PAGE, ROOT

LINKS = [link.hex() for link in chain(bytes(range(32)), 4)]  # docs/dice-spec.md's test chain


@pytest.fixture
def app() -> Flask:
    app = Flask(__name__, template_folder=str(ROOT / "templates"))
    app.register_blueprint(verify_page.bp)
    api = Blueprint("api", __name__)  # stands for the service's API blueprint

    @api.get("/api/games/<game_id>/record")
    def record(game_id: str):
        return jsonify({"game_id": game_id})

    @api.get("/api/games/<game_id>")
    def game(game_id: str):
        return jsonify({"id": game_id})

    app.register_blueprint(api)
    return app


@pytest.fixture
def client(app: Flask):
    return app.test_client()


def test_the_page_is_served_byte_for_byte(client) -> None:
    page = client.get("/verify")
    assert page.status_code == 200 and page.mimetype == "text/html"
    assert page.data == PAGE.read_bytes()
    assert "attachment" not in page.headers.get("Content-Disposition", "")
    download = client.get("/verify/verifier.html")
    assert download.status_code == 200 and download.data == PAGE.read_bytes()
    assert download.headers["Content-Disposition"] == 'attachment; filename="dicepost-verifier.html"'


def test_the_page_is_self_contained() -> None:
    html = PAGE.read_text(encoding="utf-8")
    assert not re.search(r"<script[^>]+src=", html), "no external scripts"
    assert not re.search(r"<link[^>]+href=", html), "no external styles"
    assert not re.search(r"(?:src|href)=[\"']?(?:https?:)?//", html), "nothing from elsewhere"
    assert "@import" not in html and "url(" not in html
    assert html.count("<script") == 2 and 'id="dicepost-verifier-core"' in html


def test_the_policy_allows_the_pages_inline_scripts_and_the_runtime_folder_only(client) -> None:
    """Scripts: the page's two inline ones by hash, the runtime's modules from the host's
    /verify-runtime/ folder only, and WebAssembly (Pyodide) compiled; never eval."""
    policy = client.get("/verify").headers["Content-Security-Policy"]
    html = PAGE.read_bytes()
    scripts = re.findall(rb"<script[^>]*>(.*?)</script>", html, re.S)
    assert len(scripts) == 2
    allowed = re.search(r"script-src ([^;]+);", policy)
    assert allowed is not None
    assert sorted(allowed.group(1).split()) == sorted(
        [f"'sha256-{base64.b64encode(hashlib.sha256(s).digest()).decode()}'" for s in scripts]
        + ["http://localhost/verify-runtime/", "'wasm-unsafe-eval'"])
    assert "default-src 'none'" in policy and "unsafe-inline" not in policy
    assert "'unsafe-eval'" not in policy


def test_the_record_and_only_the_record_is_readable_from_any_origin(client) -> None:
    assert client.get("/api/games/g1/record").headers["Access-Control-Allow-Origin"] == "*"
    assert "Access-Control-Allow-Origin" not in client.get("/api/games/g1").headers
    assert "Access-Control-Allow-Origin" not in client.get("/verify").headers


REVEAL = '''{% from "verify/_reveal.html" import reveal, reveal_text %}{{ reveal(t, s_t, s_prev, url) }}
---
{{ reveal_text(t, s_t, s_prev, url, "https://dicepost.test/verify") }}'''


def test_the_reveal_macro_shows_the_link_the_check_and_the_verifier_link(app: Flask) -> None:
    url = "https://dicepost.test/api/games/g-7f3a/record"
    with app.test_request_context():
        html, text = render_template_string(REVEAL, t=2, s_t=LINKS[2], s_prev=LINKS[1], url=url).split("---")
        bad_html, bad_text = render_template_string(REVEAL, t=2, s_t=LINKS[3], s_prev=LINKS[1], url=url).split("---")
        setup = render_template_string(REVEAL, t=1, s_t=LINKS[1], s_prev=LINKS[0], url=url)
    link = "/verify?record=https://dicepost.test/api/games/g-7f3a/record"
    assert f"Revealed chain link S<sub>2</sub>: <code class=\"hex\">{LINKS[2]}</code>" in html
    assert LINKS[1] in html and 'data-holds="yes"' in html and ">holds</strong>" in html
    assert f'<a class="check-dice" href="{link}">check these dice</a>' in html
    assert "(round 1)" in html
    assert f"revealed S_2 = {LINKS[2]}" in text and f"check H(S_2) = S_1 = {LINKS[1]}: holds" in text
    assert f"check these dice: https://dicepost.test{link}" in text
    assert 'data-holds="no"' in bad_html and "does NOT hold" in bad_html and "does NOT hold" in bad_text
    assert "(setup)" in setup and "(the commitment)" in setup and 'data-holds="yes"' in setup


def test_verify_link_quotes_the_record_url() -> None:
    assert verify_page.verify_link("/api/games/a b/record?x=1&y=2") == (
        "/verify?record=/api/games/a%20b/record%3Fx%3D1%26y%3D2")
    assert not verify_page.chain_link_holds("not hex", LINKS[0])
