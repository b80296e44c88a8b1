"""Reading and writing the schedule rows of seats and rounds (created on first need)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import bindparam, event, select
from sqlalchemy.orm import Session

from service.models import Game, Round, RoundSchedule, Seat, SeatSchedule
from service.schedule.deadlines import Absence, parse_absences
from service.schedule.policy import DeadlinePolicy, parse_policy
from service.schedule.reminders import DEFAULT_LEAD
from service.submissions import latest_submissions


def policy_of(game: Game) -> DeadlinePolicy:
    """The game's policy (stored only after validation, so parsing cannot fail on good data)."""
    return parse_policy(game.deadline_policy)


# The seats' schedule rows (None: no row) read in the session's current transaction.
# Session.get asks the database again for a missing row every time, and the identity map
# keeps a row only while something holds it, while opening or closing a round asks each
# seat's controller several times (an N+1: 16 of the 44 statements of a resolving
# submission). Rows are only ever created by seat_schedule() below, which records them.
_ROWS = "dicepost.seat_schedules"
_GAMES = "dicepost.seat_schedules.games"  # the games whose seats' rows were all read


@event.listens_for(Session, "after_transaction_end")
def _forget_rows(session: Session, transaction: Any) -> None:
    if transaction.parent is None:  # the outermost transaction (each flush ends an inner one)
        session.info.pop(_ROWS, None)
        session.info.pop(_GAMES, None)


def _row(session: Session, seat: Seat) -> SeatSchedule | None:
    """The seat's row; the rows of all the game's seats are read at once, on first need."""
    rows: dict[int, SeatSchedule | None] = session.info.setdefault(_ROWS, {})
    if seat.id not in rows:
        games: set[str] = session.info.setdefault(_GAMES, set())
        if seat.game_id not in games:
            games.add(seat.game_id)
            found = session.scalars(_GAME_SCHEDULES, {"game_id": seat.game_id})
            for row in found:
                rows.setdefault(row.seat_id, row)
        rows.setdefault(seat.id, None)
    return rows[seat.id]


_GAME_SCHEDULES = (select(SeatSchedule).join(Seat, Seat.id == SeatSchedule.seat_id)
                   .where(Seat.game_id == bindparam("game_id")))  # built once


def read_schedules(session: Session, game: Game) -> None:
    """Read the schedule rows of all the game's seats now, in one statement: before a
    transaction adds rows, so the checks that follow need no query (and no autoflush)."""
    if game.seats:
        _row(session, game.seats[0])


def seat_schedule(session: Session, seat: Seat, create: bool = True) -> SeatSchedule:
    """The seat's row; with create=False a missing row is answered by unsaved defaults."""
    row = _row(session, seat)
    if row is None:
        row = SeatSchedule(seat_id=seat.id, wait=False, reminder_lead_seconds=None, absences=[],
                           misses=0, controller="human")
        if create:
            session.add(row)
            session.info.setdefault(_ROWS, {})[seat.id] = row
    return row


def round_schedule(session: Session, rnd: Round) -> RoundSchedule:
    row = session.get(RoundSchedule, rnd.id)
    if row is None:
        row = RoundSchedule(round_id=rnd.id, extended=False)
        session.add(row)
    return row


def controller(session: Session, seat: Seat) -> str:
    row = _row(session, seat)
    return row.controller if row is not None else "human"


def reminder_lead(row: SeatSchedule) -> timedelta:
    return DEFAULT_LEAD if row.reminder_lead_seconds is None else timedelta(seconds=row.reminder_lead_seconds)


def absences_of(row: SeatSchedule) -> list[Absence]:
    return parse_absences(row.absences or [])


def expected_seats(game: Game, rnd: Round) -> list[Seat]:
    return [s for s in game.seats if s.name in rnd.expected]


def expected_humans(session: Session, game: Game, rnd: Round) -> list[Seat]:
    """Expected seats played by a person (bots write their own orders; open and removed seats hold)."""
    return [s for s in expected_seats(game, rnd) if controller(session, s) == "human"]


def submitted_names(session: Session, game: Game, rnd: Round) -> set[str]:

    ids = set(latest_submissions(session, rnd.id))
    return {s.name for s in game.seats if s.id in ids}


def open_round(session: Session, game: Game, lock: bool = False) -> Round | None:
    query = select(Round).where(Round.game_id == game.id, Round.number == game.current_round,
                                Round.status == "open")
    return session.scalars(query.with_for_update() if lock else query).first()
