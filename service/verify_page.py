"""The in-browser verifier: `/verify`, the download `/verify/verifier.html`, and the
runtime beside it, `/verify-runtime/<name>` (service.verify_bundle: Pyodide, the engine's
files, SHA256SUMS), the same bytes `dicepost verify --bundle` writes.

Also, for the round page and the results mail (templates/verify/_reveal.html): template
globals `chain_link_holds(s_t, s_prev)` and `verify_link(record_url, page, held)`, and CORS
on the record endpoint so a verifier page saved to disk can fetch a record by URL.

The page is served byte for byte from templates/verify/verifier.html (never through Jinja),
so the page a player saves is exactly the page the test suite checks. It loads a record
from a file or from `?record=<url>`, takes what the player holds from the fragment
(`#commitment=..&seat=..&entropy=..`), checks the dice with WebCrypto, then runs the
engine's own check under Pyodide from `verify-runtime/`.

The response carries its own Content-Security-Policy: the page's two inline scripts are
allowed by their SHA-256, module scripts only from this host's /verify-runtime/, and
WebAssembly may be compiled; nothing else may be loaded, and `connect-src` is open
because a player may check a record hosted anywhere (the record is data, never run).
"""

from __future__ import annotations

import base64
import hashlib
import re
from functools import lru_cache

from flask import Blueprint, Response, abort, request

from engine.dice import PROFILE, chain_link_ok
from service.urls import verify_link
from service.verify_bundle import RUNTIME, bundle_files, page_bytes

bp = Blueprint("verify_page", __name__)

DOWNLOAD_NAME = "dicepost-verifier.html"
# The game record is public, read-only data: any page (the saved verifier, opened from
# disk, has origin "null") may read it, without credentials.
RECORD_ENDPOINTS = frozenset({"api.record"})
_SCRIPT = re.compile(rb"<script[^>]*>(.*?)</script>", re.S)
_STYLE = re.compile(rb"<style[^>]*>(.*?)</style>", re.S)


def _hashes(pattern: re.Pattern[bytes], html: bytes) -> str:
    return " ".join(f"'sha256-{base64.b64encode(hashlib.sha256(m).digest()).decode()}'"
                    for m in pattern.findall(html))


@lru_cache(maxsize=1)
def _inline_hashes() -> tuple[str, str]:
    html = page_bytes()
    return _hashes(_SCRIPT, html), _hashes(_STYLE, html)


def content_security_policy(runtime_url: str) -> str:
    """The page's inline scripts by hash; the runtime's module scripts from `runtime_url`
    only, and WebAssembly compiled (Pyodide), never eval."""
    scripts, styles = _inline_hashes()
    return ("default-src 'none'; "
            f"script-src {scripts} {runtime_url} 'wasm-unsafe-eval'; "
            f"style-src {styles}; "
            "connect-src *; img-src data:; base-uri 'none'; form-action 'none'")


def _page(download: bool) -> Response:
    response = Response(page_bytes(), content_type="text/html; charset=utf-8")
    response.headers["Content-Security-Policy"] = content_security_policy(
        f"{request.host_url}{RUNTIME}/")
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


_TYPES = {".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm",
          ".zip": "application/zip", ".json": "application/json"}


@bp.get(f"/{RUNTIME}/<name>")
def runtime(name: str) -> Response:
    """The bundle's runtime files (service.verify_bundle), read-only, the same bytes as
    `dicepost verify --bundle` writes."""
    files = bundle_files()
    data = files.get(f"{RUNTIME}/{name}")
    if data is None:
        abort(404)
    kind = next((t for suffix, t in _TYPES.items() if name.endswith(suffix)), "text/plain")
    response = Response(data, content_type=kind if kind != "text/plain" else "text/plain; charset=utf-8")
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Cache-Control"] = "public, max-age=3600"
    response.headers["Access-Control-Allow-Origin"] = "*"  # a saved page may load them too
    return response


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
