"""Which round a player's mail answers, so its orders never slide into a later round.

A reply names the mail it answers in In-Reply-To and References; that outbox row says
the round it asked about (a results mail of step t asks for round t's orders; a
confirmation or reminder is about its own round). Without such a row (a fresh mail, a
client that drops the headers, a reply to a mail about no round) the round is the one
open in the seat's game when the mail arrived: the inbound row's `received_at`, written
when the raw message is first stored, before any processing (and kept when a crashed
processing is retried, or the same message is delivered again).
"""

from __future__ import annotations

import re
from datetime import datetime
from email.message import EmailMessage

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from service.mail.headers import raw_values
from service.models import Outbox, Round, Seat

_MSGID_RE = re.compile(r"<[^<>\s]{1,900}>")
MAX_REFERENCES = 20  # a long thread's oldest references are the thread root, not a round's mail


def referenced_ids(msg: EmailMessage) -> list[str]:
    """Message-IDs the mail answers, the nearest first: In-Reply-To, then References newest first."""
    found: list[str] = []
    for value in raw_values(msg, "In-Reply-To"):
        found += _MSGID_RE.findall(value)
    for value in raw_values(msg, "References"):
        found += reversed(_MSGID_RE.findall(value))
    return list(dict.fromkeys(found))[:MAX_REFERENCES]


def round_asked(row: Outbox) -> int | None:
    """The round whose orders a mail of ours asked for or was about; None for the others."""
    payload = row.payload or {}
    key = "step" if row.kind == "results" else "round" if row.kind in ("confirmation", "reminder") else None
    value = payload.get(key) if key else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def round_at(session: Session, game_id: str, at: datetime) -> int | None:
    """The round of the game that was open (or closed and not yet resolved) at that instant."""
    return session.scalar(select(Round.number).where(
        Round.game_id == game_id, Round.opened_at <= at,
        or_(Round.resolved_at.is_(None), Round.resolved_at > at)).order_by(Round.number.desc()).limit(1))


def answered_round(session: Session, msg: EmailMessage, seat: Seat, received_at: datetime) -> int | None:
    """The round this seat's mail answers; None when the game had no round open then."""
    ids = referenced_ids(msg)
    if ids:
        rows = {r.message_id: r for r in session.scalars(
            select(Outbox).where(Outbox.message_id.in_(ids), Outbox.seat_id == seat.id))}
        for mid in ids:
            number = round_asked(rows[mid]) if mid in rows else None
            if number is not None:
                return number
    return round_at(session, seat.game_id, received_at)


def answered_message(session: Session, msg: EmailMessage, seat: Seat) -> str | None:
    """Whom a reply to a table message goes to: 'all' for a public one, else its sender
    ('gm' or a seat's name); None when the mail answers no message mail of this seat."""
    ids = referenced_ids(msg)
    if not ids:
        return None
    rows = {r.message_id: r for r in session.scalars(
        select(Outbox).where(Outbox.message_id.in_(ids), Outbox.seat_id == seat.id,
                             Outbox.kind == "message"))}
    for mid in ids:
        if mid in rows:
            payload = rows[mid].payload or {}
            return "all" if payload.get("to") == "all" else str(payload.get("from") or "gm")
    return None
