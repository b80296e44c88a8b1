"""Outgoing messages written straight to bytes: the headers once, the parts once.

The `email` package parses every header it is given into its header registry and
serialises the whole tree again in `as_bytes` (about two thirds of a mail's composing
CPU); dicepost's mails have one fixed shape, so they are written here directly:

- headers (RFC 5322): ASCII only, folded at spaces to lines of at most 78 characters
  where there are spaces (never longer than 998); text with anything else (or with an
  `=?` that a reader would take for an encoded word) goes as RFC 2047 encoded words,
  UTF-8 in base64, each at most 75 characters, so no byte of the value is lost or read
  as a header of its own;
- display names: bare when every character is an atom character or a space, else a
  quoted string (RFC 5322 3.2.4), else encoded words;
- bodies (RFC 2045): text parts as 7bit when every line is ASCII and at most 998 octets,
  quoted-printable otherwise; an attachment in base64; every line ends CRLF, the form
  SMTP and DKIM signing want.

The boundary comes from the Message-ID, so the same row always gives the same bytes.
Kept rather than the standard library's EmailMessage: that writes the same mails in about
14 times the instructions (`python -m bench.mimecount DIR --callgrind`, docs/performance.md).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from email.headerregistry import Address
from functools import lru_cache

WIDTH = 78  # RFC 5322 2.1.1: SHOULD be no more than 78 characters, MUST be at most 998
_WORD_BYTES = 45  # 45 bytes → 60 base64 characters: "=?utf-8?b?" + 60 + "?=" = 72 ≤ 75
_ATOM = re.compile(r"^[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~ ]*$")
_PRINTABLE = re.compile(r"^[\x20-\x7e]*$")


def encoded_words(text: str) -> list[str]:
    """RFC 2047 B-encoded words of UTF-8, never splitting a character between words."""
    words: list[str] = []
    chunk = bytearray()
    for ch in text:
        b = ch.encode("utf-8")
        if len(chunk) + len(b) > _WORD_BYTES:
            words.append(_word(bytes(chunk)))
            chunk.clear()
        chunk += b
    if chunk or not words:
        words.append(_word(bytes(chunk)))
    return words


def _word(data: bytes) -> str:
    return "=?utf-8?b?" + base64.b64encode(data).decode("ascii") + "?="


def _needs_words(text: str) -> bool:
    return not _PRINTABLE.match(text) or "=?" in text


def unstructured(text: str) -> str:
    """A Subject-like value: as it is when it is plain ASCII, else encoded words (joined by
    spaces, which readers drop between encoded words)."""
    return " ".join(encoded_words(text)) if _needs_words(text) else text


def phrase(text: str) -> str:
    """A display name (RFC 5322 phrase): bare, quoted, or encoded words."""
    if _needs_words(text):
        return " ".join(encoded_words(text))
    if _ATOM.match(text) and text.strip() == text and "  " not in text:
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def address(addr: Address) -> str:
    """`Name <local@domain>`, or the bare address without a name."""
    spec = f"{addr.username}@{addr.domain}"
    return f"{phrase(addr.display_name)} <{spec}>" if addr.display_name else spec


def fold(name: str, value: str) -> str:
    """`Name: value` folded before spaces so each line keeps to WIDTH where it can."""
    line = f"{name}: {value}"
    if len(line) <= WIDTH:
        return line
    lines: list[str] = []
    current = f"{name}:"
    for piece in value.split(" "):
        if len(current) + 1 + len(piece) > WIDTH and current.strip() and current != f"{name}:":
            lines.append(current)
            current = " " + piece
        else:
            current += " " + piece
    lines.append(current)
    return "\r\n".join(lines)


def header_block(fields: Iterable[tuple[str, str]]) -> bytes:
    """The header section, each value ASCII already (see unstructured, address)."""
    return "".join(fold(name, value) + "\r\n" for name, value in fields).encode("ascii")


@dataclass(frozen=True)
class Attached:
    filename: str
    content_type: str
    data: bytes


def _crlf(data: bytes) -> bytes:
    return data.replace(b"\n", b"\r\n")


def _qp(line: bytes) -> bytes:
    return binascii.b2a_qp(line, quotetabs=False, istext=True, header=False)


@lru_cache(maxsize=256)
def _qp_body(body: bytes) -> bytes:
    """One line given without its LF (split off by one bytes.split), in quoted-printable."""
    return _qp(body + b"\n")


def quoted_printable(data: bytes) -> bytes:
    """Quoted-printable text (LF line ends), as binascii.b2a_qp writes it; it encodes each
    line on its own, so the lines a round's mails have in common (the grid, the roll log,
    the layout) are encoded once."""
    if b"\r" in data:  # bytes.splitlines breaks at CR too (text_part passes none)
        return b"".join(_qp(line) for line in data.splitlines(keepends=True))
    *lines, last = data.split(b"\n")
    encoded = b"".join(map(_qp_body, lines))
    return encoded + _qp(last) if last else encoded


@lru_cache(maxsize=8)
def base64_lines(data: bytes) -> bytes:
    """base64 in lines of 76 with CRLF ends, encoded once for the mails of a round that
    attach the same record."""
    return base64.encodebytes(data).replace(b"\n", b"\r\n")


def text_part(content_type: str, text: str) -> bytes:
    """One text/* leaf, headers and body; the body ends with a line break, as the email
    package writes it."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.endswith("\n"):
        text += "\n"
    data = text.encode("utf-8")
    if data.isascii() and all(len(line) <= 998 for line in data.split(b"\n")):
        encoding, body = "7bit", data
    else:
        encoding = "quoted-printable"
        body = quoted_printable(data)
    return (f'Content-Type: {content_type}; charset="utf-8"\r\n'
            f"Content-Transfer-Encoding: {encoding}\r\n\r\n").encode("ascii") + _crlf(body)


def attachment_part(item: Attached) -> bytes:
    name = item.filename.replace("\\", "").replace('"', "")
    if _needs_words(name):
        raise ValueError(f"attachment name {item.filename!r} is not plain ASCII")
    head = (f"Content-Type: {item.content_type}\r\n"
            f'Content-Disposition: attachment; filename="{name}"\r\n'
            "Content-Transfer-Encoding: base64\r\n\r\n")
    return head.encode("ascii") + base64_lines(item.data)


def _boundary(seed: str, parts: list[bytes], level: str) -> str:
    """A boundary no part contains ('=_' never occurs in base64 or quoted-printable text,
    and the check covers 7bit text)."""
    for n in range(100):
        mark = "=_dp" + hashlib.sha256(f"{seed}/{level}/{n}".encode()).hexdigest()[:24]
        encoded = ("--" + mark).encode("ascii")
        if not any(encoded in part for part in parts):
            return mark
    raise ValueError("no boundary fits these parts")  # 100 SHA-256 prefixes all present: not in practice


def multipart(subtype: str, parts: list[bytes], seed: str) -> bytes:
    """A multipart entity, its Content-Type line and body, from complete parts."""
    mark = _boundary(seed, parts, subtype)
    # The CRLF before each delimiter belongs to the delimiter (RFC 2046 5.1.1), not to the
    # part before it: a part's own last line break stays in the part.
    delimiter = f"\r\n--{mark}\r\n".encode("ascii")
    head = f'Content-Type: multipart/{subtype}; boundary="{mark}"\r\n\r\n--{mark}\r\n'
    return head.encode("ascii") + delimiter.join(parts) + f"\r\n--{mark}--\r\n".encode("ascii")


def message(headers: bytes, text: str, html: str | None, attachments: list[Attached],
            seed: str) -> bytes:
    """The whole message: the headers, MIME-Version, then text (and HTML as its
    alternative; with attachments, the two inside multipart/mixed)."""
    body = text_part("text/plain", text)
    if html is not None:
        body = multipart("alternative", [body, text_part("text/html", html)], seed)
    if attachments:
        body = multipart("mixed", [body, *(attachment_part(a) for a in attachments)], seed)
    return headers + b"MIME-Version: 1.0\r\n" + body
