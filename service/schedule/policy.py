"""A game's deadline policy, parsed from the JSON stored in `games.deadline_policy`.

Shapes (every key but `kind` is optional; unknown keys are refused to catch typos):

    {"kind": "duration", "duration": "PT48H"}
    {"kind": "calendar", "days": ["mon", "thu"], "time": "20:00", "min_open": "PT12H"}
    {"kind": "none"}                        # rounds close only when everyone is in, or by the GM
    common: "timezone": "Europe/London"     # IANA name, default "UTC"; used by calendar and quiet hours
            "quiet_hours": {"start": "23:00", "end": "08:00"}   # no round closes inside
            "absence_limit": "P7D"          # most an absence may stretch one deadline (P0D: never)
            "missed_turns": {"after": 2, "action": "bot", "extend_by": "PT24H"}   # see nmr.py

`parse_policy` collects every problem into one PolicyError whose lines each start with
the field's path, e.g. `deadline_policy.quiet_hours.start: expected HH:MM, got '25:00'`.
`policy_to_json` gives the canonical form stored back, so what the GM page shows is what runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import time, timedelta
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from service.errors import Invalid
from service.schedule.durations import DurationError, format_duration, parse_duration

DAY_NAMES = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
NmrAction = Literal["hold", "extend", "bot", "replace"]
NMR_ACTIONS: tuple[NmrAction, ...] = ("hold", "extend", "bot", "replace")
DEFAULT_MIN_OPEN = timedelta(hours=12)
DEFAULT_EXTEND_BY = timedelta(hours=24)
DEFAULT_ABSENCE_LIMIT = timedelta(days=7)


class PolicyError(ValueError):
    """Every problem found in one policy, each as (field path, message)."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        self.problems = problems
        super().__init__("; ".join(f"{f}: {m}" for f, m in problems))


@dataclass(frozen=True)
class DurationRule:
    duration: timedelta


@dataclass(frozen=True)
class CalendarRule:
    days: tuple[int, ...]          # 0 = Monday, as datetime.weekday()
    at: time                       # local wall-clock time in the policy's zone
    min_open: timedelta = DEFAULT_MIN_OPEN


@dataclass(frozen=True)
class QuietHours:
    start: time
    end: time                      # may be earlier than start: the quiet spans midnight


@dataclass(frozen=True)
class NmrPolicy:
    after: int = 1                 # consecutive misses before the action applies
    action: NmrAction = "hold"
    extend_by: timedelta = DEFAULT_EXTEND_BY
    # For a seat whose mail bounces (it gets no reminders and no results): misses before the
    # action applies; None: the same `after` as everyone.
    unreachable_after: int | None = None


@dataclass(frozen=True)
class DeadlinePolicy:
    rule: DurationRule | CalendarRule | None = DurationRule(timedelta(hours=48))
    zone: ZoneInfo = field(default_factory=lambda: ZoneInfo("UTC"))
    quiet_hours: QuietHours | None = None
    absence_limit: timedelta = DEFAULT_ABSENCE_LIMIT
    missed_turns: NmrPolicy = NmrPolicy()


DEFAULT_POLICY = DeadlinePolicy()
_COMMON = {"kind", "timezone", "quiet_hours", "absence_limit", "missed_turns"}
_KIND_KEYS = {"duration": {"duration"}, "calendar": {"days", "time", "min_open"}, "none": set()}


class _Problems:
    def __init__(self, root: str) -> None:
        self.root = root
        self.items: list[tuple[str, str]] = []

    def add(self, path: str, message: str) -> None:
        self.items.append((f"{self.root}.{path}" if path else self.root, message))


def parse_policy(data: Any, root: str = "deadline_policy") -> DeadlinePolicy:
    """A validated policy; None gives DEFAULT_POLICY (48 hours, hold)."""
    if data is None:
        return DEFAULT_POLICY
    problems = _Problems(root)
    if not isinstance(data, Mapping):
        problems.add("", f"expected a JSON object, got {type(data).__name__}")
        raise PolicyError(problems.items)
    kind = data.get("kind")
    if not isinstance(kind, str) or kind not in _KIND_KEYS:
        problems.add("kind", f"expected one of {sorted(_KIND_KEYS)}, got {kind!r}")
        raise PolicyError(problems.items)
    for key in sorted(set(data) - _COMMON - _KIND_KEYS[kind]):
        problems.add(key, f"unknown field for kind {kind!r}")
    zone = _zone(data.get("timezone", "UTC"), problems)
    rule: DurationRule | CalendarRule | None = None
    if kind == "duration":
        span = _duration(data.get("duration"), "duration", problems, required=True)
        if span is not None and span <= timedelta(0):
            problems.add("duration", "must be longer than zero")
        rule = DurationRule(span) if span is not None else None
    elif kind == "calendar":
        rule = _calendar(data, problems)
    quiet = _quiet(data.get("quiet_hours"), problems)
    limit = _duration(data.get("absence_limit"), "absence_limit", problems)
    nmr = _nmr(data.get("missed_turns"), problems)
    if problems.items:
        raise PolicyError(problems.items)
    return DeadlinePolicy(rule=rule, zone=zone, quiet_hours=quiet,
                          absence_limit=DEFAULT_ABSENCE_LIMIT if limit is None else limit,
                          missed_turns=nmr)


def policy_to_json(policy: DeadlinePolicy) -> dict[str, Any]:
    out: dict[str, Any]
    if isinstance(policy.rule, DurationRule):
        out = {"kind": "duration", "duration": format_duration(policy.rule.duration)}
    elif isinstance(policy.rule, CalendarRule):
        out = {"kind": "calendar", "days": [DAY_NAMES[d] for d in policy.rule.days],
               "time": policy.rule.at.strftime("%H:%M"), "min_open": format_duration(policy.rule.min_open)}
    else:
        out = {"kind": "none"}
    out["timezone"] = policy.zone.key
    if policy.quiet_hours:
        out["quiet_hours"] = {"start": policy.quiet_hours.start.strftime("%H:%M"),
                              "end": policy.quiet_hours.end.strftime("%H:%M")}
    out["absence_limit"] = format_duration(policy.absence_limit)
    nmr = policy.missed_turns
    out["missed_turns"] = {"after": nmr.after, "action": nmr.action,
                           "extend_by": format_duration(nmr.extend_by)}
    if nmr.unreachable_after is not None:
        out["missed_turns"]["unreachable_after"] = nmr.unreachable_after
    return out


def _zone(name: Any, problems: _Problems) -> ZoneInfo:
    if not isinstance(name, str) or not name:
        problems.add("timezone", f"expected an IANA zone name like 'Europe/London', got {name!r}")
        return ZoneInfo("UTC")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        problems.add("timezone", f"unknown IANA time zone {name!r}")
        return ZoneInfo("UTC")


def _duration(value: Any, path: str, problems: _Problems, required: bool = False) -> timedelta | None:
    if value is None:
        if required:
            problems.add(path, "required, e.g. 'PT48H'")
        return None
    try:
        span = parse_duration(value, path)
    except DurationError as exc:
        problems.add(path, str(exc).split(": ", 1)[1])
        return None
    if span < timedelta(0):
        problems.add(path, "must not be negative")
    return span


def parse_clock_time(value: Any) -> time:
    """'HH:MM' (24-hour) to a time; ValueError naming the problem."""
    if isinstance(value, str) and len(value) == 5 and value[2] == ":":
        hh, mm = value[:2], value[3:]
        if hh.isdigit() and mm.isdigit() and int(hh) < 24 and int(mm) < 60:
            return time(int(hh), int(mm))
    raise ValueError(f"expected HH:MM (24-hour), got {value!r}")


def _clock(value: Any, path: str, problems: _Problems) -> time | None:
    try:
        return parse_clock_time(value)
    except ValueError as exc:
        problems.add(path, str(exc))
        return None


def _calendar(data: Mapping[str, Any], problems: _Problems) -> CalendarRule | None:
    raw_days = data.get("days")
    days: list[int] = []
    if not isinstance(raw_days, list) or not raw_days:
        problems.add("days", f"expected a non-empty list of {list(DAY_NAMES)}, got {raw_days!r}")
    else:
        for i, day in enumerate(raw_days):
            name = day.lower()[:3] if isinstance(day, str) else None
            if name not in DAY_NAMES:
                problems.add(f"days[{i}]", f"expected one of {list(DAY_NAMES)}, got {day!r}")
            else:
                days.append(DAY_NAMES.index(name))
    at = _clock(data.get("time"), "time", problems)
    min_open = _duration(data.get("min_open"), "min_open", problems)
    if at is None or not days:
        return None
    return CalendarRule(days=tuple(sorted(set(days))), at=at,
                        min_open=DEFAULT_MIN_OPEN if min_open is None else min_open)


def _quiet(value: Any, problems: _Problems) -> QuietHours | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        problems.add("quiet_hours", f"expected {{'start': 'HH:MM', 'end': 'HH:MM'}}, got {value!r}")
        return None
    for key in sorted(set(value) - {"start", "end"}):
        problems.add(f"quiet_hours.{key}", "unknown field")
    start = _clock(value.get("start"), "quiet_hours.start", problems)
    end = _clock(value.get("end"), "quiet_hours.end", problems)
    if start is not None and start == end:
        problems.add("quiet_hours", "start and end are equal; quiet hours must leave time to close")
    return QuietHours(start, end) if start is not None and end is not None else None


def _nmr(value: Any, problems: _Problems) -> NmrPolicy:
    if value is None:
        return NmrPolicy()
    if not isinstance(value, Mapping):
        problems.add("missed_turns", f"expected e.g. {{'after': 2, 'action': 'bot'}}, got {value!r}")
        return NmrPolicy()
    for key in sorted(set(value) - {"after", "action", "extend_by", "unreachable_after"}):
        problems.add(f"missed_turns.{key}", "unknown field")
    after = value.get("after", 1)
    if isinstance(after, bool) or not isinstance(after, int) or after < 1:
        problems.add("missed_turns.after", f"expected a whole number of misses >= 1, got {after!r}")
        after = 1
    action = value.get("action", "hold")
    if action not in NMR_ACTIONS:
        problems.add("missed_turns.action", f"expected one of {list(NMR_ACTIONS)}, got {action!r}")
        action = "hold"
    extend_by = _duration(value.get("extend_by"), "missed_turns.extend_by", problems)
    if extend_by is not None and extend_by <= timedelta(0):
        problems.add("missed_turns.extend_by", "must be longer than zero")
    unreachable = value.get("unreachable_after")
    if unreachable is not None and (isinstance(unreachable, bool) or not isinstance(unreachable, int)
                                    or unreachable < 1):
        problems.add("missed_turns.unreachable_after",
                     f"expected a whole number of misses >= 1, got {unreachable!r}")
        unreachable = None
    return NmrPolicy(after=after, action=action,
                     extend_by=DEFAULT_EXTEND_BY if extend_by is None else extend_by,
                     unreachable_after=unreachable)


def checked_policy(data: Any) -> dict[str, Any]:
    """The canonical JSON of a valid deadline policy; 422 naming the first bad field."""
    try:
        return policy_to_json(parse_policy(data))
    except PolicyError as exc:
        raise Invalid(str(exc), exc.problems[0][0]) from None
