"""Limits on mail the service sends to other people's addresses at a stranger's request.

Creating a game needs no account and mails an invitation to every seat's address, so
without limits anyone could make dicepost flood any mailbox. Two limits, each refused
with 429, the reason and Retry-After:

- Games created per client address: GAMES_PER_CLIENT (DICEPOST_GAMES_PER_CLIENT,
  default "20 per hour"; "off" for a load generator), counted in the guess limit's
  storage (service.ratelimit: Redis in full mode, so every web process shares the
  count) under the client address it uses (the proxy-corrected one with
  DICEPOST_PROXY_HOPS).
- Open seats taken per client address (service.lobby): SEATS_PER_CLIENT
  (DICEPOST_SEATS_PER_CLIENT, default "10 per hour"), counted the same way.
- Follow links asked for per client address (service.follow): FOLLOWS_PER_CLIENT
  (DICEPOST_FOLLOWS_PER_CLIENT, default "10 per hour"), counted the same way.
- Address confirmations mailed per client address (service.address_confirm):
  CONFIRMS_PER_CLIENT (DICEPOST_CONFIRMS_PER_CLIENT, default "10 per hour"), counted the
  same way, one per confirmation mail.
- Invitations per recipient address: INVITATIONS_PER_ADDRESS an hour (default 10),
  counted from the outbox in the transaction that would queue the next one, by the
  address in normal form (service.inputs.normal_address), like the sign-in links.
  A GM replacing a player is held to the same count.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from datetime import datetime, timedelta

from flask import current_app, has_request_context
from limits import parse
from sqlalchemy import select
from sqlalchemy.orm import Session

from service import clock, limit_lock
from service.errors import TooMany
from service.models import Outbox
from service.ratelimit import EXTENSION, client_address

DEFAULT_GAMES_PER_CLIENT = "20 per hour"
DEFAULT_SEATS_PER_CLIENT = "10 per hour"
DEFAULT_FOLLOWS_PER_CLIENT = "10 per hour"
DEFAULT_CONFIRMS_PER_CLIENT = "10 per hour"
DEFAULT_INVITATIONS_PER_ADDRESS = 10
INVITATION_WINDOW = timedelta(hours=1)


def _minutes(seconds: float) -> str:
    minutes = max(1, int(seconds // 60 + (1 if seconds % 60 else 0)))
    return f"{minutes} minute{'s' if minutes != 1 else ''}"


def count_game_creation() -> None:
    """Count one game created by this request's client; TooMany once the budget is spent."""
    _count_per_client("GAMES_PER_CLIENT", DEFAULT_GAMES_PER_CLIENT, "games-created",
                      "too many games created from your address ({limit}); each one mails its "
                      "invitations: try again in {wait}")


def count_follow_ask() -> None:
    """Count one follow link asked for by this request's client (service.follow); TooMany
    once spent: a client may not have links mailed to any number of addresses."""
    _count_per_client("FOLLOWS_PER_CLIENT", DEFAULT_FOLLOWS_PER_CLIENT, "follow-asks",
                      "too many follow links asked for from your address ({limit}): try again in {wait}")


def count_confirmation() -> None:
    """Count one address confirmation mailed at this request's client's asking
    (service.address_confirm); TooMany once spent."""
    _count_per_client("CONFIRMS_PER_CLIENT", DEFAULT_CONFIRMS_PER_CLIENT, "confirmations",
                      "too many addresses given from your address that needed a confirmation link ({limit}): "
                      "try again in {wait}")


def count_seat_taken() -> None:
    """Count one open seat taken by this request's client (service.lobby); TooMany once spent."""
    _count_per_client("SEATS_PER_CLIENT", DEFAULT_SEATS_PER_CLIENT, "seats-taken",
                      "too many open seats taken from your address ({limit}): try again in {wait}")


def _count_per_client(setting: str, default: str, key: str, refusal: str) -> None:
    if not has_request_context():
        return
    limit = str(current_app.config.get(setting) or default)
    guesses = current_app.extensions.get(EXTENSION)  # None when rate limiting is off
    if limit.lower() == "off" or guesses is None:
        return
    item = parse(limit)
    client = client_address()
    try:
        if guesses.limiter.hit(item, key, client):
            return
        reset = guesses.limiter.get_window_stats(item, key, client).reset_time
    except Exception:  # storage unreachable: let it through, like the limiter's swallow_errors
        current_app.logger.warning("the %s limit could not be checked", key, exc_info=True)
        return
    wait = max(1.0, reset - time.time())
    raise TooMany(refusal.format(limit=limit, wait=_minutes(wait)), wait)


def check_invitations(session: Session, addresses: Iterable[tuple[str | None, str]]) -> None:
    """TooMany naming the first address that these invitations, given as (address in normal
    form, field), would take past the limit; the caller owns the transaction and queues the
    invitations after this."""
    limit = int(current_app.config.get("INVITATIONS_PER_ADDRESS") or DEFAULT_INVITATIONS_PER_ADDRESS)
    wanted: dict[str, tuple[int, str]] = {}
    for address, field in addresses:
        if address:
            more, first = wanted.get(address, (0, field))
            wanted[address] = (more + 1, first)
    if not wanted:
        return
    limit_lock.hold(session, "invitations", *wanted)  # until the invitations are queued and committed
    now = clock.now()
    sent: dict[str, list[datetime]] = {}
    for address, at in session.execute(select(Outbox.to_address, Outbox.created_at).where(
            Outbox.kind == "invitation", Outbox.to_address.in_(list(wanted)),
            Outbox.created_at >= now - INVITATION_WINDOW).order_by(Outbox.created_at)):
        sent.setdefault(str(address), []).append(at)
    for address, (more, field) in wanted.items():
        earlier = sent.get(address, [])
        if len(earlier) + more > limit:
            # The window frees a place when the oldest invitation in it is an hour old.
            wait = ((earlier[0] + INVITATION_WINDOW - now).total_seconds() if earlier
                    else INVITATION_WINDOW.total_seconds())
            raise TooMany(f"{address} has been sent {len(earlier)} invitation(s) in the last hour and "
                          f"takes at most {limit} an hour: try again in {_minutes(wait)}", wait, field)
