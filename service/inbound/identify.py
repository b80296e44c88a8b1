"""Who sent an incoming mail: only a valid signed token says so, never the From header.

Tokens are looked for in the plus-part of every address the mail was delivered to
(To, Cc, Delivered-To, X-Original-To, Envelope-To: MTAs and providers keep the
envelope recipient in one of these), in `TOKEN <token>` lines of the body and, last,
in the quoted mail's TOKEN line (for mail systems that drop the plus-part). The first
token whose signature checks against its seat's salt names the seat.

A TOKEN line can be written into a message to another player (or anything else quoted),
so a reply is bound to its recipient's own token: the quoted TOKEN lines are tried last
first (our footer, with the recipient's token, ends each mail; text someone wrote sits
above it), and when the mail answers a mail of ours (In-Reply-To, References), a TOKEN
line naming another seat than the one that mail went to is not taken.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from email.message import EmailMessage

from sqlalchemy import select
from sqlalchemy.orm import Session

from service.inbound.answered import referenced_ids
from service.mail.headers import addresses, plus_tokens
from service.mail.settings import MailSettings
from service.mail.tokens import Purpose, TokenError, parse_token, verify_token
from service.models import Outbox, Seat

RECIPIENT_HEADERS = ("To", "Cc", "Delivered-To", "X-Original-To", "Envelope-To", "X-Envelope-To")


@dataclass(frozen=True)
class Identified:
    seat: Seat | None
    reason: str  # why nobody was identified (empty when a seat was)


def answered_seats(session: Session, msg: EmailMessage) -> set[int]:
    """The seats the mails of ours that this mail answers went to (none: it answers none)."""
    ids = referenced_ids(msg)
    if not ids:
        return set()
    return {s for s in session.scalars(select(Outbox.seat_id).where(
        Outbox.message_id.in_(ids), Outbox.seat_id.is_not(None))) if s is not None}


def _names_seat(token: str, seats: set[int]) -> bool:
    try:
        seat_id = parse_token(token).seat_id
    except TokenError:
        return False
    return seat_id.isdigit() and int(seat_id) in seats


def candidate_tokens(msg: EmailMessage, body_tokens: Sequence[str], settings: MailSettings,
                     quoted: Sequence[str] = (), answered: set[int] | None = None) -> list[str]:
    """Plus-parts of the recipient addresses first, then TOKEN lines, then quoted ones,
    the last quoted first; with `answered` (answered_seats), only TOKEN lines of those seats."""
    found = plus_tokens(settings.reply_base, addresses(msg, RECIPIENT_HEADERS))
    for token in [*body_tokens, *reversed(quoted)]:
        if token not in found and (not answered or _names_seat(token, answered)):
            found.append(token)
    return found


def verified_seat(session: Session, settings: MailSettings, purpose: Purpose, text: str) -> Seat | None:
    """The seat a token names, if its signature checks for this purpose; else None."""
    try:
        parsed = parse_token(text)
    except TokenError:
        return None
    seat = session.get(Seat, int(parsed.seat_id)) if parsed.seat_id.isdigit() else None
    if seat is None or not verify_token(settings.secret_key, purpose, parsed, seat.reply_token_salt or ""):
        return None
    return seat


def identify(session: Session, settings: MailSettings, tokens: Sequence[str]) -> Identified:
    if not tokens:
        return Identified(None, "it carries no dicepost token (it was not a reply to a game mail "
                                "and has no TOKEN line)")
    for text in tokens:
        seat = verified_seat(session, settings, "reply", text)
        if seat is not None:
            return Identified(seat, "")
    return Identified(None, "its token is not valid (mistyped, from another server, or revoked)")


def sender_address(msg: EmailMessage) -> str | None:
    """Where a refusal or answer to an unidentified sender goes: Reply-To, else From."""
    for name in ("Reply-To", "From"):
        for addr in addresses(msg, (name,)):
            if not any(c in addr for c in " \r\n<>"):
                return addr
    return None
