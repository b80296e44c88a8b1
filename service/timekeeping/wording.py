"""A time as pages and mails show it: UTC, and the game's own time zone beside it; in a
player's mail, the player's zone first with UTC (and the game's zone) beside.

Players live in different zones; the game's deadline policy names the zone its calendar
rules use (service.schedule.policy), so that is the local time every player can agree on.
A player who set their own zone (service.zones) reads their mail's times in it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from service.models import Game
from service.timekeeping.state import policy_of

_UTC = ZoneInfo("UTC")


def _beside(utc: datetime, zone: ZoneInfo, shown: datetime) -> str:
    """'19:00 Europe/Berlin', with the day when it is not the day of `shown`."""
    local = utc.astimezone(zone)
    day = "" if local.date() == shown.date() else local.strftime("%a %d %b ")
    return f"{day}{local.strftime('%H:%M')} {zone.key}"


def time_text(when: datetime, game_zone: ZoneInfo, player_zone: ZoneInfo | None = None, *,
              year: bool = True) -> str:
    """Without a player zone: 'Mon 30 Nov 2026 18:00 UTC (19:00 Europe/Berlin, the game's
    time zone)', UTC only when the game plays in UTC. With one: 'Mon 30 Nov 2026 13:00
    America/New_York, your time (18:00 UTC; 19:00 Europe/Berlin, the game's time zone)'."""
    utc = when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)
    date = "%a %d %b %Y %H:%M" if year else "%a %d %b %H:%M"
    if player_zone is None or player_zone.key == "UTC":
        text = utc.strftime(f"{date} UTC") + (", your time" if player_zone is not None else "")
        if game_zone.key == "UTC":
            return text
        return f"{text} ({_beside(utc, game_zone, utc)}, the game's time zone)"
    local = utc.astimezone(player_zone)
    head = f"{local.strftime(date)} {player_zone.key}, your time"
    in_utc = _beside(utc, _UTC, local)
    if game_zone.key == player_zone.key:
        return f"{head} and the game's ({in_utc})"
    if game_zone.key == "UTC":
        return f"{head} ({in_utc})"
    return f"{head} ({in_utc}; {_beside(utc, game_zone, local)}, the game's time zone)"

def deadline_text(game: Game, when: datetime, player_zone: ZoneInfo | None = None, *,
                  year: bool = True) -> str:
    """A round's deadline (or any time of the game) in words: time_text in the game's zone."""
    return time_text(when, policy_of(game).zone, player_zone, year=year)
