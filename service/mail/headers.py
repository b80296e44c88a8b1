"""Header values: written for outgoing mail, read back from incoming mail.

Every text that reaches a header goes through `clean_header_text` first: player names,
game titles and subjects are anyone's to choose, and a CR or LF in one of them must
never start a new header (header injection). Python's email package refuses such
values too; cleaning them first means a hostile name gives a tidy mail, not a crash.

Threading (RFC 5322 section 3.6.4): every mail of a game names one root Message-ID per
game and seat in In-Reply-To and References, so clients group a game's mails in one
conversation. The root itself is never sent; clients thread on the reference alone.

Incoming mail is anyone's to write, and Python's email package parses a header when it
is read (a malformed address header can make that raise), so `raw_values`, `text_value`
and `addresses` read the raw values (`raw_items`) and decode RFC 2047 words themselves,
falling back to the raw text: a broken header is read as text, never as an error.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from email.header import decode_header, make_header
from email.headerregistry import Address
from email.message import Message
from email.utils import getaddresses

from service.mail import mime

# C0 and C1 controls, DEL, and Unicode line and paragraph separators.
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]+")
_SPACE_RE = re.compile(r"\s+")
_DOMAIN_RE = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9\-.]*[A-Za-z0-9])?$")


class AddressError(ValueError):
    """A configured or given mail address that cannot be used."""


def clean_header_text(text: object, limit: int = 160) -> str:
    """One line of printable text: controls become spaces, runs of space collapse."""
    flat = _CONTROL_RE.sub(" ", str(text))
    flat = _SPACE_RE.sub(" ", flat).strip()
    if len(flat) > limit:
        flat = flat[: limit - 1].rstrip() + "…"
    return flat


def split_address(addr: str) -> tuple[str, str]:
    """`local@domain` → (local, domain); raises AddressError for anything else."""
    addr = addr.strip()
    if _CONTROL_RE.search(addr) or addr.count("@") != 1 or " " in addr:
        raise AddressError(f"{addr!r} is not a plain mail address")
    local, domain = addr.split("@")
    if not local or not _DOMAIN_RE.match(domain):
        raise AddressError(f"{addr!r} is not a plain mail address")
    return local, domain


def mailbox(display_name: object, addr: str) -> Address:
    """An Address with a cleaned display name (quoted or encoded by the email package)."""
    local, domain = split_address(addr)
    return Address(display_name=clean_header_text(display_name, 80), username=local, domain=domain)


_MSGID_RE = re.compile(r"^<[A-Za-z0-9.\-_+]+@[A-Za-z0-9.\-]+>$")


def message_id(stable_id: str, domain: str) -> str:
    """`<stable_id@domain>`: the same outbox row always gives the same Message-ID.

    A stable id that is a whole Message-ID already (the outbox stores them so) is
    used as it is; anything else is reduced to safe characters under `domain`.
    """
    if _MSGID_RE.match(stable_id):
        return stable_id
    local = re.sub(r"[^A-Za-z0-9.\-_+]", "", stable_id.strip("<>").split("@")[0])
    if not local:
        raise AddressError(f"{stable_id!r} gives an empty Message-ID")
    return f"<{local}@{domain}>"


def thread_root(game_id: object, seat_id: object, domain: str) -> str:
    """The per-game, per-player conversation every mail of the game refers to."""
    return message_id(f"game-{game_id}-seat-{seat_id}", domain)


def plus_address(base: str, token: str) -> str:
    """`play@example.org` + token → `play+token@example.org` (subaddressing, RFC 5233)."""
    local, domain = split_address(base)
    local = local.split("+", 1)[0]
    return f"{local}+{token}@{domain}"


def plus_tokens(base: str, addresses: Iterable[str]) -> list[str]:
    """Every `+detail` of addresses that belong to the base mailbox (case-insensitive)."""
    base_local, base_domain = split_address(base)
    base_local = base_local.split("+", 1)[0].lower()
    found: list[str] = []
    for _name, addr in getaddresses(list(addresses)):
        if addr.count("@") != 1:
            continue
        local, domain = addr.rsplit("@", 1)
        if domain.lower() != base_domain.lower() or "+" not in local:
            continue
        head, detail = local.split("+", 1)
        if head.lower() == base_local and detail and detail not in found:
            found.append(detail)
    return found


def standard_headers(
    *,
    sender: Address,
    to: Address,
    subject: str,
    msg_id: str,
    root: str | None,
    reply_to: str | None,
    unsubscribe_url: str | None,
    unsubscribe_mailto: str | None = None,
    date: str,
    list_id: str | None = None,
    auto_replied: bool = False,
    bulk: bool = False,
) -> list[tuple[str, str]]:
    """The headers every dicepost mail carries, from cleaned values only, encoded for the
    wire (service.mail.mime.header_block writes them)."""
    fields = [("From", mime.address(sender)), ("To", mime.address(to)),
              ("Subject", mime.unstructured(clean_header_text(subject, 200))),
              ("Date", date), ("Message-ID", msg_id)]
    if root:
        fields += [("In-Reply-To", root), ("References", root)]
    if reply_to:
        fields.append(("Reply-To", mime.address(mailbox(sender.display_name, reply_to))))
    links = []
    if unsubscribe_url:
        links.append(f"<{clean_header_text(unsubscribe_url, 400)}>")
    if unsubscribe_mailto:
        links.append(f"<mailto:{clean_header_text(unsubscribe_mailto, 200)}?subject=unsubscribe>")
    if links:
        fields.append(("List-Unsubscribe", mime.unstructured(", ".join(links))))
        if unsubscribe_url:
            fields.append(("List-Unsubscribe-Post", "List-Unsubscribe=One-Click"))
    if list_id:
        fields.append(("List-Id", list_id))
    # RFC 3834: an answer to a person's mail is auto-replied, anything else dicepost sends on
    # its own is auto-generated; either way robots (vacation replies) must not answer us,
    # which breaks mail loops.
    fields.append(("Auto-Submitted", "auto-replied" if auto_replied else "auto-generated"))
    if bulk:  # the de-facto header vacation responders and providers read for notifications
        fields.append(("Precedence", "bulk"))
    return fields


def list_id(game_id: object, title: object, domain: str) -> str:
    """`"Title" <game-id.domain>` (RFC 2919): one list per game, for a player's filters."""
    label = re.sub(r"[^A-Za-z0-9\-]", "-", str(game_id)).strip("-").lower() or "game"
    phrase = clean_header_text(title, 80).replace("\\", "").replace('"', "'")
    if not phrase:
        return f"<{label}.{domain}>"
    shown = mime.phrase(phrase) if not phrase.isascii() else f'"{phrase}"'
    return f"{shown} <{label}.{domain}>"


# Reading incoming mail.

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
