"""Due reminders become outbox rows keyed by (seat, round, deadline).

The key makes the row's Message-ID, which the outbox holds unique: two sweepers queueing
the same reminder leave one row (service.mail.queue.enqueue) and nothing is sent twice. A moved deadline
(pause, extension) has a new key, so the player is reminded of the new one.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from engine.contract import InvariantError
from service.mail.queue import enqueue
from service.models import Game, Round, Seat
from service.schedule.durations import describe_duration, format_duration
from service.schedule.reminders import reminder_due, reminder_key
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
    payload = {"round": rnd.number, "deadline": rnd.closes_at.isoformat(), "lead": describe_duration(lead),
               "lead_iso": format_duration(lead), "title": game.title}
    return enqueue(session, "reminder", payload, game=game, seat=seat,
                   key=reminder_key(seat.id, rnd.number, rnd.closes_at)) is not None
