"""Time as a dependency: the service asks a Clock, tests hand it a FakeClock.

Every datetime here is timezone-aware UTC. Nothing in dicepost's scheduling calls
`datetime.now()` directly, so tests move time by calling `FakeClock.advance()` and never sleep.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime:
        """The current instant, timezone-aware, in UTC."""
        ...


class UtcClock:
    """The real wall clock."""

    def now(self) -> datetime:
        return datetime.now(UTC)


class FakeClock:
    """A clock that only moves when told to."""

    def __init__(self, start: datetime) -> None:
        self._now = require_aware(start, "start")

    def now(self) -> datetime:
        return self._now

    def advance(self, delta: timedelta) -> datetime:
        if delta < timedelta(0):
            raise ValueError("advance: a clock does not run backwards")
        self._now += delta
        return self._now

    def set(self, instant: datetime) -> datetime:
        self._now = require_aware(instant, "instant")
        return self._now


def require_aware(instant: datetime, field: str) -> datetime:
    """The instant in UTC; naive datetimes are refused because their zone is a guess."""
    if instant.tzinfo is None or instant.utcoffset() is None:
        raise ValueError(f"{field}: a timezone-aware datetime is required, got naive {instant.isoformat()}")
    return instant.astimezone(UTC)


def as_utc(instant: datetime) -> datetime:
    """Database columns often come back naive; dicepost stores UTC, so naive means UTC."""
    if instant.tzinfo is None:
        return instant.replace(tzinfo=UTC)
    return instant.astimezone(UTC)
