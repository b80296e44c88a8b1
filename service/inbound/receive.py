"""Incoming mail, one code path for every way in (MTA pipe, webhook, IMAP poller).

receive(raw) stores the raw message first, deduplicated by Message-ID, and commits;
only then is it processed. A crash after the store loses nothing: the row stays
`stored` and process_pending() picks it up (the IMAP poll and `dicepost mail-ingest
--pending` call it). A second delivery of the same message is recognised and not
processed again.

Processing: mail from robots (auto-replies, bounces, lists, our own mail) is set aside
without an answer, which keeps mail loops out. Anything else must carry a valid signed
token (service.inbound.identify); without one the sender gets a polite refusal and
nothing is stored against any game. With one, the body is read (service.inbound.body,
service.inbound.reply_text) and becomes orders or a command for that seat, for the round
the mail answers (service.inbound.answered). Orders are stored in the same transaction
that records the mail as processed and queues its answer, so a crash leaves either
both or neither: a retried mail is never stored twice nor carried into a later round.
A message that makes processing fail is marked `failed` with the error, its raw bytes
kept for a person to look at.
"""

from __future__ import annotations

import hashlib
import logging
import re
from dataclasses import dataclass, replace
from datetime import timedelta
from email.message import EmailMessage

from flask import current_app
from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from engine.contract import InvariantError
from service import address_confirm, clock
from service.db import session_scope
from service.inbound import bounces
from service.inbound.answered import answered_message, answered_round
from service.inbound.answers import queue_answer, queue_refusal
from service.inbound.body import body_text, parse_message
from service.inbound.commands import Done, Reply, perform, read_reply
from service.inbound.identify import answered_seats, candidate_tokens, identify, sender_address
from service.inputs import address_key, storable, text_problem
from service.mail.headers import addresses, raw_values, text_value
from service.mail.settings import MailSettings, mail_settings
from service.models import InboundMail, Seat

log = logging.getLogger(__name__)

MAX_RAW_BYTES = 2 * 1024 * 1024
# No mail a player writes has more parts: bounding them bounds the parse (40,000 parts took
# 20 s) and the nesting (1,000 levels overflowed the parser's recursion).
MAX_PARTS = 200
_PART_HEADER = re.compile(rb"(?im)^content-type:")


def too_large(raw: bytes) -> str | None:
    """Why the mail is refused unread, or None."""
    if len(raw) > MAX_RAW_BYTES:
        return f"messages are limited to {MAX_RAW_BYTES} bytes"
    if len(_PART_HEADER.findall(raw, 0, len(raw))) > MAX_PARTS:
        return f"messages are limited to {MAX_PARTS} MIME parts"
    return None
STUCK_AFTER = timedelta(minutes=10)


@dataclass(frozen=True)
class Outcome:
    inbound_id: int | None
    status: str  # processed, refused, ignored, failed, duplicate, too_large
    detail: str


def message_key(msg: EmailMessage, raw: bytes) -> str:
    """The Message-ID, or for mail without one a digest of its bytes (same bytes, same key)."""
    mid = text_value(msg, "Message-ID")
    if mid and len(mid) <= 900 and mid.isascii() and mid.isprintable():
        return mid
    return f"<sha256-{hashlib.sha256(raw).hexdigest()}@inbound.dicepost>"


def receive(raw: bytes) -> Outcome:
    """Store, then process, one RFC 5322 message."""
    refused = too_large(raw)
    if refused:
        return Outcome(None, "too_large", refused)
    key = message_key(parse_message(raw), raw)
    with session_scope() as session:
        try:
            with session.begin():
                found = session.scalars(select(InboundMail).where(InboundMail.message_id == key)).first()
                if found is not None:
                    return Outcome(found.id, "duplicate", f"already received as #{found.id} ({found.status})")
                row = InboundMail(message_id=key, raw=raw, status="stored", received_at=clock.now())
                session.add(row)
                session.flush()
                inbound_id = row.id
        except IntegrityError:  # the same message arrived twice at the same moment
            return Outcome(None, "duplicate", "already received")
    return process(inbound_id)


def process(inbound_id: int) -> Outcome:
    """Process one stored message exactly once (a conditional UPDATE claims it)."""
    settings = mail_settings(current_app.config)
    with session_scope() as session:
        with session.begin():
            claimed = session.execute(
                update(InboundMail).where(InboundMail.id == inbound_id, InboundMail.status == "stored")
                .values(status="processing").execution_options(synchronize_session=False))
            if claimed.rowcount != 1:  # type: ignore[attr-defined]
                return Outcome(inbound_id, "duplicate", "already processed")
        try:
            return _process(session, settings, inbound_id)
        except Exception as exc:  # the raw message stays stored; a person can look at it
            log.exception("inbound mail %s could not be processed", inbound_id)
            session.rollback()
            error = f"error: {type(exc).__name__}: {exc}"[:4000]
            with session.begin():  # kept for the operator, in text every backend stores
                session.execute(update(InboundMail).where(InboundMail.id == inbound_id)
                                .values(status="failed", result=storable(error)))
            # The sender sees no exception text (it may quote SQL or a driver's message).
            return Outcome(inbound_id, "failed", f"the mail could not be processed; it is kept as "
                                                 f"#{inbound_id} for the operator to look at")


def _process(session: Session, settings: MailSettings, inbound_id: int) -> Outcome:
    with session.begin():
        row = session.get(InboundMail, inbound_id)
        if row is None:
            raise InvariantError(f"inbound mail {inbound_id} is gone")
        msg = parse_message(row.raw)
        seat, reply, unanswered = _triage(session, settings, row, msg)
        bound = answered_round(session, msg, seat, row.received_at) if seat is not None else None
        if seat is not None and reply.command == "orders" and reply.message is None:
            # A reply to a table message answers it; orders come by replying to game mail.
            to = answered_message(session, msg, seat)
            if to is not None:
                reply = replace(reply, command="msg", text="", message=(to, reply.text))
    if seat is None:
        return _logged(inbound_id, *unanswered)
    seat_id = seat.id

    def finish(within: Session, done: Done) -> None:
        """The mail's answers and outcome, in the caller's transaction."""
        writer = within.get(Seat, seat_id)
        mail = within.get(InboundMail, inbound_id)
        if writer is None or mail is None:
            raise InvariantError(f"inbound mail {inbound_id} or its seat is gone")
        for kind, payload in done.answers:
            queue_answer(within, writer.game, writer, kind, payload)
        _record(mail, "processed", f"{writer.name}: {done.detail}", writer.game_id)

    done = perform(session, seat, reply, bound, finish)
    if not done.recorded:
        with session.begin():
            finish(session, done)
    return _logged(inbound_id, "processed", done.detail)


def _triage(session: Session, settings: MailSettings, row: InboundMail,
            msg: EmailMessage) -> tuple[Seat | None, Reply, tuple[str, str]]:
    """The seat that wrote and what it wrote; without a seat, the row is recorded here as
    ignored (a robot) or refused (no valid token, a refusal queued) and the pair says so."""
    subject = text_value(msg, "Subject")
    reply = read_reply(body_text(msg), subject)
    bounce = bounces.handle(session, settings, msg)
    if bounce is not None:
        _record(row, "ignored", bounce[0], bounce[1])
        return None, reply, ("ignored", bounce[0])
    robot = _robot(msg, settings)
    if robot:
        _record(row, "ignored", robot, None)
        return None, reply, ("ignored", robot)
    who = identify(session, settings, candidate_tokens(msg, reply.tokens, settings, reply.quoted_tokens,
                                                       answered_seats(session, msg)))
    if who.seat is None:
        detail = _refuse(session, settings, msg, subject, who.reason)
        _record(row, "refused", detail, None)
        return None, reply, ("refused", detail)
    problem = text_problem(f"{subject}\n{reply.text}\n{' '.join(reply.args)}")
    if problem:  # the same check as the web's: such text cannot be stored, so say why
        message = (f"Your mail could not be taken: its text {problem}. Nothing was stored; "
                   "send your orders again as plain text.")
        queue_answer(session, who.seat.game, who.seat, "status", {"message": message})
        _record(row, "refused", f"{who.seat.name}: the text {problem}", who.seat.game_id)
        return None, reply, ("refused", f"the text {problem}")
    if who.seat.email and who.seat.email in map(address_key, addresses(msg, ("From",))):
        # The seat's player wrote from its address: as sure a sign they read it as a link.
        address_confirm.confirm(session, who.seat.email, "mail")
    return who.seat, reply, ("", "")


def _refuse(session: Session, settings: MailSettings, msg: EmailMessage, subject: str,
            reason: str) -> str:
    to = address_key(sender_address(msg))  # counted per mailbox, however its case is written
    queued = to is not None and queue_refusal(
        session, to, f"dicepost could not tell which player sent it: {reason}.", subject) is not None
    return reason + ("" if queued else " (no refusal sent: too many to this address)")


def _record(row: InboundMail, status: str, detail: str, game_id: str | None) -> None:
    row.status = "refused" if status == "refused" else "processed"
    row.result = f"{status}: {detail}"[:4000]
    row.game_id = game_id


def _logged(inbound_id: int, status: str, detail: str) -> Outcome:
    log.info("inbound mail %s: %s: %s", inbound_id, status, detail)
    return Outcome(inbound_id, status, detail)


def _robot(msg: EmailMessage, settings: MailSettings) -> str | None:
    """Why this mail is from a machine and must not be answered (RFC 3834), else None."""
    auto = (text_value(msg, "Auto-Submitted") or "no").lower()
    if auto != "no":
        return f"Auto-Submitted: {auto}"
    if text_value(msg, "Precedence").lower() in ("bulk", "junk", "list"):
        return "a bulk or list message"
    if msg.get_content_type() == "multipart/report" or raw_values(msg, "X-Failed-Recipients"):
        return "a delivery report"
    sender = (sender_address(msg) or "").lower()
    if not sender or sender.split("@")[0] in ("mailer-daemon", "postmaster"):
        return "no sender to answer"
    if sender == settings.sender.lower():
        return "our own mail"
    return None


def process_pending() -> list[Outcome]:
    """Process what was stored but never processed: after a crash, or a claim that died."""
    stuck_before = clock.now() - STUCK_AFTER
    with session_scope() as session, session.begin():
        session.execute(update(InboundMail).where(InboundMail.status == "processing",
                                                  InboundMail.received_at <= stuck_before)
                        .values(status="stored").execution_options(synchronize_session=False))
        ids = list(session.scalars(select(InboundMail.id).where(InboundMail.status == "stored")
                                   .order_by(InboundMail.id).limit(200)))
    return [process(i) for i in ids]
