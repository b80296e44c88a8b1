"""Time as a dependency: every timestamp dicepost stores or compares comes from here.

`now()` asks the app's clock: `app.config["CLOCK"]` when set (tests pass a FakeClock and move
time with `FakeClock.advance()`, never sleeping), else the real UTC wall clock. Nothing else
in the service calls `datetime.now()`, so one transaction never mixes two clocks.
Every datetime here is timezone-aware UTC.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Protocol

from flask import current_app, has_app_context


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


_REAL = UtcClock()


def app_clock() -> Clock:
    if has_app_context():
        clock: Clock | None = current_app.config.get("CLOCK")
        if clock is not None:
            return clock
    return _REAL


def now() -> datetime:
    return app_clock().now()


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
