"""Content-Security-Policy and anti-framing on every answer.

Every page's scripts and its stylesheet are inline (a page works without fetching
anything else), so each carries the request's nonce and the policy allows only those: an
injected <script> or style, or an event-handler attribute, does nothing. The board's own
<style> (a fixed text) is allowed by its hash. No page may be framed (`frame-ancestors
'none'`, and X-Frame-Options for older browsers). The verifier page sets its own policy
(service.verify_page: hashes, its runtime, WebAssembly); it gets `frame-ancestors` here.
The embedded mailbox's view of one mail allows inline style attributes: the HTML mail it
shows, in a sandboxed frame, is styled with them as mail must be.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from functools import cache

from flask import Flask, Response, g, request

from service.render.svg import BOARD_STYLE

# Pages that show an HTML mail (styled with attributes, as mail clients need) in a sandbox.
STYLE_ATTRIBUTE_ENDPOINTS = frozenset({"web.mail"})


def nonce() -> str:
    """This request's nonce, made on first use."""
    if "csp_nonce" not in g:
        g.csp_nonce = secrets.token_urlsafe(18)
    return str(g.csp_nonce)


@cache
def _board_hash() -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(BOARD_STYLE.encode()).digest()).decode() + "'"


def page_policy(page_nonce: str, style_attributes: bool = False) -> str:
    return (f"default-src 'none'; script-src 'nonce-{page_nonce}'; "
            f"style-src 'nonce-{page_nonce}' {_board_hash()}; "
            + ("style-src-attr 'unsafe-inline'; frame-src 'self'; " if style_attributes else "")
            + "img-src 'self' data:; connect-src 'self'; manifest-src 'self'; worker-src 'self'; "
            "form-action 'self'; base-uri 'none'; "
            "frame-ancestors 'none'")


def _headers(response: Response) -> Response:
    headers = response.headers
    headers.setdefault("X-Frame-Options", "DENY")
    headers.setdefault("X-Content-Type-Options", "nosniff")
    policy = headers.get("Content-Security-Policy")
    if policy:
        if "frame-ancestors" not in policy:
            headers["Content-Security-Policy"] = f"{policy}; frame-ancestors 'none'"
    elif response.mimetype == "text/html":
        attributes = request.endpoint in STYLE_ATTRIBUTE_ENDPOINTS
        headers["Content-Security-Policy"] = page_policy(nonce(), attributes)
    else:
        headers["Content-Security-Policy"] = "default-src 'none'; frame-ancestors 'none'"
    return response


def init_app(app: Flask) -> None:
    app.after_request(_headers)
    app.jinja_env.globals["csp_nonce"] = nonce
