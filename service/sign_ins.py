"""A dashboard sign-in, revocable: the session cookie holds the address and a random
secret, and the `sign_ins` table the secret's SHA-256. A request counts as signed in only
while that row stands, so signing out (which deletes it) ends every copy of the cookie,
not just the browser's own. Rows older than the session's lifetime are deleted when a
new sign-in starts.
"""

from __future__ import annotations

import secrets

from flask import current_app, g, has_request_context
from flask import session as flask_session
from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from service import clock
from service.db import get_session
from service.models import SignIn
from service.tokens import token_hash

ADDRESS = "dashboard_email"  # the session key of the address signed in to Your games
SIGN_IN = "dashboard_sign_in"  # the session key of the sign-in's secret
_CHECKED = "dicepost_signed_in"  # flask.g: the answer, once a request


def start(session: Session, email: str) -> None:
    """Sign this browser in as `email` (in the caller's transaction): a fresh session."""
    secret = secrets.token_urlsafe(32)
    now = clock.now()
    session.execute(delete(SignIn).where(
        SignIn.created_at < now - current_app.permanent_session_lifetime))
    session.add(SignIn(secret_hash=token_hash(secret), email=email, created_at=now))
    flask_session.clear()
    flask_session.permanent = True  # kept across browser restarts, for PERMANENT_SESSION_LIFETIME
    flask_session[ADDRESS] = email
    flask_session[SIGN_IN] = secret
    g.pop(_CHECKED, None)


def end() -> None:
    """Sign out: the sign-in's row goes, so no copy of the cookie signs in again."""
    secret = flask_session.get(SIGN_IN)
    if isinstance(secret, str):
        db = get_session()
        with db.begin():
            db.execute(delete(SignIn).where(SignIn.secret_hash == token_hash(secret)))
    flask_session.clear()
    g.pop(_CHECKED, None)


def signed_in_address() -> str | None:
    """The address this request's session is signed in as, while its sign-in stands."""
    if not has_request_context():
        return None
    if _CHECKED in g:
        checked: str | None = g.get(_CHECKED)
        return checked
    email, secret = flask_session.get(ADDRESS), flask_session.get(SIGN_IN)
    found: str | None = None
    if isinstance(email, str) and isinstance(secret, str):
        db = get_session()
        query = select(SignIn.email).where(SignIn.secret_hash == token_hash(secret))
        if db.in_transaction():
            stored = db.scalar(query)
        else:
            with db.begin():
                stored = db.scalar(query)
        found = email if stored == email else None
    setattr(g, _CHECKED, found)
    return found
