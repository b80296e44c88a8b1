"""Secrets shown once and stored as SHA-256: player, GM and invite tokens; game ids."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

_ID_ALPHABET = "abcdefghijkmnopqrstuvwxyz23456789"  # no l, 1, 0: readable in mail


def new_token() -> str:
    return secrets.token_urlsafe(24)


def gm_token_of(secret_key: str | bytes, game_id: str, salt: str) -> str:
    """The GM token of a game with a GM address: made again from its salt and SECRET_KEY (a
    key derived for this purpose alone), so "Your games" can show the GM link; only its
    hash is stored, like every token's."""
    raw = secret_key.encode("utf-8") if isinstance(secret_key, str) else secret_key
    key = hmac.new(raw, b"dicepost gm link", hashlib.sha256).digest()
    mac = hmac.new(key, f"{game_id}.{salt}".encode(), hashlib.sha256).digest()[:24]
    return base64.urlsafe_b64encode(mac).decode("ascii")


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def same_hash(token: str, stored: str | None) -> bool:
    return stored is not None and hmac.compare_digest(token_hash(token), stored)


def new_game_id() -> str:
    return "".join(secrets.choice(_ID_ALPHABET) for _ in range(10))


def row_of(token: str) -> int | None:
    """The row id a `row_token` names, or None for text of any other shape."""
    head = token.split(".", 1)[0]
    return int(head) if head.isdigit() and len(head) < 12 else None


def row_token(secret_key: str | bytes, purpose: bytes, row_id: int, salt: str) -> str:
    """`<row id>.<mac>`: an HMAC-SHA-256 of the row id and its salt under a key derived from
    SECRET_KEY for `purpose` alone, so a link's token need not be stored (only its hash)."""
    raw = secret_key.encode("utf-8") if isinstance(secret_key, str) else secret_key
    key = hmac.new(raw, purpose, hashlib.sha256).digest()
    mac = hmac.new(key, f"{row_id}.{salt}".encode(), hashlib.sha256).digest()[:20]
    return f"{row_id}.{base64.b32encode(mac).decode('ascii').lower()}"
