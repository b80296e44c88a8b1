"""Header values of incoming mail, read without trusting their syntax.

Python's email package parses a header when it is read, and a malformed address
header can make that raise. Incoming mail is anyone's to write, so these helpers read
the raw values (`raw_items`) and decode RFC 2047 words themselves, falling back to
the raw text: a broken header is read as text, never as an error.
"""

from __future__ import annotations

import re
from email.header import decode_header, make_header
from email.message import Message
from email.utils import getaddresses

_FOLD_RE = re.compile(r"\r?\n[ \t]")


def raw_values(msg: Message, name: str) -> list[str]:
    """Every value of one header, unfolded, as sent."""
    wanted = name.lower()
    return [_clean(_FOLD_RE.sub(" ", str(value))) for key, value in msg.raw_items() if key.lower() == wanted]


def _clean(value: str) -> str:
    """Undecodable bytes (kept as surrogates by the parser) become U+FFFD: storable text."""
    return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def text_value(msg: Message, name: str) -> str:
    """The first value of a header as text, encoded words decoded when they decode."""
    values = raw_values(msg, name)
    if not values:
        return ""
    try:
        return str(make_header(decode_header(values[0]))).strip()
    except (ValueError, LookupError, UnicodeError):
        return values[0].strip()


def addresses(msg: Message, names: tuple[str, ...]) -> list[str]:
    """The plain addresses (local@domain) in these headers, in order."""
    values = [v for name in names for v in raw_values(msg, name)]
    return [addr for _display, addr in getaddresses(values) if addr.count("@") == 1]
