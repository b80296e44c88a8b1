"""What happens when a round opens: its deadline is set and bot-played seats write orders.

Called by the lifecycle right after it adds the round row (service.progress).
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from service.clock import now
from service.models import Game, Round
from service.schedule.deadlines import round_deadline
from service.timekeeping.bots import submit_for_bot
from service.timekeeping.open_close import close_early_if_done
from service.timekeeping.state import absences_of, controller, expected_seats, policy_of, seat_schedule


def round_opened(session: Session, game: Game, rnd: Round) -> None:
    rnd.opened_at = now()
    seats = expected_seats(game, rnd)
    humans = [s for s in seats if controller(session, s) == "human"]
    absences = [a for s in humans for a in absences_of(seat_schedule(session, s))]
    rnd.closes_at = round_deadline(policy_of(game), rnd.opened_at, absences)
    bots = [s for s in seats if controller(session, s) == "bot"]
    if humans and not bots:
        return  # nobody has moved in a round just opened and a person must: it stays open
    session.flush()  # the round's id, for the bots' submissions and an early close
    for seat in bots:
        submit_for_bot(session, game, rnd, seat)
    if rnd.status == "open":
        close_early_if_done(session, game, rnd)
