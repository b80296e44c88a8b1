"""Confirming an address before game mail goes to it.

Anyone may type any address into a seat (creating a game, a GM's replacement, a player's
settings), so an address a player gives gets one mail, the confirmation, and nothing else
until its owner shows they read it: by pressing the link in it, by signing in by mail
(service.signin), or by writing from it (service.inbound, as far as its identification
trusts a sender). The game's mail to an unconfirmed address waits (service.outbound.deliver)
and goes out once the address confirms; after CONFIRM_WAIT it is skipped. The
confirmation's subject is fixed: no title or name a stranger chose reaches the inbox.

Confirmations are limited per address (MAX_PER_ADDRESS an hour, counted from the outbox
holding service.limit_lock) and per client (CONFIRMS_PER_CLIENT, service.sendlimits),
both refused with 429. What an address sets for itself (its time zone) waits for it too.
Addresses at the domains of DICEPOST_CONFIRMED_DOMAINS count as confirmed (a club's own
mail domain, a test set-up).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta

from flask import current_app
from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer
from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from service import clock, limit_lock, urls
from service.errors import Invalid, TooMany
from service.mail.outbox import enqueue
from service.models import ConfirmedAddress, Outbox
from service.sendlimits import count_confirmation
from service.tasks import deliver_id_after_commit

MAX_PER_ADDRESS = 3
WINDOW = timedelta(hours=1)
LINK_LIFETIME = timedelta(days=7)
CONFIRM_WAIT = timedelta(days=7)  # how long the game's mail waits for the address
WAITING = "unconfirmed: "  # the last_error of a row waiting for its address


def trusted_domain(address: str) -> bool:
    """Whether the address is at one of CONFIRMED_DOMAINS (or a subdomain of one)."""
    domain = address.rpartition("@")[2].lower()
    domains = current_app.config.get("CONFIRMED_DOMAINS") or ()
    return any(domain == d or domain.endswith("." + d) for d in domains)


def is_confirmed(session: Session, address: str | None) -> bool:
    if not address:
        return False
    address = address.strip().lower()
    return trusted_domain(address) or session.get(ConfirmedAddress, address) is not None


def _serializer() -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(current_app.config["SECRET_KEY"], salt="dicepost address confirmation")


def confirm_url(address: str) -> str:
    return urls.absolute("web.confirm_address", token=_serializer().dumps(address))


def address_of(token: str) -> str:
    """The address a confirmation link names; Invalid for any other text or an old link."""
    try:
        return str(_serializer().loads(token, max_age=int(LINK_LIFETIME.total_seconds())))
    except SignatureExpired:
        raise Invalid("this confirmation link is more than 7 days old: give the address again for a new one",
                      "token") from None
    except BadSignature:
        raise Invalid("this is not a confirmation link of ours", "token") from None


def ask(session: Session, addresses: Iterable[tuple[str | None, str]]) -> list[str]:
    """Queue a confirmation to each unconfirmed address given as (address in normal form,
    field); the addresses mailed. TooMany past an address's or the client's limit. The
    caller owns the transaction."""
    wanted: dict[str, str] = {}
    for address, field in addresses:
        if address and address not in wanted and not is_confirmed(session, address):
            wanted[address] = field
    if not wanted:
        return []
    limit_lock.hold(session, "confirmations", *wanted)  # until the confirmations are committed
    since = clock.now() - WINDOW
    for address, field in wanted.items():
        sent = session.scalar(select(func.count(Outbox.id)).where(
            Outbox.kind == "confirm_address", Outbox.to_address == address, Outbox.created_at > since)) or 0
        if sent >= MAX_PER_ADDRESS:
            raise TooMany(f"{address} has been sent {MAX_PER_ADDRESS} confirmation links in the last hour "
                          "and gets no more for now: its owner can open one of them, or try again in an hour",
                          WINDOW.total_seconds(), field)
    for address in wanted:
        count_confirmation()
        enqueue(session, "confirm_address", {"address": address, "confirm_url": confirm_url(address)},
                to=address)
    return list(wanted)


def confirm(session: Session, address: str, how: str) -> bool:
    """Record that the address's owner read it (in the caller's transaction) and send the
    mail that waited for it after COMMIT; False when it was confirmed before."""
    address = address.strip().lower()
    if session.get(ConfirmedAddress, address) is not None:
        return False
    session.add(ConfirmedAddress(address=address, confirmed_at=clock.now(), how=how))
    released = session.scalars(
        update(Outbox).where(Outbox.to_address == address, Outbox.status == "pending",
                             Outbox.last_error.like(f"{WAITING}%"))
        .values(next_attempt_at=None, last_error=None, attempts=0)
        .returning(Outbox.id).execution_options(synchronize_session=False)).all()
    for outbox_id in released:
        deliver_id_after_commit(session, outbox_id)
    return True
