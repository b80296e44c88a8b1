"""Wall-clock times in an IANA zone to UTC instants, with daylight saving resolved.

A local time that does not exist (the spring-forward gap, e.g. 02:30 in Europe/Berlin on
the last Sunday of March) is read with the offset in force before the change, which moves
it forward by the gap's length: 02:30 becomes 03:30 CEST. A local time that happens twice
(the autumn fall-back) means its first occurrence: 02:30 CEST, not 02:30 CET an hour later.
Both are PEP 495's `fold=0` reading, which is what zoneinfo does; the tests pin it down.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from zoneinfo import ZoneInfo


def local_instant(day: date, at: time, zone: ZoneInfo) -> datetime:
    """The UTC instant of wall-clock `at` on `day` in `zone` (gap: moved forward; twice: the first)."""
    return datetime.combine(day, at, tzinfo=zone).replace(fold=0).astimezone(UTC)


def local_date(instant: datetime, zone: ZoneInfo) -> date:
    return instant.astimezone(zone).date()
