"""Stored orders: every version a seat sends in a round, and which one counts.

`submission_row` is the one place a `Submission` row's columns are made and its version
counted (web, API, mail, bot, standing orders and a mail's withdrawal; `store_submission` adds it as an ORM
object, `service.submit` inserts it with SQL of its own): versions of a seat in a round
are 1, 2, 3, ... under the round's lock (`lock_round`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Table, bindparam, func, select
from sqlalchemy.orm import Session

from service.db import table_of
from service.models import Round, Seat, Submission

SOURCES = ("web", "api", "mail", "bot", "standing")  # standing: service.standing


def store_submission(session: Session, rnd: Round, seat: Seat, text: str, accepted: str, source: str,
                     at: datetime, known: Sequence[Submission] | None = None) -> Submission:
    """Add the seat's next version of its orders for the round (the caller holds the round's
    lock). An empty `accepted` is a withdrawal. `known`: every submission of the round, when
    the caller has already read them (saves a query)."""
    if known is None:
        last = int(session.scalar(select(func.max(Submission.version)).where(
            Submission.round_id == rnd.id, Submission.seat_id == seat.id)) or 0)
    else:
        last = max((sub.version for sub in known if sub.seat_id == seat.id), default=0)
    sub = Submission(**submission_row(rnd.id, seat.id, last, text, accepted, source, at)[1])
    session.add(sub)
    return sub


def submission_row(round_id: int, seat_id: int, last_version: int, text: str, accepted: str, source: str,
                   at: datetime) -> tuple[Table, dict[str, Any]]:
    """The table and columns of the seat's next version (after `last_version`, read under the
    round's lock), for service.db.insert_together or an ORM object."""
    if source not in SOURCES:
        raise ValueError(f"unknown submission source {source!r}")
    return table_of(Submission), {"seat_id": seat_id, "round_id": round_id, "version": last_version + 1,
                                  "text": text, "accepted": accepted, "source": source, "created_at": at}


def lock_round(session: Session, game_id: str, number: int) -> Round | None:
    return session.scalars(select(Round).where(Round.game_id == game_id, Round.number == number)
                           .with_for_update()).first()


def round_submissions(session: Session, round_id: int) -> list[Submission]:
    """Every version of the round, oldest first."""
    return list(session.scalars(_ROUND_SUBMISSIONS, {"round_id": round_id}))


_ROUND_SUBMISSIONS = (select(Submission).where(Submission.round_id == bindparam("round_id"))
                      .order_by(Submission.version))  # built once: building costs more than running


def latest_submissions(session: Session, round_id: int) -> dict[int, Submission]:
    """seat id → its latest submission of the round (the one that counts).

    A version with an empty accepted text is a withdrawal (mail's CLEAR; a real
    submission is never empty, format_orders writes "pass"): that seat has none.
    """
    return latest_of(round_submissions(session, round_id))


def latest_of(subs: Sequence[Submission]) -> dict[int, Submission]:
    """latest_submissions of these rows (every version of a round, oldest first)."""
    latest: dict[int, Submission] = {}
    for sub in subs:
        latest[sub.seat_id] = sub
    return {seat_id: sub for seat_id, sub in latest.items() if sub.accepted}
