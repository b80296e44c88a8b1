"""Due reminders become outbox rows whose message id is unique per (seat, round, deadline).

Two sweepers inserting the same reminder collide on the outbox's unique message_id: the
second insert is rolled back to its savepoint and nothing is sent twice. A moved deadline
(pause, extension) has a new key, so the player is reminded of the new one.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from engine.contract import InvariantError
from service.models import Game, Outbox, Round, Seat
from service.notify import WANTS, mail_domain
from service.schedule.durations import describe_duration, format_duration
from service.schedule.reminders import reminder_due, reminder_key
from service.tasks import deliver_after_commit
from service.timekeeping.state import expected_humans, reminder_lead, seat_schedule, submitted_names


def send_due_reminders(session: Session, at: datetime) -> int:
    """Queue every reminder due at `at`; the number queued by this call."""
    queued = 0
    with session.begin():
        rounds = session.execute(
            select(Round, Game).join(Game, Game.id == Round.game_id).where(
                Round.status == "open", Round.closes_at.is_not(None), Round.closes_at > at,
                Game.status == "active", Game.paused_at.is_(None)).order_by(Round.id)).all()
        for rnd, game in rounds:
            done = submitted_names(session, game, rnd)
            for seat in expected_humans(session, game, rnd):
                if seat.name in done:
                    continue
                lead = reminder_lead(seat_schedule(session, seat))
                if reminder_due(at, rnd.opened_at, rnd.closes_at, lead):
                    queued += _queue(session, game, rnd, seat, lead)
    return queued


def _queue(session: Session, game: Game, rnd: Round, seat: Seat, lead: timedelta) -> bool:
    if rnd.closes_at is None:
        raise InvariantError(f"round {rnd.number} of game {game.id} has no deadline to remind of")
    if not seat.email or "reminder" not in WANTS.get(seat.mail_pref, set()):
        return False
    message_id = f"<{reminder_key(game.id, seat.name, rnd.number, rnd.closes_at)}@{mail_domain()}>"
    if session.scalar(select(Outbox.id).where(Outbox.message_id == message_id)) is not None:
        return False
    row = Outbox(game_id=game.id, seat_id=seat.id, kind="reminder", message_id=message_id,
                 to_address=seat.email, status="pending", attempts=0,
                 payload={"round": rnd.number, "deadline": rnd.closes_at.isoformat(),
                          "lead": describe_duration(lead), "lead_iso": format_duration(lead),
                          "title": game.title})
    try:
        with session.begin_nested():
            session.add(row)
    except IntegrityError:  # another sweeper queued it between our check and insert
        return False
    deliver_after_commit(session, row)
    return True
