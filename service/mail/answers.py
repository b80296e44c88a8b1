"""Outbox rows that answer a mail someone sent: refusals, status, help, order errors.

An answer goes out whatever the player's mail preference says (they asked for it by
writing), so it is marked `"answer": true`; service.notify.queue_mail stays the way
to queue news. Refusals go to strangers, so they are rate-limited per address: a flood
of forged mail must not turn dicepost into a source of backscatter.
"""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from service import clock
from service.mail.headers import clean_header_text
from service.models import Game, Outbox, Seat
from service.tasks import deliver_after_commit

REFUSALS_PER_HOUR = 3


def _insert(session: Session, game_id: str | None, seat_id: int | None, kind: str,
            to: str, payload: dict[str, Any], domain: str) -> Outbox:
    row = Outbox(game_id=game_id, seat_id=seat_id, kind=kind, payload=payload, to_address=to,
                 message_id=f"<{game_id or 'mail'}.{kind}.{secrets.token_hex(8)}@{domain}>",
                 status="pending", attempts=0, created_at=clock.now())
    session.add(row)
    session.flush()
    deliver_after_commit(session, row)
    return row


def queue_answer(session: Session, game: Game, seat: Seat, kind: str,
                 payload: dict[str, Any], domain: str) -> Outbox | None:
    """An answer to the seat's own mail (None if the seat has no address)."""
    if not seat.email:
        return None
    return _insert(session, game.id, seat.id, kind, seat.email, {**payload, "answer": True}, domain)


def queue_refusal(session: Session, to: str, reason: str, subject: str,
                  domain: str) -> Outbox | None:
    """A polite refusal to whoever sent an unusable mail; None when the limit is reached.

    `to` is in normal form (service.inputs.normal_address), so the count is per mailbox."""
    since = clock.now() - timedelta(hours=1)
    recent = session.scalar(select(func.count()).select_from(Outbox).where(
        Outbox.kind == "refusal", Outbox.to_address == to, Outbox.created_at >= since)) or 0
    if recent >= REFUSALS_PER_HOUR:
        return None
    return _insert(session, None, None, "refusal", to,
                   {"reason": reason, "subject": clean_header_text(subject, 120)}, domain)
