"""Absolute URLs for pages, mail and CLI output (DICEPOST_BASE_URL or the request's root)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, urlencode

from flask import current_app, has_request_context, request, url_for

_DEFAULT_HOST = "127.0.0.1:5000"
DEFAULT_BASE = f"http://{_DEFAULT_HOST}"


def base_url() -> str:
    configured = current_app.config.get("BASE_URL")
    if configured:
        return str(configured).rstrip("/")
    return request.url_root.rstrip("/") if has_request_context() else DEFAULT_BASE


def absolute(endpoint: str, **values: Any) -> str:
    """The endpoint's URL: under DICEPOST_BASE_URL when set, else under the request's root
    (outside a request: DEFAULT_BASE).

    With a base URL, config gives Flask its SERVER_NAME, APPLICATION_ROOT and scheme, and
    the URL comes from the app's own URL adapter (what url_for builds with outside a
    request), in a request too: a proxy may pass the request on under another root."""
    if has_request_context() and not current_app.config["SERVER_NAME"]:
        return url_for(endpoint, _external=True, **values)
    adapter = current_app.create_url_adapter(None) or current_app.url_map.bind(_DEFAULT_HOST)
    return adapter.build(endpoint, values, force_external=True)


def join_url(game_id: str, invite: str) -> str:
    return absolute("web.join", game_id=game_id, invite=invite)


def player_url(game_id: str, token: str) -> str:
    return absolute("web.player", game_id=game_id, token=token)


def game_url(game_id: str) -> str:
    return absolute("web.game", game_id=game_id)


def record_url(game_id: str) -> str:
    return absolute("api.record", game_id=game_id)


def verify_link(record_url: str, page: str = "/verify",
                held: Mapping[str, str | None] | None = None) -> str:
    """The "check these dice" link: the verifier page with `?record=<record url>`, and what
    the player holds (commitment, seat, entropy) in the fragment, which browsers never send
    to a server: the page compares the record with the values as they were when the link
    was made."""
    return f"{page}?record={quote(record_url, safe='/:')}" + held_fragment(held)


# What a link may carry of what the player holds; v3 adds the terms T and the step hash A_t
# of step t, which the mail the link is in carries too.
HELD_KEYS = ("commitment", "seat", "entropy", "terms", "t", "step_hash")


def held_fragment(held: Mapping[str, str | None] | None) -> str:
    """`#commitment=...&seat=...&entropy=...` (what is given of HELD_KEYS), or nothing."""
    pairs = [(k, v) for k in HELD_KEYS if (v := (held or {}).get(k))]
    return f"#{urlencode(pairs)}" if pairs else ""



def takeover_url(game_id: str, invite: str) -> str:
    """The link that hands an open seat to a replacement player."""
    return absolute("gm.takeover", game_id=game_id, invite=invite)
