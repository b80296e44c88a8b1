"""The sweeper: finds recorded work whose doorbell was lost and rings again.

Safe when two run at once: it only reads and rings, and every task is idempotent
(a round resolves once; mail delivery claims its row with a lease). Runs from Celery
beat in full mode and from a daemon thread of `dicepost serve` in embedded mode.
"""

from __future__ import annotations

import logging
import threading
from datetime import timedelta

from flask import Flask, current_app
from sqlalchemy import or_, select

from service import clock
from service.db import session_scope
from service.inbound.imap import poll_configured as poll_mail
from service.models import Game, Outbox, RatedGame, Round
from service.notify import ring_lost
from service.tasks import send_mail, send_ratings, send_rounds
from service.timekeeping.due import sweep_schedule

log = logging.getLogger(__name__)
READY_GRACE = timedelta(seconds=5)  # a fresh doorbell is probably still on its way


def ratings_waiting(grace: timedelta = READY_GRACE) -> bool:
    """A finished game waits for the ratings' worker beyond a fresh doorbell's grace."""
    with session_scope() as session, session.begin():
        return session.scalar(select(RatedGame.game_id).where(
            RatedGame.status == "pending", RatedGame.finished_at <= clock.now() - grace).limit(1)) is not None


def lost_work(grace: timedelta = READY_GRACE) -> tuple[list[tuple[str, int, int]], list[int]]:
    now = clock.now()
    with session_scope() as session, session.begin():
        rounds = [(game_id, number, skipped) for game_id, number, skipped in session.execute(
            select(Round.game_id, Round.number, Game.links_skipped).join(Game, Game.id == Round.game_id)
            .where(Round.status == "ready").order_by(Round.id))]
        mail = list(session.scalars(select(Outbox.id).where(
            Outbox.status.in_(("pending", "sending")),
            or_(Outbox.next_attempt_at.is_(None), Outbox.next_attempt_at <= now),
            or_(Outbox.lease_until.is_(None), Outbox.lease_until <= now),
            Outbox.created_at <= now - grace,
        ).order_by(Outbox.id).limit(500)))
    return rounds, mail


def sweep_and_ring() -> dict[str, int]:

    schedule = sweep_schedule()
    rounds, mail = lost_work()
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    send_rounds(app, rounds)
    send_mail(app, mail)
    if ratings_waiting():
        send_ratings(app)
    poll_mail()  # new mail from IMAP_URL, and inbound mail a crash left unprocessed
    channels = ring_lost(app)  # each notification channel's waiting deliveries (service.notify)
    if rounds or mail:
        log.info("sweeper rang %d rounds and %d mails", len(rounds), len(mail))
    return {"rounds": len(rounds), "mail": len(mail), "closed": schedule.closed,
            "extended": schedule.extended, "reminders": schedule.reminders, **channels}


def start_thread(app: Flask) -> threading.Thread:
    """Embedded mode: sweep every SWEEP_SECONDS in a daemon thread."""
    stop = threading.Event()
    app.extensions["dicepost.sweeper_stop"] = stop

    def loop() -> None:
        while not stop.wait(float(app.config["SWEEP_SECONDS"])):
            try:
                with app.app_context():
                    sweep_and_ring()
            except Exception:
                log.exception("sweep failed; trying again next interval")

    thread = threading.Thread(target=loop, name="dicepost-sweeper", daemon=True)
    thread.start()
    return thread
