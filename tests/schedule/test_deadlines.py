from datetime import UTC, date, datetime, timedelta

import pytest

from service.schedule.deadlines import (
    Absence,
    AbsenceError,
    extended_deadline,
    local_instant,
    outside_quiet_hours,
    parse_absences,
    resumed_deadline,
    round_deadline,
    rule_deadline,
    stretch_for_absences,
)
from service.schedule.policy import parse_policy


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


BERLIN = parse_policy({"kind": "none", "timezone": "Europe/Berlin"}).zone


def test_duration_deadline_is_open_time_plus_duration():
    policy = parse_policy({"kind": "duration", "duration": "PT48H"})
    assert round_deadline(policy, utc(2026, 5, 1, 10)) == utc(2026, 5, 3, 10)
    assert round_deadline(parse_policy({"kind": "duration", "duration": "PT5S"}),
                          utc(2026, 5, 1, 10)) == utc(2026, 5, 1, 10, 0, 5)


def test_no_deadline_policy():
    assert round_deadline(parse_policy({"kind": "none"}), utc(2026, 5, 1)) is None


def test_calendar_picks_next_listed_day_after_min_open():
    policy = parse_policy({"kind": "calendar", "days": ["mon", "thu"], "time": "20:00",
                           "timezone": "Europe/Berlin", "min_open": "PT12H"})
    # Monday 2026-06-01 10:00 UTC (12:00 CEST): Monday 20:00 is only 8 h away -> Thursday
    assert round_deadline(policy, utc(2026, 6, 1, 10)) == utc(2026, 6, 4, 18)
    # Sunday 2026-05-31 10:00 UTC: Monday 20:00 CEST is 32 h away
    assert round_deadline(policy, utc(2026, 5, 31, 10)) == utc(2026, 6, 1, 18)
    # exactly min_open before the slot counts
    assert round_deadline(policy, utc(2026, 6, 1, 6)) == utc(2026, 6, 1, 18)


def test_calendar_deadline_across_spring_daylight_saving_change():
    policy = parse_policy({"kind": "calendar", "days": ["mon"], "time": "20:00",
                           "timezone": "Europe/Berlin", "min_open": "PT1H"})
    # Monday 23 March 20:00 CET is 19:00 UTC; clocks go forward Sunday 29 March
    assert round_deadline(policy, utc(2026, 3, 20)) == utc(2026, 3, 23, 19)
    # Monday 30 March 20:00 CEST is 18:00 UTC: the wall-clock time stays 20:00
    assert round_deadline(policy, utc(2026, 3, 24)) == utc(2026, 3, 30, 18)
    assert round_deadline(policy, utc(2026, 3, 24)).astimezone(policy.zone).hour == 20


def test_calendar_deadline_across_autumn_daylight_saving_change_new_york():
    policy = parse_policy({"kind": "calendar", "days": ["sun"], "time": "09:00",
                           "timezone": "America/New_York", "min_open": "PT1H"})
    assert round_deadline(policy, utc(2026, 10, 26)) == utc(2026, 11, 1, 14)  # EST, clocks went back at 02:00
    assert round_deadline(policy, utc(2026, 10, 19)) == utc(2026, 10, 25, 13)  # EDT


@pytest.mark.parametrize(("opened", "expected", "shown"), [
    # 02:30 does not exist in Berlin on 29 March 2026: it is read as 03:30 CEST (moved by the gap)
    (utc(2026, 3, 27), utc(2026, 3, 29, 1, 30), "03:30 CEST"),
    # 02:30 happens twice in Berlin on 25 October 2026: the first (CEST) one is meant
    (utc(2026, 10, 23), utc(2026, 10, 25, 0, 30), "02:30 CEST"),
])
def test_nonexistent_and_ambiguous_local_times(opened, expected, shown):
    policy = parse_policy({"kind": "calendar", "days": ["sun"], "time": "02:30",
                           "timezone": "Europe/Berlin", "min_open": "PT1H"})
    deadline = round_deadline(policy, opened)
    assert deadline == expected
    assert deadline.astimezone(policy.zone).strftime("%H:%M %Z") == shown


def test_quiet_hours_move_a_deadline_to_their_end():
    policy = parse_policy({"kind": "duration", "duration": "PT48H", "timezone": "Europe/Berlin",
                           "quiet_hours": {"start": "23:00", "end": "08:00"}})
    # opened 01:00 CEST (23:00 UTC the day before): deadline 01:00 CEST, inside -> 08:00 CEST
    assert round_deadline(policy, utc(2026, 6, 1, 23)) == utc(2026, 6, 4, 6)
    # opened 22:59 CEST: deadline is just before quiet hours and stays
    assert round_deadline(policy, utc(2026, 6, 1, 20, 59)) == utc(2026, 6, 3, 20, 59)
    # exactly at the start is inside; exactly at the end is outside
    assert outside_quiet_hours(utc(2026, 6, 3, 21), policy.quiet_hours, policy.zone) == utc(2026, 6, 4, 6)
    assert outside_quiet_hours(utc(2026, 6, 4, 6), policy.quiet_hours, policy.zone) == utc(2026, 6, 4, 6)


def test_daytime_quiet_hours_and_daylight_saving_end():
    policy = parse_policy({"kind": "duration", "duration": "PT1H", "timezone": "Europe/Berlin",
                           "quiet_hours": {"start": "12:00", "end": "14:00"}})
    assert outside_quiet_hours(utc(2026, 3, 28, 11), policy.quiet_hours, policy.zone) == utc(2026, 3, 28, 13)
    assert outside_quiet_hours(utc(2026, 3, 29, 11), policy.quiet_hours, policy.zone) == utc(2026, 3, 29, 12)
    assert outside_quiet_hours(utc(2026, 3, 29, 9), policy.quiet_hours, policy.zone) == utc(2026, 3, 29, 9)


def test_absence_stretches_deadline_to_its_end_in_game_zone():
    policy = parse_policy({"kind": "duration", "duration": "PT48H", "timezone": "Europe/Berlin"})
    away = [Absence(date(2026, 6, 3), date(2026, 6, 4))]
    # deadline 3 June 12:00 UTC is inside; the absence ends at local midnight 5 June = 22:00 UTC 4 June
    assert round_deadline(policy, utc(2026, 6, 1, 12), away) == utc(2026, 6, 4, 22)
    # a deadline outside every absence does not move
    assert round_deadline(policy, utc(2026, 6, 5, 12), away) == utc(2026, 6, 7, 12)


def test_chained_absences_and_the_limit():
    zone = BERLIN
    away = [Absence(date(2026, 6, 3), date(2026, 6, 4)), Absence(date(2026, 6, 5), date(2026, 6, 20))]
    deadline = utc(2026, 6, 3, 12)
    assert stretch_for_absences(deadline, away, timedelta(days=30), zone) == utc(2026, 6, 20, 22)
    assert stretch_for_absences(deadline, away, timedelta(days=7), zone) == deadline + timedelta(days=7)
    assert stretch_for_absences(deadline, away, timedelta(0), zone) == deadline


def test_absence_then_quiet_hours():
    policy = parse_policy({"kind": "duration", "duration": "PT48H", "timezone": "Europe/Berlin",
                           "quiet_hours": {"start": "23:00", "end": "08:00"}})
    away = [Absence(date(2026, 6, 3), date(2026, 6, 3))]
    # stretched to local midnight, which is quiet: closes 08:00 CEST on 4 June
    assert round_deadline(policy, utc(2026, 6, 1, 12), away) == utc(2026, 6, 4, 6)


def test_parse_absences():
    assert parse_absences([{"from": "2026-06-05", "to": "2026-06-09"}, {"from": "2026-06-01", "to": "2026-06-01"}]) == [
        Absence(date(2026, 6, 1), date(2026, 6, 1)), Absence(date(2026, 6, 5), date(2026, 6, 9))]
    assert parse_absences([]) == []


@pytest.mark.parametrize(("data", "field", "words"), [
    ({"from": "2026-06-05"}, "absences", r"absences: expected a list"),
    ([{"from": "2026-06-05", "to": "2026-06-01"}], "absences[0].to",
     r"absence 1: its last day 2026-06-01 is before its first day 2026-06-05"),
    ([{"from": "2026-06-05", "to": "June 9"}], "absences[0].to", r"absence 1, its last day: expected a date"),
    ([{"to": "2026-06-09"}], "absences[0].from", r"absence 1, its first day: expected a date"),
    ([{"from": "2026-06-01", "to": "2026-06-02"}, "x"], "absences[1]",
     r"absence 2: expected a first and a last day"),
    ([{"from": "2026-06-01", "to": "2026-06-02", "why": "holiday"}], "absences[0].why",
     r"absence 1: unknown field 'why'"),
    ([{"from": "2026-01-01", "to": "2027-06-02"}], "absences[0]", r"absence 1: an absence may last at most"),
    ([{"from": "2026-01-01", "to": "2026-01-01"}] * 21, "absences", r"absences: at most 20"),
    ([{"from": "9999-12-31", "to": "9999-12-31"}], "absences[0].from",
     r"absence 1, its first day: a date from 2000 to 2999"),
    ([{"from": "0001-01-01", "to": "2026-01-01"}], "absences[0].from", r"absence 1, its first day: a date from"),
])
def test_parse_absences_errors_name_the_absence_in_words_and_the_field(data, field, words):
    with pytest.raises(AbsenceError, match=words) as refused:
        parse_absences(data)
    assert refused.value.field == field


def test_pause_moves_deadline_by_the_pause_length():
    policy = parse_policy({"kind": "duration", "duration": "PT48H"})
    deadline = utc(2026, 6, 3, 12)
    assert resumed_deadline(deadline, utc(2026, 6, 2, 12), utc(2026, 6, 2, 18), policy) == utc(2026, 6, 3, 18)
    # a pause that outlasts the deadline still leaves the same time remaining
    assert resumed_deadline(deadline, utc(2026, 6, 2, 12), utc(2026, 6, 10, 12), policy) == utc(2026, 6, 11, 12)
    with pytest.raises(ValueError, match="resumed_at"):
        resumed_deadline(deadline, utc(2026, 6, 2, 12), utc(2026, 6, 2, 11), policy)


def test_pause_respects_quiet_hours():
    policy = parse_policy({"kind": "duration", "duration": "PT48H", "quiet_hours": {"start": "00:00", "end": "06:00"}})
    assert resumed_deadline(utc(2026, 6, 3, 20), utc(2026, 6, 2), utc(2026, 6, 2, 6), policy) == utc(2026, 6, 4, 6)


def test_extension():
    policy = parse_policy({"kind": "duration", "duration": "PT48H"})
    assert extended_deadline(utc(2026, 6, 3), timedelta(hours=24), policy) == utc(2026, 6, 4)
    with pytest.raises(ValueError, match="by: "):
        extended_deadline(utc(2026, 6, 3), timedelta(0), policy)


def test_rule_deadline_ignores_absences_and_quiet():
    policy = parse_policy({"kind": "duration", "duration": "PT1H", "quiet_hours": {"start": "00:00", "end": "06:00"}})
    assert rule_deadline(policy, utc(2026, 6, 2, 0)) == utc(2026, 6, 2, 1)


def test_local_instant_regular_day():
    assert local_instant(date(2026, 1, 15), datetime(2000, 1, 1, 20).time(), BERLIN) == utc(2026, 1, 15, 19)
