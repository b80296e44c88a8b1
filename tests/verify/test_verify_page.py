"""service.verify_page: /verify and /verify/verifier.html serve the page's exact bytes."""

from __future__ import annotations

import base64
import hashlib
import re

import pytest
from flask import Flask

from service import verify_page
from tests.verify.conftest import PAGE


@pytest.fixture
def client():
    app = Flask(__name__)
    app.register_blueprint(verify_page.bp)
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


def test_the_policy_allows_exactly_the_pages_inline_scripts(client) -> None:
    policy = client.get("/verify").headers["Content-Security-Policy"]
    html = PAGE.read_bytes()
    scripts = re.findall(rb"<script[^>]*>(.*?)</script>", html, re.S)
    assert len(scripts) == 2
    allowed = re.search(r"script-src ([^;]+);", policy)
    assert allowed is not None
    assert sorted(allowed.group(1).split()) == sorted(
        f"'sha256-{base64.b64encode(hashlib.sha256(s).digest()).decode()}'" for s in scripts)
    assert "default-src 'none'" in policy and "unsafe-inline" not in policy
