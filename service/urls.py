"""Absolute URLs for pages, mail and CLI output (DICEPOST_BASE_URL or the request's root)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, urlencode

from flask import current_app, has_request_context, request, url_for

DEFAULT_BASE = "http://127.0.0.1:5000"


def base_url() -> str:
    configured = current_app.config.get("BASE_URL")
    if configured:
        return str(configured).rstrip("/")
    return request.url_root.rstrip("/") if has_request_context() else DEFAULT_BASE


KEPT_URLS = "dicepost.urls"  # app.extensions key: the URLs absolute() built, by base URL, endpoint, values
_KEPT_AT_MOST = 4096


def absolute(endpoint: str, **values: Any) -> str:
    """The endpoint's URL under base_url(). What url_for gives depends only on the app's
    URL map (fixed once the app is made; dicepost registers no URL defaults) and these
    values, so the URLs built again and again (a mail worker writes the same seats' links
    every round) are kept with the app."""
    base = base_url()
    kept: dict[tuple[Any, ...], str] = current_app.extensions.setdefault(KEPT_URLS, {})
    try:
        key = (base, endpoint, *sorted(values.items()))
        url = kept.get(key)
    except TypeError:  # a value that cannot be a key
        return _build(base, endpoint, values)
    if url is None:
        url = _build(base, endpoint, values)
        if len(kept) >= _KEPT_AT_MOST:
            kept.clear()
        kept[key] = url
    return url


def _build(base: str, endpoint: str, values: Mapping[str, Any]) -> str:
    if has_request_context():
        return base + _below_root(url_for(endpoint, **values))
    with current_app.test_request_context(base_url=base):
        return base + _below_root(url_for(endpoint, **values))


def _below_root(path: str) -> str:
    """url_for's path without the context's script root, which base_url() already ends
    with (a BASE_URL like https://example.org/dp would otherwise give /dp/dp/...)."""
    root = request.script_root
    return path[len(root):] if root and path.startswith(root) else path


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


def held_fragment(held: Mapping[str, str | None] | None) -> str:
    """`#commitment=...&seat=...&entropy=...` (what is given), or nothing."""
    pairs = [(k, v) for k in ("commitment", "seat", "entropy") if (v := (held or {}).get(k))]
    return f"#{urlencode(pairs)}" if pairs else ""



def takeover_url(game_id: str, invite: str) -> str:
    """The link that hands an open seat to a replacement player."""
    return absolute("gm.takeover", game_id=game_id, invite=invite)
