"""When a round closes: the policy's deadline, stretched by absences, kept out of quiet hours,
moved by pauses.

All arguments and results are timezone-aware UTC datetimes; wall-clock rules are read in the
policy's zone through local_instant (daylight saving resolved there).
Order of application: the rule gives a deadline; absences stretch it (at most the game's
absence limit); quiet hours then move it to their end, because "no round closes in quiet
hours" is the one rule without exceptions.

Local times: a wall-clock time in an IANA zone becomes a UTC instant. A local time that
does not exist (the spring-forward gap, e.g. 02:30 in Europe/Berlin on the last Sunday of
March) is read with the offset in force before the change, which moves it forward
by the gap's length: 02:30 becomes 03:30 CEST. A local time that happens twice
(the autumn fall-back) means its first occurrence: 02:30 CEST, not 02:30 CET an hour later.
Both are PEP 495's `fold=0` reading, which is what zoneinfo does; the tests pin it down.

Absences are whole days a player is away, which stretch deadlines inside them. Stored on
the player as JSON: `[{"from": "2026-12-24", "to": "2026-12-27"}, ...]`, dates
inclusive and read in the game's time zone (an absence runs from local midnight at the
start of `from` to local midnight after `to`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from service.schedule.policy import CalendarRule, DeadlinePolicy, DurationRule, QuietHours


def local_instant(day: date, at: time, zone: ZoneInfo) -> datetime:
    """The UTC instant of wall-clock `at` on `day` in `zone` (gap: moved forward; twice: the first)."""
    return datetime.combine(day, at, tzinfo=zone).replace(fold=0).astimezone(UTC)


def local_date(instant: datetime, zone: ZoneInfo) -> date:
    return instant.astimezone(zone).date()


MAX_ABSENCES = 20
MAX_ABSENCE_DAYS = 366
MIN_YEAR, MAX_YEAR = 2000, 2999


@dataclass(frozen=True)
class Absence:
    first: date
    last: date

    def span(self, zone: ZoneInfo) -> tuple[datetime, datetime]:
        return (local_instant(self.first, time(0), zone),
                local_instant(self.last + timedelta(days=1), time(0), zone))

    def to_json(self) -> dict[str, str]:
        return {"from": self.first.isoformat(), "to": self.last.isoformat()}


class AbsenceError(ValueError):
    """A refused absence: the message in a player's words ("absence 2, its last day: ..."),
    `field` the JSON path the API names (`absences[1].to`)."""

    def __init__(self, message: str, field: str) -> None:
        super().__init__(message)
        self.field = field


_DAY_WORDS = {"from": "its first day", "to": "its last day"}


def parse_absences(data: Any, root: str = "absences") -> list[Absence]:
    """A sorted list of absences; AbsenceError saying which absence and day, in words."""
    if not isinstance(data, list):
        raise AbsenceError("absences: expected a list of {'from': 'YYYY-MM-DD', 'to': 'YYYY-MM-DD'}", root)
    if len(data) > MAX_ABSENCES:
        raise AbsenceError(f"absences: at most {MAX_ABSENCES} absences, got {len(data)}", root)
    out: list[Absence] = []
    for i, item in enumerate(data):
        where, name = f"{root}[{i}]", f"absence {i + 1}"
        if not isinstance(item, dict):
            raise AbsenceError(f"{name}: expected a first and a last day ('from' and 'to')", where)
        unknown = sorted(set(item) - {"from", "to"})
        if unknown:
            raise AbsenceError(f"{name}: unknown field {unknown[0]!r} (an absence has 'from' and 'to')",
                               f"{where}.{unknown[0]}")
        first, last = (_date(item.get(k), f"{name}, {_DAY_WORDS[k]}", f"{where}.{k}") for k in ("from", "to"))
        if last < first:
            raise AbsenceError(f"{name}: its last day {last} is before its first day {first}", f"{where}.to")
        if (last - first).days >= MAX_ABSENCE_DAYS:
            raise AbsenceError(f"{name}: an absence may last at most {MAX_ABSENCE_DAYS} days", where)
        out.append(Absence(first, last))
    return sorted(out, key=lambda a: (a.first, a.last))


def _date(value: Any, words: str, field: str) -> date:
    if not isinstance(value, str):
        raise AbsenceError(f"{words}: expected a date like 2026-12-24 (YYYY-MM-DD), got {value!r}", field)
    try:
        day = date.fromisoformat(value)
    except ValueError:
        raise AbsenceError(f"{words}: expected a date like 2026-12-24 (YYYY-MM-DD), got {value!r}",
                           field) from None
    if not MIN_YEAR <= day.year <= MAX_YEAR:
        raise AbsenceError(f"{words}: a date from {MIN_YEAR} to {MAX_YEAR}, got {value!r}", field)
    return day


def stretch_for_absences(deadline: datetime, absences: Iterable[Absence], limit: timedelta,
                         zone: ZoneInfo) -> datetime:
    """Move a deadline that falls inside any absence to that absence's end (absences that
    touch or overlap are followed one after another), never more than `limit` past `deadline`."""
    spans = [a.span(zone) for a in absences]
    cap = deadline + limit
    moved = deadline
    changed = True
    while changed and moved < cap:
        changed = False
        for start, end in spans:
            if start <= moved < end:
                moved, changed = end, True
    return min(moved, cap)


ONE_DAY = timedelta(days=1)


def rule_deadline(policy: DeadlinePolicy, opened_at: datetime) -> datetime | None:
    """The rule's deadline for a round opened at `opened_at` (None: the policy has no deadline)."""
    rule = policy.rule
    if isinstance(rule, DurationRule):
        return opened_at + rule.duration
    if isinstance(rule, CalendarRule):
        return calendar_deadline(rule, policy.zone, opened_at)
    return None


def calendar_deadline(rule: CalendarRule, zone: ZoneInfo, opened_at: datetime) -> datetime:
    """The first listed weekday at the rule's local time that is at least min_open after opening."""
    earliest = opened_at + rule.min_open
    day = local_date(earliest, zone) - ONE_DAY
    for _ in range(9):
        if day.weekday() in rule.days:
            candidate = local_instant(day, rule.at, zone)
            if candidate >= earliest:
                return candidate
        day += ONE_DAY
    raise AssertionError("a weekly rule always has a slot within nine days")  # pragma: no cover


def outside_quiet_hours(deadline: datetime, quiet: QuietHours | None, zone: ZoneInfo) -> datetime:
    """The deadline, or the end of the quiet hours it falls inside."""
    if quiet is None:
        return deadline
    today = local_date(deadline, zone)
    for start_day in (today - ONE_DAY, today):
        start = local_instant(start_day, quiet.start, zone)
        end_day = start_day + ONE_DAY if quiet.end <= quiet.start else start_day
        end = local_instant(end_day, quiet.end, zone)
        if start <= deadline < end:
            return end
    return deadline


def in_quiet_hours(at: datetime, quiet: QuietHours | None, zone: ZoneInfo) -> bool:
    return outside_quiet_hours(at, quiet, zone) != at


def round_deadline(policy: DeadlinePolicy, opened_at: datetime,
                   absences: Iterable[Absence] = ()) -> datetime | None:
    """The deadline a round gets when it opens."""
    base = rule_deadline(policy, opened_at)
    if base is None:
        return None
    stretched = stretch_for_absences(base, absences, policy.absence_limit, policy.zone)
    return outside_quiet_hours(stretched, policy.quiet_hours, policy.zone)


def resumed_deadline(deadline: datetime, paused_at: datetime, resumed_at: datetime,
                     policy: DeadlinePolicy) -> datetime:
    """After a pause the deadline moves by the pause's length (then out of quiet hours)."""
    if resumed_at < paused_at:
        raise ValueError("resumed_at: a game cannot resume before it was paused")
    return outside_quiet_hours(deadline + (resumed_at - paused_at), policy.quiet_hours, policy.zone)


def extended_deadline(deadline: datetime, by: timedelta, policy: DeadlinePolicy) -> datetime:
    """A deadline pushed back by `by` (the GM's extension or the missed-turn 'extend'), out of quiet hours."""
    if by <= timedelta(0):
        raise ValueError("by: an extension must be longer than zero")
    return outside_quiet_hours(deadline + by, policy.quiet_hours, policy.zone)
