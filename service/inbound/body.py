"""The text of an incoming message, whatever shape the client gave it.

- multipart/alternative (and multipart/related inside it) gives its text/plain part;
  an empty or missing plain part falls back to text/html, converted to text;
- transfer encodings (base64, quoted-printable, 8bit) are undone by the email package;
- the declared charset is honoured; an unknown or missing one falls back to UTF-8 and
  then Windows-1252, which decodes any byte, so a body is never lost to a charset;
- format=flowed (RFC 3676, Thunderbird's default) is unwrapped, so long lines that a
  client soft-wrapped are one line again.
"""

from __future__ import annotations

from email import policy
from email.message import EmailMessage, Message
from email.parser import BytesParser
from email.utils import collapse_rfc2231_value

from service.inbound.html_text import html_to_text


def parse_message(raw: bytes) -> EmailMessage:
    """A message from raw RFC 5322 bytes; the default policy tolerates broken mail."""
    return BytesParser(policy=policy.default).parsebytes(raw)


def decode_part(part: Message) -> str:
    """The text of one leaf part, honouring its charset when Python knows it."""
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return ""
    charset = part.get_content_charset()
    if charset:
        try:
            return payload.decode(charset, errors="replace")
        except (LookupError, ValueError):  # unknown, or not even a codec name
            pass
    try:
        return payload.decode("utf-8")
    except UnicodeDecodeError:
        return payload.decode("cp1252", errors="replace")


def unflow(text: str, delsp: bool) -> str:
    """Join RFC 3676 soft line breaks (a trailing space) and undo space-stuffing."""
    out: list[str] = []
    pending = ""
    for line in text.split("\n"):
        line = line.rstrip("\r")
        if line.startswith(" "):
            line = line[1:]
        if line.endswith(" ") and line != "-- ":
            pending += line[:-1] if delsp else line
            continue
        out.append(pending + line)
        pending = ""
    if pending:
        out.append(pending)
    return "\n".join(out)


def _param(part: Message, name: str) -> str:
    value = part.get_param(name)
    return collapse_rfc2231_value(value).lower() if value else ""


def _plain(part: Message) -> str:
    text = decode_part(part)
    if _param(part, "format") == "flowed":
        text = unflow(text, _param(part, "delsp") == "yes")
    return text


def body_text(msg: EmailMessage) -> str:
    """The message's text as the player wrote it (quotes and signature still in)."""
    plain = msg.get_body(preferencelist=("plain",))
    if plain is not None:
        text = _plain(plain)
        if text.strip():
            return text
    html = msg.get_body(preferencelist=("html",))
    if html is not None:
        return html_to_text(decode_part(html))
    return ""
