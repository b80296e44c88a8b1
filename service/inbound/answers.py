"""Outbox rows that answer a mail someone sent: refusals, status, help, order errors.

An answer goes out whatever the player's mail preference says (they asked for it by
writing), so it is marked `"answer": true`; both go through service.mail.outbox.enqueue.
Refusals go to strangers, so they are rate-limited per address: a flood
of forged mail must not turn dicepost into a source of backscatter.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from service import clock, limit_lock
from service.mail.headers import clean_header_text
from service.mail.outbox import enqueue
from service.models import Game, Outbox, Seat

REFUSALS_PER_HOUR = 3


def queue_answer(session: Session, game: Game, seat: Seat, kind: str,
                 payload: dict[str, Any]) -> Outbox | None:
    """An answer to the seat's own mail (None if the seat has no address)."""
    return enqueue(session, kind, payload, game=game, seat=seat, answer=True)


def queue_refusal(session: Session, to: str, reason: str, subject: str) -> Outbox | None:
    """A polite refusal to whoever sent an unusable mail; None when the limit is reached.

    `to` is in normal form (service.inputs.normal_address), so the count is per mailbox."""
    limit_lock.hold(session, "refusals", to)  # until the refusal is queued
    since = clock.now() - timedelta(hours=1)
    recent = session.scalar(select(func.count()).select_from(Outbox).where(
        Outbox.kind == "refusal", Outbox.to_address == to, Outbox.created_at >= since)) or 0
    if recent >= REFUSALS_PER_HOUR:
        return None
    return enqueue(session, "refusal", {"reason": reason, "subject": clean_header_text(subject, 120)}, to=to)
