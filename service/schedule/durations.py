"""ISO 8601 durations (`PT48H`, `P1DT12H`, `PT5S`, `P2W`) to and from timedelta; people may
write words instead ("1 day", "36 hours", "1 day 12 hours", "90 minutes", "2 weeks").

Only exact units are accepted: weeks, days, hours, minutes and seconds (seconds may carry
a fraction). Years and months are refused because their length depends on the calendar,
and a deadline must mean the same span every round.
"""

from __future__ import annotations

import re
from datetime import timedelta

_PATTERN = re.compile(
    r"P(?:(?P<weeks>\d+)W)?(?:(?P<days>\d+)D)?"
    r"(?:T(?:(?P<hours>\d+)H)?(?:(?P<minutes>\d+)M)?(?:(?P<seconds>\d+(?:[.,]\d+)?)S)?)?"
)
MAX_DURATION = timedelta(days=3660)  # ten years: keeps every deadline far inside datetime's range
_CALENDAR_UNITS = re.compile(r"P(?:\d+Y|\d+M|\d+Y\d+M)")
_WORD_UNITS = {"week": "weeks", "day": "days", "hour": "hours", "hr": "hours", "minute": "minutes",
               "min": "minutes", "second": "seconds", "sec": "seconds"}
_WORD_PART = re.compile(r"(\d+(?:[.,]\d+)?)\s*([a-z]+?)s?\b")
_WORDS = re.compile(r"(?:\d+(?:[.,]\d+)?\s*[a-z]+(?:\s*,\s*|\s+and\s+|\s+|$))+")


def _words(value: str) -> dict[str, float] | None:
    """'1 day 12 hours' → {'days': 1, 'hours': 12}; None when it is not such words."""
    text = value.strip().lower()
    if not _WORDS.fullmatch(text):
        return None
    parts: dict[str, float] = {}
    for number, unit in _WORD_PART.findall(text):
        name = _WORD_UNITS.get(unit)
        if name is None or name in parts:
            return None
        parts[name] = float(number.replace(",", "."))
    return parts or None


class DurationError(ValueError):
    """A duration string that is not an exact ISO 8601 duration."""


def parse_duration(text: str, field: str = "duration") -> timedelta:
    if not isinstance(text, str):
        raise DurationError(f"{field}: expected an ISO 8601 duration string like 'PT48H', got {text!r}")
    value = text.strip().upper()
    words = _words(text)
    if words is not None:
        return _bounded(words, text, field)
    if _CALENDAR_UNITS.match(value):
        raise DurationError(f"{field}: years and months have no fixed length; use days or weeks ({text!r})")
    match = _PATTERN.fullmatch(value)
    if not match or value in ("P", "PT") or value.endswith("T"):
        raise DurationError(f"{field}: {text!r} is not an ISO 8601 duration like 'PT48H' or 'P1DT12H'")
    parts = {k: float(v.replace(",", ".")) if v else 0.0 for k, v in match.groupdict().items()}
    return _bounded(parts, text, field)


def _bounded(parts: dict[str, float], text: str, field: str) -> timedelta:
    try:
        span = timedelta(**parts)
    except OverflowError:
        span = MAX_DURATION + timedelta(days=1)
    if span > MAX_DURATION:
        raise DurationError(f"{field}: at most {MAX_DURATION.days} days, got {text!r}")
    return span


def format_duration(delta: timedelta) -> str:
    """The shortest ISO 8601 form of a non-negative timedelta (whole seconds and fractions kept)."""
    if delta < timedelta(0):
        raise DurationError(f"duration: cannot format a negative span {delta}")
    days, rest = delta.days, delta - timedelta(days=delta.days)
    hours, rest_s = divmod(rest.total_seconds(), 3600)
    minutes, seconds = divmod(rest_s, 60)
    out = "P" + (f"{days}D" if days else "")
    time = ""
    if hours:
        time += f"{int(hours)}H"
    if minutes:
        time += f"{int(minutes)}M"
    if seconds:
        time += f"{seconds:g}S"
    if time:
        out += "T" + time
    return out if out != "P" else "PT0S"


def describe_duration(delta: timedelta) -> str:
    """Words for people, to the minute: '1 day 12 hours', '45 minutes', '0 minutes'."""
    minutes = int(delta.total_seconds() // 60)
    days, rest = divmod(minutes, 24 * 60)
    hours, mins = divmod(rest, 60)
    units = ((days, "day"), (hours, "hour"), (mins, "minute"))
    parts = [f"{n} {unit}{'' if n == 1 else 's'}" for n, unit in units if n]
    return " ".join(parts) or "0 minutes"
