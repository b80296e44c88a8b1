"""Outbox rows for the mail part, inserted in the transaction that makes the news.

The rows are delivered by `service.mail.outbox.deliver(outbox_id)` through the
`worker.tasks.deliver_mail` task; their ids are rung after COMMIT (service.doorbell).
"""

from __future__ import annotations

import secrets
from typing import Any

from flask import current_app, has_app_context
from sqlalchemy.orm import Session

from engine.contract import InvariantError
from service.mail.settings import DEFAULT_DOMAIN, message_domain
from service.models import Game, Outbox, Seat
from service.tasks import deliver_after_commit

KINDS = ("invitation", "confirmation", "results", "reminder", "game_over", "refusal", "status", "help",
         "login", "unreachable")  # login: a dashboard sign-in link, to an address, no game (service.signin)
# Which kinds a seat's mail_pref lets through.
WANTS = {"all": set(KINDS),
         "results": {"invitation", "results", "game_over", "refusal", "help", "unreachable"},
         "none": {"invitation", "refusal", "help"}}


def mail_domain() -> str:
    return message_domain(current_app.config) if has_app_context() else DEFAULT_DOMAIN


def queue_mail(session: Session, game: Game, seat: Seat | None, kind: str,
               payload: dict[str, Any]) -> Outbox | None:
    """Insert one pending message for a seat (None when it has no address or wants none)."""
    if kind not in KINDS:
        raise InvariantError(f"not a mail kind: {kind}")
    if seat is not None and (not seat.email or kind not in WANTS.get(seat.mail_pref, set(KINDS))):
        return None
    row = Outbox(
        game_id=game.id,
        seat_id=seat.id if seat else None,
        kind=kind,
        payload=payload,
        message_id=f"<{game.id}.{kind}.{secrets.token_hex(8)}@{mail_domain()}>",
        to_address=seat.email if seat else None,
        status="pending",
        attempts=0,
    )
    session.add(row)  # flushed with the rest of the transaction (service.tasks.Outgoing.mail_rows)
    deliver_after_commit(session, row)
    return row
