"""Bounces back to seats: a per-recipient return path out, delivery reports in.

Out: the SMTP envelope sender of every mail to a seat is `bounce+<seat>-<outbox>.<mac>@
MAIL_DOMAIN` (VERP), the MAC keyed for the "bounce" purpose from SECRET_KEY and the seat's
salt like the Reply-To tokens (service.mail.tokens), so a report names the seat and the
outbox row it answers, and nobody can make one up for another seat.

In: a delivery status notification (RFC 3464 multipart/report, what Postfix, Gmail,
Outlook and most servers send) or a plain bounce (X-Failed-Recipients and the reply in
the text, as Exim writes it) is read for the enhanced status code of each failed
recipient. The seat comes from the signed return path; failing that, only from a delivery
status notification (multipart/report) quoting the original Message-ID, and only one that
carries its MAC under SECRET_KEY (service.mail.outbox.message_id_for): a forger knows a
game's id and its rounds, never that. A plain bounce without the return path names nobody.

A hard failure (5.x.x) marks the address failing at once; soft ones (4.x.x) do after
SOFT_BOUNCES of them within SOFT_BOUNCE_DAYS. A failing address gets no more mail
(service.outbound.deliver skips it) except the sign-in links its owner asks for; the player's
pages show it, the GM console lists it, and the other players of the game are told.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta
from email.message import EmailMessage, Message
from email.parser import HeaderParser

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from service import clock
from service.audit import audit
from service.inbound.identify import RECIPIENT_HEADERS
from service.mail.headers import addresses, plus_tokens, raw_values
from service.mail.outbox import enqueue, failing, ours
from service.mail.settings import BOUNCE_LOCAL, MailSettings
from service.mail.tokens import SignedSeat, TokenError, parse_token, verify_token
from service.models import FailingAddress, Game, MailBounce, Outbox, Seat

_STATUS_RE = re.compile(r"\b([245])\.(\d{1,3})\.(\d{1,3})\b")
_SMTP_RE = re.compile(r"(?m)(?:^|\s)([45])\d\d[ -]")
_MSGID_RE = re.compile(r"(?im)^message-id:\s*(<[^>\s]+>)")


@dataclass(frozen=True)
class Report:
    """What a bounce says: the failed recipients' status, and the mail it answers."""

    status: str  # 5.1.1; 4.0.0 or 5.0.0 when only an SMTP reply code is given
    diagnostic: str
    original_id: str | None  # the bounced mail's Message-ID, when quoted

    @property
    def hard(self) -> bool:
        return self.status.startswith("5.")


def _fields(part: Message) -> list[Message]:
    """The field blocks of a message/delivery-status part (the per-message one first)."""
    payload = part.get_payload()
    if isinstance(payload, list):
        return [p for p in payload if isinstance(p, Message)]
    text = payload if isinstance(payload, str) else ""
    return [HeaderParser().parsestr(block + "\n") for block in re.split(r"\r?\n\r?\n", text) if block.strip()]


def _original_id(msg: Message) -> str | None:
    for part in msg.walk():
        ctype = part.get_content_type()
        if ctype in ("message/rfc822", "message/global"):
            inner = part.get_payload()
            first = inner[0] if isinstance(inner, list) and inner else None
            if isinstance(first, Message) and first.get("Message-ID"):
                return str(first["Message-ID"]).strip()
        if ctype in ("text/rfc822-headers", "text/plain"):
            text = part.get_payload(decode=True)
            found = _MSGID_RE.findall(text.decode("utf-8", "replace") if isinstance(text, bytes) else "")
            if found:
                return str(found[-1])
    return None


def read_report(msg: EmailMessage) -> Report | None:
    """The failure a bounce reports, or None when the mail is no bounce (or a success DSN)."""
    if msg.get_content_type() == "multipart/report":
        for part in msg.walk():
            if part.get_content_type() not in ("message/delivery-status", "message/global-delivery-status"):
                continue
            for block in _fields(part)[1:] or _fields(part):
                action = str(block.get("Action", "")).strip().lower()
                status = _STATUS_RE.search(str(block.get("Status", "")))
                if action in ("failed", "delayed") and status:
                    diag = " ".join(str(block.get("Diagnostic-Code", "")).split())
                    return Report(".".join(status.groups()), diag[:500], _original_id(msg))
            return None
    if not raw_values(msg, "X-Failed-Recipients") and not _from_a_mailer(msg):
        return None
    text = _plain_text(msg)
    status = _STATUS_RE.search(text)
    if status:
        code = ".".join(status.groups())
    else:
        smtp = _SMTP_RE.search(text)
        code = f"{smtp.group(1)}.0.0" if smtp else "4.0.0"  # no reason given: count it as soft
    line = next((ln.strip() for ln in text.splitlines() if status and status.group(0) in ln), "")
    return Report(code, " ".join(line.split())[:500], _original_id(msg))


def _from_a_mailer(msg: EmailMessage) -> bool:
    sender = (addresses(msg, ("From",)) or [""])[0].lower()
    return sender.split("@")[0] in ("mailer-daemon", "postmaster")


def _plain_text(msg: EmailMessage) -> str:
    parts = []
    for part in msg.walk():
        if part.get_content_maintype() == "text":
            data = part.get_payload(decode=True)
            if isinstance(data, bytes):
                parts.append(data.decode(part.get_content_charset() or "utf-8", "replace"))
    return "\n".join(parts)


def answered_row(session: Session, settings: MailSettings, msg: EmailMessage,
                 report: Report) -> tuple[Seat, Outbox | None] | None:
    """The seat (and outbox row) a bounce answers: the signed return path, else the quoted
    Message-ID of a mail we sent to a seat."""
    for text in plus_tokens(f"{BOUNCE_LOCAL}@{settings.domain}", addresses(msg, RECIPIENT_HEADERS)):
        found = _verified(session, settings, text)
        if found is not None:
            return found
    if report.original_id and msg.get_content_type() == "multipart/report" \
            and ours(settings.secret_key, report.original_id):
        row = session.scalars(select(Outbox).where(Outbox.message_id == report.original_id)).first()
        if row is not None and row.seat_id is not None:
            seat = session.get(Seat, row.seat_id)
            if seat is not None:
                return seat, row
    return None


def _verified(session: Session, settings: MailSettings, text: str) -> tuple[Seat, Outbox | None] | None:
    try:
        parsed = parse_token(text)
    except TokenError:
        return None
    seat_part, _, outbox_part = parsed.seat_id.partition("-")
    if not (seat_part.isdigit() and outbox_part.isdigit()):
        return None
    seat = session.get(Seat, int(seat_part))
    if seat is None or not verify_token(settings.secret_key, "bounce", SignedSeat(parsed.seat_id, parsed.mac),
                                        seat.reply_token_salt or ""):
        return None
    return seat, session.get(Outbox, int(outbox_part))


def record(session: Session, settings: MailSettings, seat: Seat, row: Outbox | None, report: Report) -> str:
    """Store one bounce against the seat's address; mark the address failing when it is hard
    or the soft ones reached the limit. Returns what happened, for the inbound row."""
    address = ((row.to_address if row is not None else None) or seat.email or "").strip().lower()
    now = clock.now()
    session.add(MailBounce(address=address, seat_id=seat.id, outbox_id=row.id if row else None, at=now,
                           hard=report.hard, status=report.status, diagnostic=report.diagnostic or ""))
    session.flush()
    what = f"{'hard' if report.hard else 'soft'} bounce {report.status} for {seat.name}"
    if failing(session, address) is not None:
        return what + " (already failing)"
    if not report.hard:
        since = now - timedelta(days=settings.soft_bounce_days)
        count = session.scalar(select(func.count()).select_from(MailBounce).where(
            MailBounce.address == address, MailBounce.hard.is_(False), MailBounce.at >= since)) or 0
        if count < settings.soft_bounces:
            return what + f" ({count} of {settings.soft_bounces} within {settings.soft_bounce_days} days)"
    reason = f"{report.status} {report.diagnostic}".strip()[:500]
    session.add(FailingAddress(address=address, since=now, reason=reason, seat_id=seat.id))
    game = session.get(Game, seat.game_id)
    if game is not None:
        audit(session, game.id, "mail", "mail_failing", {"seat": seat.name, "reason": reason})
        _tell_the_others(session, game, seat, reason)
    return what + ": the address is now failing"


def _tell_the_others(session: Session, game: Game, seat: Seat, reason: str) -> None:
    for other in game.seats:
        if other.id != seat.id and other.email and failing(session, other.email) is None:
            enqueue(session, "unreachable", {"seat": seat.name, "reason": reason}, game=game, seat=other)


def handle(session: Session, settings: MailSettings, msg: EmailMessage) -> tuple[str, str | None] | None:
    """(what happened, the game) when the mail is a bounce; None when it is not one.

    The caller owns the transaction."""
    report = read_report(msg)
    if report is None:
        return None
    found = answered_row(session, settings, msg, report)
    if found is None:
        return f"a bounce ({report.status}) for no mail of ours", None
    seat, row = found
    return record(session, settings, seat, row, report), seat.game_id
