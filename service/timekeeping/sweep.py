"""The schedule's part of a sweep: close due rounds (missed-turn policies applied) and
complete rounds whose early close was held back, then queue due reminders. The
lifecycle's sweeper calls `sweep_schedule()` each interval, then sends again the tasks of
whatever is still ready or pending.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from service.clock import Clock, app_clock
from service.db import session_scope
from service.timekeeping.due import close_due_round, close_if_complete, complete_rounds, due_rounds
from service.timekeeping.reminding import send_due_reminders

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ScheduleSweep:
    closed: int
    extended: int
    reminders: int


def sweep_schedule(clock: Clock | None = None) -> ScheduleSweep:
    """One pass. A round that fails (damaged data) is logged and left; the others go on."""
    at = (clock or app_clock()).now()
    closed = extended = 0
    with session_scope() as session:
        for game_id, number in due_rounds(session, at):
            try:
                result = close_due_round(session, game_id, number, at)
            except Exception:
                log.exception("could not close %s round %d at its deadline", game_id, number)
                continue
            closed += result == "closed"
            extended += result == "extended"
        for game_id, number in complete_rounds(session):
            try:
                closed += close_if_complete(session, game_id, number)
            except Exception:
                log.exception("could not close complete round %d of %s; other games go on", number, game_id)
    with session_scope() as session:
        reminders = send_due_reminders(session, at)
    return ScheduleSweep(closed, extended, reminders)
