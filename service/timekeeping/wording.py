"""A round's deadline as pages and mails show it: UTC, and the game's own time zone beside it.

Players live in different zones; the game's deadline policy names the zone its calendar
rules use (service.schedule.policy), so that is the local time every player can agree on.
"""

from __future__ import annotations

from datetime import UTC, datetime

from service.models import Game
from service.timekeeping.state import policy_of


def deadline_text(game: Game, when: datetime) -> str:
    """'Mon 30 Nov 2026 18:00 UTC (19:00 Europe/Berlin, the game's time zone)'; UTC only
    when the game plays in UTC."""
    utc = when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)
    text = utc.strftime("%a %d %b %Y %H:%M UTC")
    zone = policy_of(game).zone
    if zone.key == "UTC":
        return text
    local = utc.astimezone(zone)
    day = "" if local.date() == utc.date() else local.strftime("%a %d %b ")
    return f"{text} ({day}{local.strftime('%H:%M')} {zone.key}, the game's time zone)"
