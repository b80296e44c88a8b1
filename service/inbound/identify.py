"""Who sent an incoming mail: only a valid signed token says so, never the From header.

Tokens are looked for in the plus-part of every address the mail was delivered to
(To, Cc, Delivered-To, X-Original-To, Envelope-To: MTAs and providers keep the
envelope recipient in one of these), in `TOKEN <token>` lines of the body and, last,
in the quoted mail's TOKEN line (for mail systems that drop the plus-part). The first
token whose signature checks against its seat's salt names the seat.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from email.message import EmailMessage

from sqlalchemy.orm import Session

from service.mail.headers import addresses, plus_tokens
from service.mail.settings import MailSettings
from service.mail.tokens import Purpose, TokenError, parse_token, verify_token
from service.models import Seat

RECIPIENT_HEADERS = ("To", "Cc", "Delivered-To", "X-Original-To", "Envelope-To", "X-Envelope-To")


@dataclass(frozen=True)
class Identified:
    seat: Seat | None
    reason: str  # why nobody was identified (empty when a seat was)


def candidate_tokens(msg: EmailMessage, body_tokens: Sequence[str], settings: MailSettings,
                     quoted: Sequence[str] = ()) -> list[str]:
    """Plus-parts of the recipient addresses first, then TOKEN lines, then quoted ones."""
    found = plus_tokens(settings.reply_base, addresses(msg, RECIPIENT_HEADERS))
    for token in [*body_tokens, *quoted]:
        if token not in found:
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
