"""When a round closes: the policy's deadline, stretched by absences, kept out of quiet hours,
moved by pauses.

All arguments and results are timezone-aware UTC datetimes; wall-clock rules are read in the
policy's zone through localtime.local_instant (daylight saving resolved there).
Order of application: the rule gives a deadline; absences stretch it (at most the game's
absence limit); quiet hours then move it to their end, because "no round closes in quiet
hours" is the one rule without exceptions.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from service.schedule.absences import Absence, stretch_for_absences
from service.schedule.localtime import local_date, local_instant
from service.schedule.policy import CalendarRule, DeadlinePolicy, DurationRule, QuietHours

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
