"""Reminders: each player picks how long before the deadline to be told (default 12 hours).

A reminder is due once `deadline - lead` has passed and the deadline has not. It is sent at
most once per (game, seat, round, deadline): the outbox row carries `reminder_key(...)` as
its unique key, so a second sweeper (or a second pass) inserting the same reminder collides
and sends nothing, while a moved deadline (pause, extension) earns a fresh reminder.
A reminder whose moment falls at or before the round opened is skipped: the mail that
opened the round already announced the deadline. A lead of zero turns reminders off.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from service.schedule.durations import DurationError, format_duration, parse_duration

DEFAULT_LEAD = timedelta(hours=12)
MAX_LEAD = timedelta(days=14)


def parse_lead(value: Any, field: str = "reminder_lead") -> timedelta:
    """An ISO 8601 duration between PT0S (off) and P14D."""
    try:
        lead = parse_duration(value, field)
    except DurationError as exc:
        raise ValueError(str(exc)) from None
    if lead > MAX_LEAD:
        raise ValueError(f"{field}: at most {format_duration(MAX_LEAD)}, got {value!r}")
    return lead


def reminder_due(now: datetime, opened_at: datetime, deadline: datetime | None, lead: timedelta) -> bool:
    if deadline is None or lead <= timedelta(0):
        return False
    moment = deadline - lead
    return opened_at < moment <= now < deadline


def reminder_key(seat_id: int, round_number: int, deadline: datetime) -> str:
    """One reminder per seat, round and deadline: the key of its Message-ID within the game."""
    stamp = deadline.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    return f"{seat_id}.r{round_number}.{stamp}"
