"""The time zone a player reads their mail in: one per address, as "Your games" groups a
player's seats by address, so it is set once (on "Your games", the player page, the
settings page or API, or by mail with `ZONE Europe/Berlin`) and holds in every game.

Mails to a seat whose address has a zone give each time in it with UTC beside
(service.timekeeping.wording); without one they keep UTC and the game's zone.
"""

from __future__ import annotations

from functools import cache
from typing import Any
from zoneinfo import ZoneInfo, available_timezones

from sqlalchemy.orm import Session

from service import clock
from service.errors import Invalid
from service.models import PlayerZone, Seat


@cache
def time_zones() -> tuple[str, ...]:
    """The IANA zone names the pickers offer (the machine's tz database)."""
    return tuple(sorted(z for z in available_timezones() if "/" in z or z == "UTC"))


@cache
def _known() -> frozenset[str]:
    return frozenset(available_timezones() - {"localtime", "Factory"})


def is_zone(name: str) -> bool:
    return name in _known()


def zone_choice(value: Any, field: str = "zone") -> str | None:
    """The IANA name `value` names, None for "" (no zone: UTC and the game's), or Invalid
    naming `field`."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str):
        raise Invalid(f"{field}: expected an IANA time zone name like Europe/Berlin as text, "
                      f"got {type(value).__name__}", field)
    name = value.strip()
    if not is_zone(name):
        raise Invalid(f"{field}: {name[:80]!r} is not a time zone: give an IANA name like Europe/Berlin, "
                      "America/New_York or UTC", field)
    return name


def address_zone(session: Session, address: str | None) -> ZoneInfo | None:
    row = session.get(PlayerZone, address.lower()) if address else None
    return ZoneInfo(row.zone) if row is not None and row.zone in _known() else None


def seat_zone(session: Session, seat: Seat | None) -> ZoneInfo | None:
    """The zone of the seat's player, or None when they have set none."""
    return address_zone(session, seat.email) if seat is not None else None


def set_address_zone(session: Session, address: str, name: str | None) -> None:
    """Store (or with None drop) the address's zone; the caller owns the transaction and
    has checked `name` with zone_choice."""
    row = session.get(PlayerZone, address.lower())
    if name is None:
        if row is not None:
            session.delete(row)
            session.flush()  # so a get in this transaction no longer finds it
    elif row is None:
        session.add(PlayerZone(address=address.lower(), zone=name, updated_at=clock.now()))
    else:
        row.zone, row.updated_at = name, clock.now()
