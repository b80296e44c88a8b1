"""Spectators following a game by mail: a mail each time a round resolves.

Anyone may read a public game's pages and record; following adds mail. A private game is
read and followed only through a spectator link its GM hands out (service.access). The address asks
on the game page and gets a mail with a link (kind `follow`); opening it and pressing
*Follow* confirms, so nobody can sign someone else up. Each resolved round then mails every
confirmed follower (kind `follow_results`: the round's page, never anyone's pending
orders), and the same link stops it. A link's token is `<row id>.<mac>` under a key derived
from SECRET_KEY for this purpose (the shape of service.signin); the row keeps only its
SHA-256. One address gets at most MAX_ASKS follow mails an hour, whichever games they are
for; one client asks for at most FOLLOWS_PER_CLIENT (service.sendlimits); a game has at
most MAX_FOLLOWERS confirmed followers. An ask nobody confirmed fills no place: it is
not counted, and it is deleted after UNCONFIRMED_KEPT.
"""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any

from flask import current_app
from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from service import clock, limit_lock, urls
from service.errors import Conflict, NotFound, TooMany
from service.inputs import normal_address
from service.mail.outbox import enqueue
from service.models import Follower, Game, Outbox
from service.sendlimits import count_follow_ask
from service.tokens import row_of, row_token, same_hash, token_hash

MAX_ASKS = 3
ASK_WINDOW = timedelta(hours=1)
MAX_FOLLOWERS = 200
UNCONFIRMED_KEPT = timedelta(days=1)


def follow_token(secret_key: str | bytes, follower_id: int, salt: str) -> str:
    return row_token(secret_key, b"dicepost follow link", follower_id, salt)


def follow_url(secret_key: str | bytes, follower: Follower) -> str:
    return urls.absolute("web.follow_link", token=follow_token(secret_key, follower.id, follower.salt))


def ask(session: Session, game_id: str, email_text: str, spectator_id: int | None = None) -> str:
    """Mail the address a link that confirms following the game; the address as stored.
    Asking again for the same game mails the same link again (within the limit). A
    private game is followed only through a spectator link (`spectator_id`): revoking the
    link stops the follower's mail."""
    email = normal_address(email_text)
    count_follow_ask()
    with session.begin():
        game = session.get(Game, game_id)
        if game is None or (not game.public and spectator_id is None):
            raise NotFound(f"no public game {game_id!r}: a private game is followed through a spectator "
                           "link its GM hands out")
        if game.status == "finished":
            raise Conflict("the game is over: its pages and record stay, but no more rounds will be mailed",
                           "email")
        # Held to the end of the transaction: asks at once count one after another.
        limit_lock.hold(session, "follow asks", email)
        limit_lock.hold(session, "followers", game_id)
        since = clock.now() - ASK_WINDOW
        asked = session.scalar(select(func.count(Outbox.id)).where(
            Outbox.kind == "follow", Outbox.to_address == email, Outbox.created_at > since)) or 0
        if asked >= MAX_ASKS:
            raise TooMany(f"{email} has been sent {MAX_ASKS} follow links in the last hour: "
                          "open one of them, or try again in an hour", ASK_WINDOW.total_seconds(), "email")
        session.execute(delete(Follower).where(Follower.game_id == game_id, Follower.confirmed_at.is_(None),
                                               Follower.created_at < clock.now() - UNCONFIRMED_KEPT))
        follower = session.scalars(select(Follower).where(Follower.game_id == game_id,
                                                          Follower.email == email)).first()
        if follower is None:
            count = session.scalar(select(func.count(Follower.id)).where(
                Follower.game_id == game_id, Follower.confirmed_at.is_not(None))) or 0
            if count >= MAX_FOLLOWERS:
                raise Conflict(f"this game has {MAX_FOLLOWERS} followers, the most it mails", "email")
            salt = secrets.token_hex(16)
            # The token needs the row id: a random placeholder until the flush gives one.
            follower = Follower(game_id=game_id, email=email, salt=salt, token_hash=secrets.token_hex(32),
                                spectator_id=spectator_id)
            session.add(follower)
            session.flush()
            secret = current_app.config["SECRET_KEY"]
            follower.token_hash = token_hash(follow_token(secret, follower.id, salt))
        elif spectator_id is not None:
            follower.spectator_id = spectator_id  # the link it follows through now
        enqueue(session, "follow", {"follower": follower.id}, game=game, to=email)
        return email


def by_token(session: Session, token: str) -> Follower:
    """The follower a link names (in the caller's transaction); NotFound for any other text."""
    row = row_of(token)
    follower = session.get(Follower, row) if row is not None else None
    if follower is None or not same_hash(token, follower.token_hash):
        raise NotFound("this follow link is not valid (it may have been stopped already)")
    return follower


def confirm(session: Session, token: str) -> Follower:
    with session.begin():
        follower = by_token(session, token)
        if follower.confirmed_at is None:
            limit_lock.hold(session, "followers", follower.game_id)
            count = session.scalar(select(func.count(Follower.id)).where(
                Follower.game_id == follower.game_id, Follower.confirmed_at.is_not(None))) or 0
            if count >= MAX_FOLLOWERS:
                raise Conflict(f"this game has {MAX_FOLLOWERS} followers, the most it mails")
            follower.confirmed_at = clock.now()
        return follower


def stop(session: Session, token: str) -> str:
    """Stop the mails of the link; the game's id."""
    with session.begin():
        follower = by_token(session, token)
        game_id = follower.game_id
        session.execute(delete(Follower).where(Follower.id == follower.id))
        return game_id


def mail_round(session: Session, game: Game, round_number: int, step: int) -> None:
    """Queue the round's mail to every confirmed follower (in the resolving transaction): of
    a private game, only those who came by a spectator link (revoking one deletes its
    followers)."""
    query = select(Follower).where(Follower.game_id == game.id, Follower.confirmed_at.is_not(None))
    if not game.public:
        query = query.where(Follower.spectator_id.is_not(None))
    for follower in session.scalars(query):
        enqueue(session, "follow_results", {"follower": follower.id, "round": round_number, "step": step},
                game=game, to=follower.email, key=f"{follower.id}.{step}")


def mail_context(session: Session, game: Game, payload: dict[str, Any],
                 secret_key: str | bytes) -> dict[str, Any]:
    """What templates/email/follow*.* need: the follower's link (derived again) and the round."""
    follower = session.get(Follower, int(payload["follower"]))
    if follower is None:
        raise LookupError(f"follower {payload['follower']} stopped following")
    number = int(payload.get("round") or 0)
    token = follow_token(secret_key, follower.id, follower.salt)
    return {"follow_url": follow_url(secret_key, follower),
            # List-Unsubscribe with RFC 8058 one-click: a POST there stops the follower.
            "unsubscribe_url": urls.absolute("web.follow_stop", token=token),
            "round_url": urls.absolute("web.round_", game_id=game.id, number=number) if number else "",
            "finished": game.status == "finished", "outcome": game.outcome}
