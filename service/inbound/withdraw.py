"""Withdrawing a seat's orders for the open round (the mail command CLEAR).

Every version of a player's orders is kept, so a withdrawal is one more version with
an empty text; service.submissions.latest_submissions counts such a seat as having no
orders. Under the same round lock the resolution takes, a round that has closed
(ready: everyone was in, or its deadline passed) refuses the withdrawal, so the
orders the closing counted are the orders that are resolved.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy.orm import Session

from service import clock
from service.audit import audit
from service.errors import Conflict, NotFound
from service.models import Seat
from service.submissions import latest_submissions, lock_round, store_submission


def withdraw(session: Session, seat_id: int, number: int | None = None,
             then: Callable[[Session, int, bool], None] | None = None) -> tuple[int, bool]:
    """(the round's number, whether there were orders to withdraw). number: the round the
    withdrawal is for (None: the open one); any other round refuses it. then: writes that
    must commit with the withdrawal (a mail's outcome), run in its transaction."""
    with session.begin():
        seat = session.get(Seat, seat_id)
        if seat is None:
            raise NotFound("no such seat")
        game = seat.game
        wanted = game.current_round if number is None else number
        rnd = (lock_round(session, game.id, wanted)
               if game.status == "active" and wanted == game.current_round else None)
        if rnd is None or rnd.status == "resolved":
            raise Conflict("no round is open, so there are no orders to withdraw" if number is None
                           else f"round {number} is not open, so its orders cannot be withdrawn")
        if rnd.status == "ready":
            raise Conflict(f"round {rnd.number} has closed and is being resolved; your orders stand")
        had = latest_submissions(session, rnd.id).get(seat.id) is not None
        if had:
            sub = store_submission(session, rnd, seat, "", "", "mail", clock.now())
            audit(session, game.id, seat.name, "withdrew", {"round": rnd.number, "version": sub.version})
        if then is not None:
            then(session, rnd.number, had)
        return rnd.number, had
