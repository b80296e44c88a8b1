"""Declared absences: whole days a player is away, which stretch deadlines inside them.

Stored on the player as JSON: `[{"from": "2026-12-24", "to": "2026-12-27"}, ...]`, dates
inclusive and read in the game's time zone (an absence runs from local midnight at the
start of `from` to local midnight after `to`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from service.schedule.localtime import local_instant

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


def parse_absences(data: Any, root: str = "absences") -> list[Absence]:
    """A sorted list of absences; ValueError naming the field (e.g. `absences[1].to`)."""
    if not isinstance(data, list):
        raise ValueError(f"{root}: expected a list of {{'from': 'YYYY-MM-DD', 'to': 'YYYY-MM-DD'}}")
    if len(data) > MAX_ABSENCES:
        raise ValueError(f"{root}: at most {MAX_ABSENCES} absences, got {len(data)}")
    out: list[Absence] = []
    for i, item in enumerate(data):
        where = f"{root}[{i}]"
        if not isinstance(item, dict):
            raise ValueError(f"{where}: expected an object with 'from' and 'to'")
        unknown = sorted(set(item) - {"from", "to"})
        if unknown:
            raise ValueError(f"{where}.{unknown[0]}: unknown field")
        first = _date(item.get("from"), f"{where}.from")
        last = _date(item.get("to"), f"{where}.to")
        if last < first:
            raise ValueError(f"{where}.to: {last} is before from {first}")
        if (last - first).days >= MAX_ABSENCE_DAYS:
            raise ValueError(f"{where}: an absence may last at most {MAX_ABSENCE_DAYS} days")
        out.append(Absence(first, last))
    return sorted(out, key=lambda a: (a.first, a.last))


def _date(value: Any, field: str) -> date:
    if not isinstance(value, str):
        raise ValueError(f"{field}: expected a date 'YYYY-MM-DD', got {value!r}")
    try:
        day = date.fromisoformat(value)
    except ValueError:
        raise ValueError(f"{field}: expected a date 'YYYY-MM-DD', got {value!r}") from None
    if not MIN_YEAR <= day.year <= MAX_YEAR:
        raise ValueError(f"{field}: a date from {MIN_YEAR} to {MAX_YEAR}, got {value!r}")
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
