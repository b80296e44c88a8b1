from datetime import time, timedelta

import pytest

from service.schedule.policy import (
    DEFAULT_POLICY,
    CalendarRule,
    DurationRule,
    NmrPolicy,
    PolicyError,
    QuietHours,
    parse_policy,
    policy_to_json,
)


def fields(exc: PolicyError) -> list[str]:
    return [f for f, _ in exc.problems]


def test_none_is_the_default_48_hours_hold():
    policy = parse_policy(None)
    assert policy is DEFAULT_POLICY
    assert policy.rule == DurationRule(timedelta(hours=48))
    assert policy.missed_turns == NmrPolicy(after=1, action="hold")


def test_duration_policy_with_everything():
    policy = parse_policy({
        "kind": "duration", "duration": "P1DT12H", "timezone": "Europe/London",
        "quiet_hours": {"start": "23:00", "end": "08:00"}, "absence_limit": "P3D",
        "missed_turns": {"after": 2, "action": "bot"},
    })
    assert policy.rule == DurationRule(timedelta(days=1, hours=12))
    assert policy.zone.key == "Europe/London"
    assert policy.quiet_hours == QuietHours(time(23), time(8))
    assert policy.absence_limit == timedelta(days=3)
    assert policy.missed_turns == NmrPolicy(after=2, action="bot", extend_by=timedelta(hours=24))


def test_calendar_policy():
    policy = parse_policy({"kind": "calendar", "days": ["Thu", "mon", "monday"], "time": "20:00",
                           "timezone": "Europe/Berlin", "min_open": "PT6H"})
    assert policy.rule == CalendarRule(days=(0, 3), at=time(20), min_open=timedelta(hours=6))


def test_none_kind_has_no_rule():
    assert parse_policy({"kind": "none"}).rule is None


@pytest.mark.parametrize("data", [
    {"kind": "duration", "duration": "PT5S"},
    {"kind": "calendar", "days": ["sat"], "time": "09:30", "timezone": "America/New_York",
     "quiet_hours": {"start": "22:00", "end": "07:00"}, "missed_turns": {"after": 3, "action": "extend",
                                                                       "extend_by": "PT12H"}},
    {"kind": "none", "absence_limit": "P0D", "missed_turns": {"after": 1, "action": "replace"}},
])
def test_canonical_json_round_trips(data):
    policy = parse_policy(data)
    assert parse_policy(policy_to_json(policy)) == policy


def test_every_problem_is_reported_with_its_field():
    with pytest.raises(PolicyError) as info:
        parse_policy({"kind": "calendar", "days": ["mon", "funday"], "time": "25:00",
                      "timezone": "Mars/Olympus", "quiet_hours": {"start": "7", "end": "08:00"},
                      "absence_limit": "P1M", "missed_turns": {"after": 0, "action": "panic"},
                      "deadline": "PT4H"})
    assert fields(info.value) == [
        "deadline_policy.deadline", "deadline_policy.timezone", "deadline_policy.days[1]",
        "deadline_policy.time", "deadline_policy.quiet_hours.start", "deadline_policy.absence_limit",
        "deadline_policy.missed_turns.after", "deadline_policy.missed_turns.action",
    ]
    assert "unknown IANA time zone 'Mars/Olympus'" in str(info.value)
    assert "expected HH:MM (24-hour), got '25:00'" in str(info.value)


@pytest.mark.parametrize(("data", "field", "words"), [
    ("PT48H", "deadline_policy", "expected a JSON object"),
    ({"kind": "weekly"}, "deadline_policy.kind", "expected one of"),
    ({"kind": ["duration"]}, "deadline_policy.kind", "expected one of"),
    ({"kind": "duration"}, "deadline_policy.duration", "required"),
    ({"kind": "duration", "duration": "PT0S"}, "deadline_policy.duration", "longer than zero"),
    ({"kind": "duration", "duration": "tomorrow"}, "deadline_policy.duration", "not an ISO 8601"),
    ({"kind": "calendar", "time": "20:00"}, "deadline_policy.days", "non-empty list"),
    ({"kind": "none", "quiet_hours": {"start": "08:00", "end": "08:00"}}, "deadline_policy.quiet_hours", "equal"),
    ({"kind": "none", "quiet_hours": "nights"}, "deadline_policy.quiet_hours", "expected"),
    ({"kind": "none", "quiet_hours": {"start": "22:00", "end": "07:00", "tz": "x"}},
     "deadline_policy.quiet_hours.tz", "unknown"),
    ({"kind": "none", "missed_turns": {"after": True}}, "deadline_policy.missed_turns.after", "whole number"),
    ({"kind": "none", "missed_turns": {"extend_by": "PT0S"}}, "deadline_policy.missed_turns.extend_by", "zero"),
    ({"kind": "none", "missed_turns": 3}, "deadline_policy.missed_turns", "expected"),
    ({"kind": "none", "duration": "PT4H"}, "deadline_policy.duration", "unknown field for kind 'none'"),
    ({"kind": "none", "timezone": ""}, "deadline_policy.timezone", "IANA"),
])
def test_single_problems(data, field, words):
    with pytest.raises(PolicyError) as info:
        parse_policy(data)
    assert fields(info.value) == [field]
    assert words in str(info.value)
