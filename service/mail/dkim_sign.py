"""DKIM signatures on outgoing mail (RFC 6376), with dkimpy.

Configured by DICEPOST_DKIM_SELECTOR and DICEPOST_DKIM_KEY_FILE (a PEM RSA
private key, 2048 bits or more); the signing domain is MAIL_DOMAIN. Both set: every mail is signed;
neither: none is; one, or a key that cannot sign, stops the app and the worker at start
with one line naming the setting, because a host that silently stops signing lands in
spam folders days before anyone notices.

The signature covers the message exactly as it is sent: the outbox serialises the mail
once (sign_bytes) and hands those bytes to SMTP, so no re-serialisation can change what
was signed. Relaxed canonicalisation for headers and body survives the refolding and
trailing-space changes relays are known to make.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import dkim

from service.mail.server_url import ConfigError

SELECTOR = "DKIM_SELECTOR"
KEY_FILE = "DKIM_KEY_FILE"

# The headers a receiver shows or threads on; From is the one RFC 6376 requires.
SIGNED_HEADERS = (b"from", b"to", b"subject", b"date", b"message-id", b"reply-to", b"in-reply-to",
                  b"references", b"mime-version", b"content-type", b"list-id", b"list-unsubscribe",
                  b"list-unsubscribe-post", b"auto-submitted", b"precedence")
_PROBE = (b"From: probe@example.org\r\nTo: probe@example.org\r\nSubject: probe\r\n"
          b"Date: Thu, 01 Jan 2026 00:00:00 +0000\r\nMessage-ID: <probe@example.org>\r\n\r\nprobe\r\n")


@dataclass(frozen=True)
class DkimKey:
    selector: str
    domain: str
    private_key: bytes


def load_key(config: Mapping[str, Any], domain: str) -> DkimKey | None:
    """The configured signing key, None when DKIM is off; raises ConfigError (one line,
    naming the setting) for half a configuration or a key that cannot sign."""
    selector = str(config.get(SELECTOR) or "").strip()
    key_file = str(config.get(KEY_FILE) or "").strip()
    if not selector and not key_file:
        return None
    if not key_file:
        raise ConfigError(f"DICEPOST_{SELECTOR} is set but DICEPOST_{KEY_FILE} is not: "
                          "set both to sign mail with DKIM, or neither")
    if not selector:
        raise ConfigError(f"DICEPOST_{KEY_FILE} is set but DICEPOST_{SELECTOR} is not: "
                          "set both to sign mail with DKIM, or neither")
    if not all(c.isalnum() or c in "-_." for c in selector):
        raise ConfigError(f"DICEPOST_{SELECTOR}={selector!r}: a selector is letters, digits, "
                          "'-', '_' and '.'")
    try:
        pem = Path(key_file).read_bytes()
    except OSError as exc:
        raise ConfigError(f"DICEPOST_{KEY_FILE}={key_file!r}: cannot read the key: "
                          f"{exc.strerror or exc}") from None
    key = DkimKey(selector, domain, pem)
    try:
        sign_bytes(_PROBE, key)
    except Exception as exc:  # dkimpy raises several kinds for an unusable key
        raise ConfigError(f"DICEPOST_{KEY_FILE}={key_file!r}: not a usable DKIM private key "
                          f"(PEM RSA): {_one_line(exc)}") from None
    return key


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def sign_bytes(raw: bytes, key: DkimKey) -> bytes:
    """The message with its DKIM-Signature header first (raw is CRLF-terminated)."""
    present = {name.split(b":", 1)[0].strip().lower() for name in raw.split(b"\r\n\r\n", 1)[0].split(b"\r\n")
               if name and not name[:1].isspace()}
    signature: bytes = dkim.sign(
        raw, key.selector.encode("ascii"), key.domain.encode("ascii"), key.private_key,
        canonicalize=(b"relaxed", b"relaxed"), signature_algorithm=b"rsa-sha256",
        include_headers=[h for h in SIGNED_HEADERS if h in present])
    return signature + raw

