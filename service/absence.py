"""Fair absence: days away a player declares once for every game of their address, within a
yearly budget, told to the table, stretching deadlines where a game allows it.

- `declare` adds the absence to every seat the address holds in a game not over (their
  `seat_schedule.absences`, what deadlines read), re-stretches each open round through
  `restretch` (the one code that moves a deadline for absences; `deadline_extended` with
  reason "absence" in the audit log and the record), writes `absence_declared` in each game's
  log and mails every other player of each game (kind `absence`) the dates and what they do
  there. A game whose absence limit is P0D (a tournament's "no absences") keeps its deadlines;
  its table is still told.
- The budget: at most `BUDGET_DAYS` days away per calendar year per address, counted over the
  union of the absences on all its seats (finished games too), so one day declared in three
  games counts once, and days declared on a game's own settings page count too.
- `clear` takes back what has not begun: absences still ahead are dropped, one under way ends
  yesterday; days that have begun stay declared and counted.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date, timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from service.audit import log_action
from service.clock import now
from service.errors import Invalid
from service.mail.outbox import enqueue
from service.models import Game, Round, Seat
from service.schedule.deadlines import (
    Absence,
    AbsenceError,
    outside_quiet_hours,
    parse_absences,
    rule_deadline,
    stretch_for_absences,
)
from service.schedule.durations import describe_duration
from service.timekeeping.state import absences_of, expected_humans, open_round, policy_of, seat_schedule

BUDGET_DAYS = 30  # days away a calendar year, per address


def days_by_year(absences: Iterable[Absence]) -> dict[int, int]:
    """Calendar year → days inside any of the absences (each day once)."""
    days: set[date] = set()
    for a in absences:
        days.update(a.first + timedelta(days=i) for i in range((a.last - a.first).days + 1))
    out: dict[int, int] = {}
    for day in days:
        out[day.year] = out.get(day.year, 0) + 1
    return out


def address_seats(session: Session, address: str, live: bool = False) -> list[Seat]:
    """Every seat with this address (`live`: in games not over), oldest game first."""
    query = select(Seat).join(Game).where(func.lower(Seat.email) == address.lower())
    if live:
        query = query.where(Game.status.in_(("waiting", "active")))
    return list(session.scalars(query.order_by(Game.created_at, Seat.seat_index)))


def address_absences(session: Session, address: str) -> list[Absence]:
    """The address's absences over all its seats, merged where they touch."""
    spans = sorted({(a.first, a.last) for s in address_seats(session, address)
                    for a in absences_of(seat_schedule(session, s, create=False))})
    merged: list[list[date]] = []
    for first, last in spans:
        if merged and first <= merged[-1][1] + timedelta(days=1):
            merged[-1][1] = max(merged[-1][1], last)
        else:
            merged.append([first, last])
    return [Absence(f, la) for f, la in merged]


def check_budget(session: Session, address: str | None, seat: Seat | None, absences: Sequence[Absence],
                 field: str = "absences") -> None:
    """Invalid naming the year when the address's absences, with `absences` on `seat` (its
    own list replaced), go over the yearly budget."""
    if not address:
        return
    others = [a for s in address_seats(session, address) if seat is None or s.id != seat.id
              for a in absences_of(seat_schedule(session, s, create=False))]
    before = days_by_year(others)
    for year, days in sorted(days_by_year([*others, *absences]).items()):
        if days > BUDGET_DAYS and days > before.get(year, 0):
            left = max(BUDGET_DAYS - before.get(year, 0), 0)
            raise Invalid(f"{field}: {days} days away in {year} is over the budget of {BUDGET_DAYS} days a "
                          f"year ({left} left); nothing was changed", field)


def restretch(session: Session, game: Game, rnd: Round) -> None:
    """Stretch the open round for the expected players' absences. The limit counts from the
    rule's deadline for the round, as when it opened, so saving the same absences again (or
    new ones) never stretches one round by more than the game's absence limit in all."""
    policy = policy_of(game)
    base = rule_deadline(policy, rnd.opened_at)
    if base is None or rnd.closes_at is None:
        return
    room = max(base + policy.absence_limit - rnd.closes_at, timedelta(0))
    absences = [a for s in expected_humans(session, game, rnd)
                for a in absences_of(seat_schedule(session, s))]
    moved = stretch_for_absences(rnd.closes_at, absences, room, policy.zone)
    moved = outside_quiet_hours(moved, policy.quiet_hours, policy.zone)
    if moved > rnd.closes_at:
        log_action(session, game.id, "service", "deadline_extended",
                   {"round": rnd.number, "from": rnd.closes_at.isoformat(), "to": moved.isoformat(),
                    "reason": "absence"})
        rnd.closes_at = moved


def set_seat_absences(session: Session, game: Game, rnd: Round | None, seat: Seat,
                      absences: Sequence[Absence]) -> None:
    """Store the seat's absences and stretch the open round for them (inside the caller's
    transaction, the round locked by the caller)."""
    row = seat_schedule(session, seat)
    row.absences = [a.to_json() for a in absences]
    if rnd is not None and absences and seat.name in rnd.expected and row.controller == "human":
        restretch(session, game, rnd)


def declare(session: Session, seat_id: int | None, address: str, first: Any, last: Any) -> list[str]:
    """Add the absence `first`..`last` (ISO dates) to every live seat of the address (`seat_id`:
    the seat whose list names a refusal's place, for mail), tell each table; the titles of
    the games it went to. Invalid (the absence, the budget) changes nothing."""
    with session.begin():
        seats = address_seats(session, address, live=True)
        if not seats:
            raise Invalid("absences: this address plays no game that is not over", "absences")
        seats.sort(key=lambda s: s.id != seat_id)  # the writer's seat first: its refusal is the one named
        item = {"from": first, "to": last}
        lists: dict[int, list[Absence]] = {}
        try:
            for seat in seats:
                kept = list(seat_schedule(session, seat, create=False).absences or [])
                lists[seat.id] = parse_absences([*kept, *([item] if item not in kept else [])])
            new = parse_absences([item])[0]
        except AbsenceError as exc:
            raise Invalid(str(exc), exc.field) from None
        check_budget(session, address, None, [new])
        titles = []
        for seat in seats:
            game = seat.game
            rnd = open_round(session, game, lock=True) if game.status == "active" else None
            set_seat_absences(session, game, rnd, seat, lists[seat.id])
            _tell(session, game, seat, new)
            titles.append(game.title)
    return titles


def _tell(session: Session, game: Game, seat: Seat, absence: Absence) -> None:
    policy = policy_of(game)
    moves = policy.absence_limit > timedelta(0)
    detail = {"seat": seat.name, "from": absence.first.isoformat(), "to": absence.last.isoformat(),
              "deadlines_move": moves}
    log_action(session, game.id, seat.name, "absence_declared", detail)
    limit = describe_duration(policy.absence_limit)
    payload = {**detail, "limit": limit, "declared_at": now().isoformat()}
    for other in game.seats:
        if other.id != seat.id and other.joined_at is not None:
            enqueue(session, "absence", payload, game=game, seat=other)


def clear(session: Session, address: str) -> int:
    """Take back the address's absences that have not begun (one under way ends yesterday);
    how many seats changed. Days already begun stay declared."""
    today = now().date()
    changed = 0
    with session.begin():
        for seat in address_seats(session, address, live=True):
            row = seat_schedule(session, seat, create=False)
            old = absences_of(row)
            kept = [Absence(a.first, min(a.last, today - timedelta(days=1))) for a in old if a.first < today]
            if kept != old:
                seat_schedule(session, seat).absences = [a.to_json() for a in kept]
                changed += 1
    return changed
