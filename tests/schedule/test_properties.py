"""Properties of the deadline arithmetic over many zones, times and rules (hypothesis)."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from hypothesis import given, settings
from hypothesis import strategies as st

from service.schedule.deadlines import (
    Absence,
    calendar_deadline,
    outside_quiet_hours,
    resumed_deadline,
    stretch_for_absences,
)
from service.schedule.durations import format_duration, parse_duration
from service.schedule.policy import CalendarRule, DeadlinePolicy, QuietHours

ZONES = [ZoneInfo(z) for z in ("UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe",
                               "Asia/Kolkata", "America/St_Johns", "Pacific/Chatham")]
instants = st.datetimes(min_value=datetime(2024, 1, 1), max_value=datetime(2030, 12, 31)).map(
    lambda d: d.replace(tzinfo=UTC))
clock_times = st.builds(time, st.integers(0, 23), st.sampled_from([0, 15, 30, 45]))
spans = st.timedeltas(min_value=timedelta(0), max_value=timedelta(days=20))


@settings(max_examples=300, deadline=None)
@given(instants, st.sampled_from(ZONES), st.sets(st.integers(0, 6), min_size=1), clock_times, spans)
def test_calendar_deadline_is_a_listed_day_after_min_open(opened, zone, days, at, min_open):
    rule = CalendarRule(days=tuple(sorted(days)), at=at, min_open=min_open)
    deadline = calendar_deadline(rule, zone, opened)
    assert deadline >= opened + min_open
    assert deadline - (opened + min_open) <= timedelta(days=7, hours=3)
    local = deadline.astimezone(zone)
    wall = datetime.combine(local.date(), at)
    # the wall-clock time, or (in a spring-forward gap) that time moved forward by the gap
    assert timedelta(0) <= local.replace(tzinfo=None) - wall <= timedelta(hours=1)
    assert local.weekday() in days


@settings(max_examples=300, deadline=None)
@given(instants, st.sampled_from(ZONES), clock_times, clock_times)
def test_quiet_hours_result_is_never_quiet(deadline, zone, start, end):
    if start == end:
        return
    quiet = QuietHours(start, end)
    moved = outside_quiet_hours(deadline, quiet, zone)
    assert moved >= deadline
    assert moved - deadline <= timedelta(hours=25)
    assert outside_quiet_hours(moved, quiet, zone) == moved


@settings(max_examples=200, deadline=None)
@given(instants, st.lists(st.tuples(st.dates(date(2024, 1, 1), date(2030, 12, 31)), st.integers(0, 30)),
                          max_size=5), st.sampled_from(ZONES), spans)
def test_absences_never_shorten_nor_pass_the_limit(deadline, ranges, zone, limit):
    absences = [Absence(d, d + timedelta(days=n)) for d, n in ranges]
    moved = stretch_for_absences(deadline, absences, limit, zone)
    assert deadline <= moved <= deadline + limit


@settings(max_examples=200, deadline=None)
@given(instants, spans, spans)
def test_resume_keeps_the_remaining_time(deadline, before, pause):
    paused_at = deadline - before
    resumed = resumed_deadline(deadline, paused_at, paused_at + pause, DeadlinePolicy())
    assert resumed - (paused_at + pause) == before


@given(st.timedeltas(min_value=timedelta(0), max_value=timedelta(days=400)).map(
    lambda d: timedelta(seconds=round(d.total_seconds()))))
def test_format_then_parse_is_identity(delta):
    assert parse_duration(format_duration(delta)) == delta
