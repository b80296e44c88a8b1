"""Secrets shown once and stored as SHA-256: player, GM and invite tokens; game ids."""

from __future__ import annotations

import hashlib
import hmac
import secrets

_ID_ALPHABET = "abcdefghijkmnopqrstuvwxyz23456789"  # no l, 1, 0: readable in mail


def new_token() -> str:
    return secrets.token_urlsafe(24)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def same_hash(token: str, stored: str | None) -> bool:
    return stored is not None and hmac.compare_digest(token_hash(token), stored)


def new_game_id() -> str:
    return "".join(secrets.choice(_ID_ALPHABET) for _ in range(10))
