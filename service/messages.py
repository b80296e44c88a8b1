"""Talk at the table: public messages to everyone and private ones between seats and to
the GM, by web and by mail.

Who sees a message: a public one ("all") everyone, every game record included; a private
one only its sender and its recipient, on their pages and in the records they download
(`record_messages`). The GM reads the private messages between seats only in a game
created with the option `gm_reads_private` (default: not), which the players are shown
where they join and where they write; the messages to and from the GM are the GM's own.
A message never carries orders: it is stored apart from them and shown only as what it
says. Each seat may send MESSAGES_PER_HOUR (default 30) an hour. By mail, a recipient
seat gets each message (kind `message`, which it may answer by replying) when its message
preference is "each", or the round's talk in its results mail (`digest`) when it is
"digest"; its mail preference "none" stops both.

A seat taken over by a newcomer starts with no private history: its `private_from` is the
newest message id when it was taken, and the private messages it sent or got up to that id
stay the former player's. The GM's messages to the seat are kept (the newcomer inherits
the GM's instructions for the seat), and the page says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from flask import current_app, has_app_context
from sqlalchemy import and_, bindparam, func, or_, select
from sqlalchemy.orm import Session

from service import clock, limit_lock
from service.errors import Invalid, TooMany
from service.mail.outbox import enqueue
from service.models import Game, GmRead, MessageRead, Seat, TableMessage
from service.notify import notify

MAX_TEXT = 2000
# The creation option that lets the GM read the private messages between seats.
PRIVATE_OPTION = "gm_reads_private"
DEFAULT_PER_HOUR = 30
WINDOW = timedelta(hours=1)


@dataclass(frozen=True)
class Shown:
    """One message as a page shows it."""

    id: int
    sender: str
    recipient: str
    round: int
    text: str
    at: str  # ISO, UTC
    private: bool
    unread: bool


def gm_reads_private(game: Game) -> bool:
    """Whether the game's GM reads the private messages between its seats (a creation option)."""
    return bool((game.options or {}).get(PRIVATE_OPTION))


def private_words(game: Game, viewer: str | None = None) -> str:
    """Who reads a private message in this game, in the words of a player (or, viewer "gm",
    of the GM): shown where they join and where they write."""
    if viewer == "gm":
        return ("You read the private messages between players too: the game was created so, and "
                "every player is told." if gm_reads_private(game) else
                "The private messages between players are not shown to you: the game was created so "
                "that only their sender and their recipient read them.")
    return ("A private message is read by its sender, its recipient and the GM: this game was created "
            "so that the GM reads the private messages between players." if gm_reads_private(game) else
            "A private message is read only by its sender and its recipient: the GM of this game "
            "does not read the private messages between players.")


def recipient_of(game: Game, sender: str, value: Any) -> str:
    """'all', 'gm' or a seat's own name; Invalid naming the field `to`."""
    if not isinstance(value, str) or not value.strip():
        raise Invalid("to: write all, gm or the name of a seat", "to")
    word = value.strip()
    if word.lower() in ("all", "gm"):
        if word.lower() == "gm" and sender == "gm":
            raise Invalid("to: the GM cannot write to the GM; write all or a seat's name", "to")
        return word.lower()
    for seat in game.seats:
        if seat.name.lower() == word.lower():
            if seat.name == sender:
                raise Invalid("to: a message to yourself; write all, gm or another seat's name", "to")
            return seat.name
    names = ", ".join(s.name for s in game.seats)
    raise Invalid(f"to: {word!r} is not a seat of this game (write all, gm or one of {names})", "to")


def checked_text(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise Invalid("text: the message is empty", "text")
    text = value.strip().replace("\r\n", "\n")
    if len(text) > MAX_TEXT:
        raise Invalid(f"text: at most {MAX_TEXT} characters, got {len(text)}", "text")
    if any(ord(c) < 32 and c not in "\n\t" for c in text):
        raise Invalid("text: control characters are not allowed", "text")
    return text


def _check_pace(session: Session, game: Game, sender: str) -> None:
    limit = int(current_app.config.get("MESSAGES_PER_HOUR") or DEFAULT_PER_HOUR) if has_app_context() \
        else DEFAULT_PER_HOUR
    limit_lock.hold(session, "messages", f"{game.id} {sender}")  # until the message is stored
    since = clock.now() - WINDOW
    mine = (TableMessage.game_id == game.id, TableMessage.sender == sender, TableMessage.created_at >= since)
    sent = session.scalar(select(func.count()).select_from(TableMessage).where(*mine)) or 0
    if sent >= limit:
        first = session.scalar(select(func.min(TableMessage.created_at)).where(*mine))
        wait = max(60.0, ((first or clock.now()) + WINDOW - clock.now()).total_seconds())
        raise TooMany(f"too many messages from {sender} ({limit} an hour): try again in "
                      f"{int(wait // 60) + 1} minutes", wait)


def post(session: Session, game: Game, sender: str, to: Any, text: Any, source: str) -> TableMessage:
    """Store one message (in the caller's transaction) and mail it to its recipient seats."""
    recipient = recipient_of(game, sender, to)
    body = checked_text(text)
    _check_pace(session, game, sender)
    row = TableMessage(game_id=game.id, sender=sender, recipient=recipient, round=game.current_round,
                       text=body, source=source, created_at=clock.now())
    session.add(row)
    session.flush()
    for seat in game.seats:
        if seat.name != sender and recipient in ("all", seat.name):
            enqueue(session, "message", {"message_id": row.id, "from": sender, "to": recipient,
                                         "text": body, "round": row.round}, game=game, seat=seat)
    notify(session, game.id, "message", {"from": sender, "to": recipient, "text": body, "round": row.round,
                                         "message_id": row.id},
           to=None if recipient == "all" else (recipient,))
    return row


def _own_private(game_id: str, seat_name: str) -> Any:
    """The private messages the seat's present player may read: those it sent or got since
    it took the seat (its `private_from`), and every one the GM sent it."""
    since = select(func.coalesce(Seat.private_from, 0)).where(
        Seat.game_id == game_id, Seat.name == seat_name).scalar_subquery()
    return and_(or_(TableMessage.recipient == seat_name, TableMessage.sender == seat_name),
                or_(TableMessage.sender == "gm", TableMessage.id > func.coalesce(since, 0)))


def _visible(game: Game, viewer: str | None) -> Any:
    """The query of the messages `viewer` may read: a seat's name, 'gm' (the public talk and
    the GM's own, every one where the game lets the GM read between seats), or None (a
    visitor: public messages only)."""
    query = select(TableMessage).where(TableMessage.game_id == game.id)
    if viewer is None:
        return query.where(TableMessage.recipient == "all")
    if viewer == "gm":
        if gm_reads_private(game):
            return query
        return query.where(or_(TableMessage.recipient.in_(("all", "gm")), TableMessage.sender == "gm"))
    return query.where(or_(TableMessage.recipient == "all", _own_private(game.id, viewer)))


def newest_id(session: Session, game_id: str) -> int:
    """The newest message's id in the game (0: none yet): a taken-over seat's `private_from`."""
    return int(session.scalar(select(func.max(TableMessage.id)).where(TableMessage.game_id == game_id)) or 0)


def _seen(session: Session, game: Game, viewer: str | None, seat: Seat | None) -> int | None:
    """The newest message id the reader has seen: `seat`'s mark, the GM's (viewer "gm"), or
    None for a reader whose reading is not kept (a visitor, a spectator)."""
    if seat is not None:
        mark = session.get(MessageRead, seat.id)
        return mark.last_id if mark else 0
    if viewer == "gm":
        gm = session.get(GmRead, game.id)
        return gm.last_id if gm else 0
    return None


def shown(session: Session, game: Game, viewer: str | None, seat: Seat | None = None,
          limit: int = 200) -> list[Shown]:
    """The messages `viewer` may read, newest first; those `seat` (or the GM) has not seen marked."""
    seen = _seen(session, game, viewer, seat)
    rows = session.scalars(_visible(game, viewer).order_by(TableMessage.id.desc()).limit(limit))
    return [Shown(r.id, r.sender, r.recipient, r.round, r.text, r.created_at.isoformat(),
                  r.recipient != "all", seen is not None and r.id > seen and r.sender != viewer)
            for r in rows]


def unread(session: Session, game: Game, viewer: str, seat: Seat | None = None) -> int:
    """How many messages `seat` (or, viewer "gm", the GM) has not seen yet."""
    seen = _seen(session, game, viewer, seat)
    if seen is None:
        return 0
    query = _visible(game, viewer).where(TableMessage.id > seen, TableMessage.sender != viewer)
    return int(session.scalar(select(func.count()).select_from(query.subquery())) or 0)


def mark_read(session: Session, game: Game, viewer: str | None, seat: Seat | None,
              messages: list[Shown]) -> None:
    """`seat` (or the GM) has seen every message up to the newest shown."""
    if not messages or (seat is None and viewer != "gm"):
        return
    newest = max(m.id for m in messages)
    mark: MessageRead | GmRead | None = (session.get(MessageRead, seat.id) if seat is not None
                                         else session.get(GmRead, game.id))
    if mark is None:
        session.add(MessageRead(seat_id=seat.id, last_id=newest) if seat is not None
                    else GmRead(game_id=game.id, last_id=newest))
    elif newest > mark.last_id:
        mark.last_id = newest


def record_messages(session: Session, game: Game, viewer: str | None = None) -> list[dict[str, Any]]:
    """The table talk for the game's record, oldest first, each with its round: what
    `viewer` may read (a seat's name: the public talk and the private messages it sent or
    got; "gm": what the GM reads, `_visible`; None: the public talk)."""
    rows = session.scalars(_visible(game, viewer).order_by(TableMessage.id))
    return [{"round": r.round, "from": r.sender, "to": r.recipient, "at": r.created_at.isoformat(),
             "text": r.text} for r in rows]


# Built once: building the statement costs more than running it (a results mail asks
# once a step).
_PRIVATE_PARTIES = select(TableMessage.sender, TableMessage.recipient).where(
    TableMessage.game_id == bindparam("game_id"), TableMessage.recipient != "all").distinct()


def private_parties(session: Session, game_id: str) -> frozenset[str]:
    """The seats that sent or got a private message in the game: only their records
    differ from the public one (one statement)."""
    rows = session.execute(_PRIVATE_PARTIES, {"game_id": game_id})
    return frozenset(name for row in rows for name in row if name != "gm")


def digest(session: Session, game: Game, seat: Seat, number: int) -> list[TableMessage]:
    """What the results mail of round `number` carries for `seat`, oldest first: the
    round's public talk (its own included) and the private messages to it. Never anyone
    else's private messages (nor the seat's own to others: it wrote them)."""
    return list(session.scalars(select(TableMessage).where(
        TableMessage.game_id == game.id, TableMessage.round == number,
        or_(TableMessage.recipient == "all",
            and_(TableMessage.recipient == seat.name, _own_private(game.id, seat.name)))
    ).order_by(TableMessage.id)))
