"""The in-browser dice verifier: `/verify` and the download `/verify/verifier.html`.

Also, for the round page and the results mail (templates/verify/_reveal.html): template
globals `chain_link_holds(s_t, s_prev)` and `verify_link(record_url)`, and CORS on the
record endpoint so a verifier page saved to disk can fetch a record by URL.

Both serve templates/verify/verifier.html byte for byte (never through Jinja), so the
page a player saves is exactly the page the test suite checks. The page loads a record
from a file or from `?record=<url>` (for instance `/verify?record=/api/games/<id>/record`)
and recomputes every roll with the browser's WebCrypto.

The response carries its own Content-Security-Policy: the page's two inline scripts are
allowed by their SHA-256, nothing may be loaded from elsewhere, and `connect-src` is open
because a player may check a record hosted anywhere (the record is data, never run).
"""

from __future__ import annotations

import base64
import hashlib
import re
from functools import lru_cache
from importlib import resources

from flask import Blueprint, Response, request

from engine.dice import PROFILE, chain_link_ok
from service.urls import verify_link

bp = Blueprint("verify_page", __name__)

PAGE = resources.files("templates").joinpath("verify", "verifier.html")
DOWNLOAD_NAME = "dicepost-verifier.html"
# The game record is public, read-only data: any page (the saved verifier, opened from
# disk, has origin "null") may read it, without credentials.
RECORD_ENDPOINTS = frozenset({"api.record"})
_SCRIPT = re.compile(rb"<script[^>]*>(.*?)</script>", re.S)
_STYLE = re.compile(rb"<style[^>]*>(.*?)</style>", re.S)


@lru_cache(maxsize=1)
def page_bytes() -> bytes:
    return PAGE.read_bytes()


def _hashes(pattern: re.Pattern[bytes], html: bytes) -> str:
    return " ".join(f"'sha256-{base64.b64encode(hashlib.sha256(m).digest()).decode()}'"
                    for m in pattern.findall(html))


@lru_cache(maxsize=1)
def content_security_policy() -> str:
    html = page_bytes()
    return ("default-src 'none'; "
            f"script-src {_hashes(_SCRIPT, html)}; "
            f"style-src {_hashes(_STYLE, html)}; "
            "connect-src *; img-src data:; base-uri 'none'; form-action 'none'")


def _page(download: bool) -> Response:
    response = Response(page_bytes(), content_type="text/html; charset=utf-8")
    response.headers["Content-Security-Policy"] = content_security_policy()
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "no-referrer"
    if download:
        response.headers["Content-Disposition"] = f'attachment; filename="{DOWNLOAD_NAME}"'
    return response


@bp.get("/verify")
def verifier() -> Response:
    return _page(download=False)


@bp.get("/verify/verifier.html")
def download() -> Response:
    return _page(download=True)


@bp.after_app_request
def record_is_readable_anywhere(response: Response) -> Response:
    if request.method in ("GET", "HEAD") and request.endpoint in RECORD_ENDPOINTS:
        response.headers["Access-Control-Allow-Origin"] = "*"
    return response


bp.add_app_template_global(verify_link)


@bp.app_template_global()
def chain_link_holds(s_t: str, s_prev: str, profile: str = PROFILE) -> bool:
    """H(PROFILE, "chain", S_t) == S_{t-1}, both given as hex (False if not hex), under the
    game's profile."""
    try:
        return chain_link_ok(bytes.fromhex(s_t), bytes.fromhex(s_prev), profile)
    except ValueError:
        return False
