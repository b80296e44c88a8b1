"""Issuing and spending one-time sign-in links (short-lived, single use, stored hashed).

A link's token is `<row id>.<mac>`: mac is an HMAC-SHA-256 of the row id and the row's
random salt under a key derived from SECRET_KEY for this purpose only (the shape of
service.mail.tokens). The row keeps the salt and SHA-256(token); the token exists only
in the mail, which derives it again when it is written. Spending a link is one
conditional UPDATE (unused and not expired), so of two clicks exactly one signs in.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from flask import current_app
from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from service import clock, limit_lock, urls
from service.db import session_scope
from service.inputs import address_key
from service.mail.outbox import enqueue
from service.models import Game, LoginLink, Seat
from service.tasks import send_signin_link
from service.timekeeping.wording import time_text
from service.tokens import row_token, token_hash
from service.zones import address_zone

LIFETIME = timedelta(minutes=20)
MAX_OPEN_LINKS = 3  # unexpired links an address may hold: a form cannot flood a mailbox
KEEP_SPENT = timedelta(days=1)  # expired links are deleted this long after (when a link is asked for)


@dataclass(frozen=True)
class Issued:
    """What the sign-in form says: never whether the address plays here."""

    sent: bool
    expires_at: datetime


def link_token(secret_key: str | bytes, link_id: int, salt: str) -> str:
    return row_token(secret_key, b"dicepost sign-in link", link_id, salt)


def plays_here(session: Session, email: str) -> bool:
    """Whether the address plays a seat here or runs a game as its GM."""
    return (session.scalar(select(func.count(Seat.id)).where(func.lower(Seat.email) == email)) != 0
            or session.scalar(select(func.count(Game.id)).where(Game.gm_email == email)) != 0)


def issue(session: Session, email_text: str, now: datetime | None = None) -> Issued:
    """Queue a sign-in mail if the address has a seat and not too many open links.

    The caller owns the transaction; the mail is sent after its COMMIT.
    """
    now = now or clock.now()
    email = address_key(email_text)
    expires = now + LIFETIME
    if email is None or not plays_here(session, email):
        return Issued(False, expires)
    limit_lock.hold(session, "sign-in links", email)  # until the link is stored
    open_links = session.scalar(select(func.count(LoginLink.id)).where(
        LoginLink.email == email, LoginLink.used_at.is_(None), LoginLink.expires_at > now)) or 0
    if open_links >= MAX_OPEN_LINKS:
        return Issued(False, expires)
    session.execute(delete(LoginLink).where(LoginLink.expires_at < now - KEEP_SPENT))
    salt = secrets.token_hex(16)
    # The token needs the row id: a random placeholder until the flush gives one (never a match).
    link = LoginLink(email=email, salt=salt, token_hash=secrets.token_hex(32), created_at=now,
                     expires_at=expires)
    session.add(link)
    session.flush()
    link.token_hash = token_hash(link_token(current_app.config["SECRET_KEY"], link.id, salt))
    enqueue(session, "login", {"link": link.id}, to=email)
    return Issued(True, expires)


def issue_now(email_text: str) -> bool:
    """issue() in a transaction of its own (its mail is sent after the COMMIT): the work the
    sign-in form hands off, run after the answer (in the worker, or in-process embedded)."""
    with session_scope() as session, session.begin():
        return issue(session, email_text).sent


def hand_off(email_text: str) -> None:
    """Send the sign-in work on an address, whoever it is: the same one task for every
    address, so the form's answer cannot tell a player from a stranger."""
    send_signin_link(current_app._get_current_object(), email_text)  # type: ignore[attr-defined]


def spend(session: Session, token: str, now: datetime | None = None) -> str | None:
    """The address a valid, unused, unexpired link signs in (marking it used), else None.

    The caller owns the transaction.
    """
    now = now or clock.now()
    digest = token_hash(token.strip())
    result = session.execute(
        update(LoginLink).where(LoginLink.token_hash == digest, LoginLink.used_at.is_(None),
                                LoginLink.expires_at > now)
        .values(used_at=now).execution_options(synchronize_session=False))
    if result.rowcount != 1:  # type: ignore[attr-defined]
        return None
    return session.scalar(select(LoginLink.email).where(LoginLink.token_hash == digest))


def issued_here(session: Session, token: str) -> bool:
    """Whether the token is one this server issued (spent or not): a guess is not."""
    digest = token_hash(token.strip())
    return session.scalar(select(func.count(LoginLink.id)).where(LoginLink.token_hash == digest)) != 0


def mail_context(session: Session, payload: dict[str, Any], secret_key: str | bytes) -> dict[str, Any]:
    """What templates/email/login.* need: the link (derived again) and when it stops working."""
    link = session.get(LoginLink, int(payload["link"]))
    if link is None:
        raise LookupError(f"sign-in link {payload['link']} is gone")
    token = link_token(secret_key, link.id, link.salt)
    return {"login_url": urls.absolute("dashboard.signin_link", token=token),
            # in the address's own zone when it set one (service.zones), UTC beside
            "expires_at": time_text(link.expires_at, ZoneInfo("UTC"), address_zone(session, link.email)),
            "minutes": int(LIFETIME.total_seconds() // 60)}
