"""Who may read a game: anyone for a public game; for a private one only a reader who
shows one of its tokens: a player's, the GM's, or a spectator link's the GM handed out.

A reader proves it by `Authorization: Bearer <token>` (the API, `dicepost verify`) or by
this browser's signed session: opening a player page, the GM page or a spectator link
(`/games/<id>/watch/<token>`, which answers with a redirect to the game page) keeps the
token in the session cookie, and signing in to *Your games* opens the games of your
address. So the links inside the pages carry no token: nothing reaches a Referer header
or an access log. Without one a private game answers 404 with the same words as a game
that does not exist, so neither its title nor that it exists leaks.

A mail to a player of a private game links its game and round pages through
`/games/<id>/open/<token>/...` (the seat's "open" mail token, service.mail.tokens), which
keeps that token in the session as a player page does and redirects on, so a link from a
mail works in a browser that never opened the player page. The token reads only (it is
no player token), and rotating the seat's salt or removing the seat stops it.

Spectator links (`Spectator` rows) are `<row id>.<mac>` under a key derived from
SECRET_KEY for this purpose (service.tokens.row_token): the GM's page can show them again,
and the row keeps only the SHA-256. Revoking one stops it at once, and stops the mail of
whoever followed the game through it.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass

from flask import current_app, has_app_context, has_request_context, request
from flask import session as flask_session
from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from service import clock, limit_lock, urls
from service.errors import Invalid, NotFound
from service.mail.tokens import TokenError, make_token, parse_token, verify_token
from service.models import Follower, Game, Seat, Spectator
from service.sign_ins import signed_in_address
from service.tokens import row_of, row_token, same_hash, token_hash

ACCESS = "access"  # the session key: {game id: the token this browser showed for it}
KEPT_GAMES = 20  # the most games one browser's session keeps a token for (the cookie stays small)
MAX_LINKS = 50  # live spectator links a game may have
MAX_LABEL = 80


@dataclass(frozen=True)
class Reader:
    """Who reads: "public" (anyone, a public game), "player" (`seat`), "gm" or "spectator"."""

    kind: str
    seat: str | None = None
    spectator_id: int | None = None

    @property
    def viewer(self) -> str | None:
        """Whose messages this reader may read (service.messages): a seat, "gm", or None."""
        return "gm" if self.kind == "gm" else self.seat


PUBLIC = Reader("public")


def private_message(game_id: str) -> str:
    return (f"no game {game_id!r} to show: a private game's pages open only with a player, GM or "
            "spectator link (ask the game's GM for a spectator link; a player opens their player "
            "link once in this browser)")


def spectator_token(secret_key: str | bytes, spectator: Spectator) -> str:
    return row_token(secret_key, b"dicepost spectator link", spectator.id, spectator.salt)


def spectator_url(spectator: Spectator) -> str:
    token = spectator_token(current_app.config["SECRET_KEY"], spectator)
    return urls.absolute("web.watch", game_id=spectator.game_id, token=token)


def live_spectator(session: Session, game_id: str, token: str) -> Spectator | None:
    row = row_of(token)
    spectator = session.get(Spectator, row) if row is not None else None
    if (spectator is None or spectator.game_id != game_id or spectator.revoked_at is not None
            or not same_hash(token, spectator.token_hash)):
        return None
    return spectator


def open_token(secret_key: str | bytes, seat: Seat) -> str:
    return make_token(secret_key, "open", seat.id, seat.reply_token_salt or "")


# and web.round_: round/<n>
OPENED = {"web.game": "game", "verify_page.verifier": "verify", "api.record": "record"}


def open_url(game: Game, seat: Seat | None, endpoint: str, **values: object) -> str:
    """A link from a mail to `seat` into one of its game's pages (web.game, web.round_, and
    for a private game the verifier): as it is for a public game (or no seat), through the
    seat's open link for a private one."""
    if game.public or seat is None:
        return urls.absolute(endpoint, game_id=game.id, **values)
    where = OPENED.get(endpoint) or f"round/{values['number']}"
    return urls.absolute("web.open_link", game_id=game.id,
                         token=open_token(current_app.config["SECRET_KEY"], seat), where=where)


def seat_by_open_token(session: Session, game_id: str, token: str) -> Seat | None:
    """The seat of the game whose live open token this is (a removed seat has none)."""
    try:
        signed = parse_token(token)
    except TokenError:
        return None
    seat = session.get(Seat, signed.seat_id)
    if (seat is None or seat.game_id != game_id or seat.player_token_hash is None
            or not has_app_context() or not verify_token(
                current_app.config["SECRET_KEY"], "open", signed, seat.reply_token_salt or "")):
        return None
    return seat


def reader_by_token(session: Session, game: Game, token: str) -> Reader | None:
    if same_hash(token, game.gm_token_hash):
        return Reader("gm")
    if "." in token and (opened := seat_by_open_token(session, game.id, token)) is not None:
        return Reader("player", opened.name)
    seat = session.scalars(select(Seat).where(Seat.game_id == game.id,
                                              Seat.player_token_hash == token_hash(token))).first()
    if seat is not None:
        return Reader("player", seat.name)
    spectator = live_spectator(session, game.id, token)
    return Reader("spectator", spectator_id=spectator.id) if spectator is not None else None


def reader_of(session: Session, game: Game, tokens: Iterable[str], email: str | None = None) -> Reader | None:
    """The reader the first valid token (or the signed-in address's seat) makes; None."""
    for token in tokens:
        if token and (reader := reader_by_token(session, game, token)) is not None:
            return reader
    if email:
        seat = session.scalars(select(Seat).where(Seat.game_id == game.id, Seat.joined_at.is_not(None),
                                                  func.lower(Seat.email) == email.lower())).first()
        if seat is not None and seat.player_token_hash is not None:  # a removed seat reads no more
            return Reader("player", seat.name)
    return None


def _request_tokens(game_id: str) -> list[str]:
    if not has_request_context():
        return []
    tokens = []
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        tokens.append(token.strip())
    kept = (flask_session.get(ACCESS) or {}).get(game_id)
    if isinstance(kept, str):
        tokens.append(kept)
    return tokens


def request_reader(session: Session, game: Game) -> Reader | None:
    """The reader this request proves for the game (the caller owns the transaction)."""
    return reader_of(session, game, _request_tokens(game.id), signed_in_address())


def readable_game(session: Session, game_id: str) -> tuple[Game, Reader]:
    """The game and who reads it (in the caller's transaction); NotFound, worded alike for
    a private game without a token and for a game that does not exist."""
    game = session.get(Game, game_id)
    if game is None:
        raise NotFound(private_message(game_id))
    reader = request_reader(session, game)
    if reader is None:
        if not game.public:
            raise NotFound(private_message(game_id))
        reader = PUBLIC
    return game, reader


def reader(session: Session, game_id: str) -> Reader:
    """`readable_game`'s reader, in a transaction of its own."""
    with session.begin():
        return readable_game(session, game_id)[1]


def remember(game_id: str, token: str) -> None:
    """Keep the token this browser showed for the game (the newest KEPT_GAMES games)."""
    kept = dict(flask_session.get(ACCESS) or {})
    if kept.get(game_id) == token:
        return
    kept.pop(game_id, None)
    kept[game_id] = token
    flask_session[ACCESS] = dict(list(kept.items())[-KEPT_GAMES:])


def remember_through(session: Session, follower: Follower) -> None:
    """A private game's follower opening their follow link reads the game in that browser
    too, while the spectator link they came by is live (its token is derived again)."""
    spectator = session.get(Spectator, follower.spectator_id) if follower.spectator_id else None
    if spectator is not None and spectator.revoked_at is None:
        remember(follower.game_id, spectator_token(current_app.config["SECRET_KEY"], spectator))


# The GM's spectator links.

def create_link(session: Session, game: Game, label: str) -> Spectator:
    """A new spectator link for the game (in the caller's transaction)."""
    text = " ".join((label or "").split())
    if len(text) > MAX_LABEL:
        raise Invalid(f"label: at most {MAX_LABEL} characters, got {len(text)}", "label")
    if any(ord(c) < 32 for c in text):
        raise Invalid("label: control characters are not allowed", "label")
    limit_lock.hold(session, "spectator links", game.id)  # until the link is stored
    live = session.scalar(select(func.count(Spectator.id)).where(
        Spectator.game_id == game.id, Spectator.revoked_at.is_(None))) or 0
    if live >= MAX_LINKS:
        raise Invalid(f"this game has {MAX_LINKS} live spectator links, the most it keeps: revoke one first",
                      "label")
    salt = secrets.token_hex(16)
    # The token needs the row id: a random placeholder until the flush gives one.
    spectator = Spectator(game_id=game.id, label=text, salt=salt, token_hash=secrets.token_hex(32),
                          created_at=clock.now())
    session.add(spectator)
    session.flush()
    spectator.token_hash = token_hash(spectator_token(current_app.config["SECRET_KEY"], spectator))
    return spectator


def revoke_link(session: Session, game: Game, spectator_id: int) -> Spectator:
    """Stop a spectator link at once, and the mail of those who follow through it."""
    spectator = session.get(Spectator, spectator_id)
    if spectator is None or spectator.game_id != game.id:
        raise Invalid(f"this game has no spectator link {spectator_id}", "spectator")
    if spectator.revoked_at is None:
        spectator.revoked_at = clock.now()
    session.execute(delete(Follower).where(Follower.spectator_id == spectator.id))
    return spectator


def live_links(session: Session, game_id: str) -> list[Spectator]:
    return list(session.scalars(select(Spectator).where(
        Spectator.game_id == game_id, Spectator.revoked_at.is_(None)).order_by(Spectator.id)))
