"""Signed per-seat tokens: the Reply-To address of a player and their unsubscribe link.

A token is `<seat id>.<mac>`, where mac is an HMAC-SHA-256 over the seat id and the
seat's own salt, keyed by a key derived from the app's SECRET_KEY for one purpose only
("reply", "unsubscribe", "open": a mail's link into a private game's pages, ...), so a
reply token never works as an unsubscribe token and
rotating a seat's salt revokes every token it was given. The MAC is written in
lower-case base32 (letters and 2-7), because mail systems may change the case of the
local part of an address and some strip characters such as `=` and `/`.

Only the MAC proves who writes: a From header is anyone's to forge (Django's signing
and itsdangerous use the same derive-a-key-per-purpose idea).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from dataclasses import dataclass
from typing import Literal

Purpose = Literal["reply", "unsubscribe", "bounce", "open"]

# 80 bits, 16 base32 characters: a forger gets one guess a mail, and `play+<uuid>.<mac>`
# stays within the 64 characters RFC 5321 allows a local part.
_MAC_BYTES = 10
_MAC_CHARS = 16
_TOKEN_RE = re.compile(r"^([A-Za-z0-9_\-]{1,36})\.([A-Za-z2-7]{" + str(_MAC_CHARS) + "})$")


class TokenError(ValueError):
    """A token that is malformed or whose signature does not match."""


@dataclass(frozen=True)
class SignedSeat:
    """What a token names once its shape is checked (its MAC is not yet verified)."""

    seat_id: str
    mac: str


def _key(secret_key: str | bytes, purpose: Purpose) -> bytes:
    if not secret_key:
        raise TokenError("SECRET_KEY is not set: mail tokens cannot be signed")
    raw = secret_key.encode("utf-8") if isinstance(secret_key, str) else secret_key
    return hmac.new(raw, b"dicepost mail token/" + purpose.encode("ascii"), hashlib.sha256).digest()


def _mac(secret_key: str | bytes, purpose: Purpose, seat_id: str, salt: str) -> str:
    msg = len(seat_id).to_bytes(4, "big") + seat_id.encode("utf-8") + salt.encode("utf-8")
    digest = hmac.new(_key(secret_key, purpose), msg, hashlib.sha256).digest()[:_MAC_BYTES]
    return base64.b32encode(digest).decode("ascii").lower()


def make_token(secret_key: str | bytes, purpose: Purpose, seat_id: object, salt: str) -> str:
    """The token for one seat and purpose; the same inputs always give the same token."""
    sid = str(seat_id)
    if not re.fullmatch(r"[A-Za-z0-9_\-]{1,36}", sid):
        raise TokenError(f"seat id {sid!r} cannot be written in a mail address")
    return f"{sid}.{_mac(secret_key, purpose, sid, salt)}"


def parse_token(text: str) -> SignedSeat:
    """Split a token into seat id and MAC; raises TokenError if it has the wrong shape."""
    m = _TOKEN_RE.match(text.strip())
    if not m:
        raise TokenError("not a dicepost token")
    return SignedSeat(m.group(1), m.group(2))


def verify_token(secret_key: str | bytes, purpose: Purpose, token: SignedSeat, salt: str) -> bool:
    """Constant-time check of a parsed token against the seat's salt."""
    expected = _mac(secret_key, purpose, token.seat_id, salt)
    return hmac.compare_digest(expected.encode("ascii"), token.mac.lower().encode("ascii"))


def token_hash(token: str) -> str:
    """SHA-256 (hex) of a token, for storing a lookup value without storing the token."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()
