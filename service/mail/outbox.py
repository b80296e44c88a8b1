"""The outbox, at the bottom of the house: the registry of mail kinds and `enqueue`, the one
way to queue a mail; and what the pages and the deliverer read of queued mail and of
addresses that bounce.

A row is inserted in the transaction that makes the news and delivered after its COMMIT
(service.tasks.deliver_after_commit → `worker.tasks.deliver_mail` →
service.outbound.deliver.deliver); a lost send is rung again by the sweeper.

Every row's Message-ID has one form, `<scope.kind.key@domain>`: the scope is the game's
id (or `mail` for mail that belongs to no game), the key is random unless the caller
names one to make the mail unique (a reminder per seat, round and deadline: a second
insert of the same key is dropped, so two sweepers never send it twice). Threading
(In-Reply-To and References to the game's root per seat) is derived from the row's game
and seat when it is composed (service.mail.headers.thread_root).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, Protocol, cast

from flask import current_app, has_app_context
from sqlalchemy import CursorResult, select, update
from sqlalchemy.orm import Session

from service.mail.settings import DEFAULT_DOMAIN, message_domain
from service.models import FailingAddress, Game, Outbox, Seat, add_once
from service.tasks import deliver_after_commit

PREFS = frozenset({"all", "results", "none"})  # a seat's mail_pref
# A seat's message_pref: how table talk reaches it by mail (within its mail_pref: "none" stops all).
MESSAGE_PREFS = frozenset({"each", "digest", "none"})


class Letter(Protocol):
    """The mail a kind's context builder is asked about, and the parts of a context that
    several kinds share (service.outbound.context.Letter reads them from the database
    when the mail is composed). Each part is empty where the mail has no game or seat."""

    @property
    def payload(self) -> Mapping[str, Any]: ...
    def status(self) -> dict[str, Any]: ...  # the open round as the seat sees it
    def latest_grids(self) -> dict[str, Any]: ...  # the grid after the game's latest step
    def results(self) -> dict[str, Any]: ...  # the step the payload names, for this seat
    def final(self) -> dict[str, Any]: ...  # the outcome and the last grid
    def confirmation(self) -> dict[str, Any]: ...  # the submitted text line by line, with errors
    def lead_words(self) -> dict[str, Any]: ...  # a reminder's lead time in words
    def joined(self) -> dict[str, Any]: ...  # the seat's entropy and where it came from
    def sent_at(self) -> dict[str, Any]: ...  # when the table message was written
    def news(self) -> dict[str, Any]: ...  # the GM's news (service.gm.news)
    def follow(self) -> dict[str, Any]: ...  # a spectator's links (service.follow)
    def login(self) -> dict[str, Any]: ...  # the sign-in link (service.signin)
    def commands(self) -> dict[str, Any]: ...  # the mail commands' help (the commands' registry)
    def teaching(self) -> dict[str, Any]: ...  # how the game is won, a round, the worked example


def _nothing(_letter: Letter) -> dict[str, Any]:
    return {}


@dataclass(frozen=True)
class MailKind:
    """What one kind of mail is: its templates, subject, headers, who may get it, and what
    its templates are given beyond what every mail of a game gets."""

    name: str
    subject: Callable[[Mapping[str, Any]], str]  # from the composed mail's context
    to: Literal["seat", "address"]  # a game's seat, or an address outside any game
    prefs: frozenset[str]  # the seat mail preferences that let it through
    replied: bool = False  # always answers a person's mail (Auto-Submitted: auto-replied)
    bulk: bool = False  # news the host sends every player (Precedence: bulk)
    despite_bounces: bool = False  # sent even to an address that bounces (its owner just asked)
    confirmed_only: bool = False  # an address kind that waits for its address to confirm, as a seat's mail
    context: Callable[[Letter], dict[str, Any]] = _nothing

    @property
    def templates(self) -> tuple[str, str]:
        """The text and HTML templates (the .html name turns Jinja's autoescape on)."""
        return f"email/{self.name}.txt", f"email/{self.name}.html"


def _confirmation(c: Mapping[str, Any]) -> str:
    if c["payload"].get("source") == "standing":
        return f"Your standing orders counted for round {c['payload'].get('round')}"
    verb = "NOT stored" if c["payload"].get("errors") else "stored"
    return f"Orders {verb} for round {c['payload'].get('round')}"


def _status(c: Mapping[str, Any]) -> str:
    open_round = c.get("status", {}).get("open_round")
    return "Status" + (f" of round {open_round}" if open_round else "")


def _game_over(c: Mapping[str, Any]) -> str:
    return "Game over: " + ("a draw" if c["draw"] else " and ".join(c["winners"]) + " won")


def _gm_news(c: Mapping[str, Any]) -> str:
    """The first sentence's first clause: 'GM paused the game', 'GM announcement'; with the
    count of the others where one mail tells several actions."""
    text = str(c["payload"].get("text", "News from the GM"))
    first = text.split(":")[0].split(";")[0][:100]
    more = len(c["payload"].get("items") or []) - 1
    return first + (f", and {more} more {'change' if more == 1 else 'changes'}" if more > 0 else "")


_ALL = PREFS
_RESULTS = frozenset({"all", "results"})
_CHOSEN = frozenset({"all"})
# One entry a kind, plus its two templates (MailKind.templates).
KINDS: dict[str, MailKind] = {k.name: k for k in (
    # A seat offered, or a replacement's seat in a game under way (then with the round's status).
    MailKind("invitation", lambda c: f"Invitation: {c['game']['title']}", "seat", _ALL, bulk=True,
             context=lambda m: m.status() if m.payload.get("replacement") else {}),
    MailKind("confirmation", _confirmation, "seat", _CHOSEN,
             context=lambda m: {**m.confirmation(), **m.status()}),
    # v3: a seat has joined: its entropy and where it came from, the force it brought.
    MailKind("joined", lambda c: f"You have joined {c['game']['title']}", "seat", _ALL,
             context=lambda m: m.joined()),
    MailKind("results", lambda c: "The game has started" if c["step"] == 1 else f"Round {c['round']} results",
             "seat", _RESULTS, bulk=True, context=lambda m: m.results()),
    MailKind("reminder", lambda c: f"Reminder: round {c['payload'].get('round')} closes soon", "seat",
             _CHOSEN, bulk=True, context=lambda m: {**m.lead_words(), **m.status()}),
    MailKind("game_over", _game_over, "seat", _RESULTS, bulk=True, context=lambda m: m.final()),
    MailKind("status", _status, "seat", _CHOSEN, context=lambda m: {**m.status(), **m.latest_grids()}),
    MailKind("help", lambda _c: "How to play by mail", "seat", _ALL,
             context=lambda m: {**m.status(), **m.commands(), **m.teaching()}),
    # To whoever sent an unusable mail: no game, no seat, and no preference to ask.
    MailKind("refusal", lambda _c: "Your mail to dicepost was not accepted", "address", _ALL, replied=True),
    # A dashboard sign-in link (service.signin), to the address that asked for it.
    MailKind("login", lambda _c: "Your sign-in link", "address", _ALL, despite_bounces=True,
             context=lambda m: m.login()),
    # A message at the table to this seat, or to everyone (service.messages); reply to answer.
    # Sent only to seats whose message_pref is "each" (seat_wants); "digest" puts it in results.
    MailKind("message", lambda c: f"Message from {c['payload'].get('from')}"
             + (" to everyone" if c["payload"].get("to") == "all" else " to you"), "seat", _RESULTS,
             context=lambda m: m.sent_at()),
    # Every GM action and announcement, to every player (service.gm.news); "none" stops it.
    # The actions of a few minutes come in one mail (service.gm.news.broadcast).
    MailKind("gm_news", _gm_news, "seat", _RESULTS, bulk=True, context=lambda m: m.news()),
    # The link that confirms an address a player gave (service.address_confirm): the one
    # mail it gets before that, so its subject is fixed (no title a stranger chose).
    MailKind("confirm_address", lambda _c: "Confirm your address for dicepost", "address", _ALL),
    # A spectator's link to confirm (or stop) following a public game (service.follow).
    MailKind("follow", lambda c: f"Follow {c['game']['title']} by mail?", "address", _ALL,
             context=lambda m: m.follow()),
    # A followed round resolved, to each confirmed follower (service.follow).
    MailKind("follow_results", lambda c: f"{c['game']['title']}: round {c['payload'].get('round')} resolved",
             "address", _ALL, bulk=True, context=lambda m: m.follow()),
    # To the other players of a game when one declares days away (service.absence).
    MailKind("absence", lambda c: f"{c['payload'].get('seat')} is away {c['payload'].get('from')} to "
             f"{c['payload'].get('to')}", "seat", _RESULTS, bulk=True),
    # The GM's links, to the GM's address given at creation, once it confirms (service.games).
    MailKind("gm_links", lambda c: f"Your GM links for {c['game']['title']}", "address", _ALL,
             confirmed_only=True),
    # To a player the GM replaced or removed, at the address the seat had (timekeeping.due).
    MailKind("seat_lost", lambda c: f"You no longer play {c['payload'].get('seat')} in {c['game']['title']}",
             "address", _ALL),
    # To the other players of a game when a seat's address bounces (service.inbound.bounces).
    MailKind("unreachable", lambda c: f"Mail to {c['payload'].get('seat')} bounces", "seat", _RESULTS,
             bulk=True),
)}

_KEY_UNSAFE = re.compile(r"[^A-Za-z0-9.\-_+]")


def kind_of(name: str) -> MailKind:
    try:
        return KINDS[name]
    except KeyError:
        raise LookupError(f"no mail of kind {name!r}") from None


def wanted(kind: str, mail_pref: str) -> bool:
    """Whether a seat with this mail preference gets news of this kind."""
    return mail_pref in kind_of(kind).prefs


class MailPrefs(Protocol):
    """A seat's mail preferences: a `Seat`, or the resolution's columns of it."""

    @property
    def mail_pref(self) -> str: ...
    @property
    def message_pref(self) -> str: ...


def seat_wants(kind: str, seat: MailPrefs) -> bool:
    """Whether the seat's preferences let news of this kind through: its mail preference,
    and for messages its message preference too."""
    return wanted(kind, seat.mail_pref) and (kind != "message" or seat.message_pref == "each")


def mail_domain() -> str:
    return message_domain(current_app.config) if has_app_context() else DEFAULT_DOMAIN


def _id_mac(secret_key: str | bytes, stem: str) -> str:
    raw = secret_key.encode() if isinstance(secret_key, str) else secret_key
    key = hmac.new(raw, b"dicepost message-id", hashlib.sha256).digest()
    return hmac.new(key, stem.encode(), hashlib.sha256).hexdigest()[:20]


def message_id_for(scope: str, kind: str, key: str | None = None) -> str:
    """`<scope.kind.key.mac@domain>`, the one form of every outbox row's Message-ID. The
    same row always gets the same id (a keyed mail is queued once), but the MAC under
    SECRET_KEY makes it unguessable: a bounce quoting it proves it saw our mail
    (service.inbound.bounces), where the game id, the kind and a round number are
    public."""
    key = _KEY_UNSAFE.sub("-", key) if key else secrets.token_hex(8)
    stem = f"{_KEY_UNSAFE.sub('-', scope)}.{kind}.{key}"
    mac = _id_mac(current_app.config["SECRET_KEY"], stem) if has_app_context() else secrets.token_hex(10)
    return f"<{stem}.{mac}@{mail_domain()}>"


def ours(secret_key: str | bytes, message_id: str) -> bool:
    """Whether a Message-ID is one message_id_for made under this SECRET_KEY."""
    local = message_id.strip().removeprefix("<").partition("@")[0]
    stem, _, mac = local.rpartition(".")
    return bool(stem) and len(mac) == 20 and hmac.compare_digest(_id_mac(secret_key, stem), mac)


def enqueue(session: Session, kind: str, payload: dict[str, Any], *, game: Game | None = None,
            seat: Seat | None = None, to: str | None = None, answer: bool = False,
            key: str | None = None) -> Outbox | None:
    """Queue one mail; None when it has nowhere to go, is one the seat does not want, or
    (with a `key`) was queued before.

    A seat's mail goes to its address; `answer` marks a mail the seat asked for by writing,
    sent whatever its preference says. Mail of an "address" kind goes to `to`.
    """
    if kind_of(kind).to == "seat" and (game is None or seat is None):
        raise ValueError(f"{kind} mail goes to a seat of a game")
    values = outbox_values(kind, payload, game.id if game else None, seat.id if seat else None,
                           seat.email if seat else None, seat is not None and seat_wants(kind, seat),
                           to=to, answer=answer, key=key)
    if values is None:
        return None
    row = Outbox(**values)
    if key is None:
        session.add(row)  # flushed with the rest of the transaction (service.tasks.Outgoing.mail_rows)
    elif not add_once(session, row, select(Outbox.id).where(Outbox.message_id == row.message_id)):
        return None
    deliver_after_commit(session, row)
    return row


def outbox_values(kind: str, payload: dict[str, Any], game_id: str | None, seat_id: int | None,
                  seat_email: str | None, seat_wants_it: bool, *, to: str | None = None,
                  answer: bool = False, key: str | None = None) -> dict[str, Any] | None:
    """The columns of one outbox row (enqueue's rules), or None when the mail has nowhere to
    go or is one the seat does not want (`seat_wants_it`: its preferences let this kind
    through, `seat_wants`): for a caller that inserts it with SQL of its own."""
    if kind_of(kind).to == "seat":
        to = seat_email
        if not answer and not seat_wants_it:
            return None
    if not to:
        return None
    return {"game_id": game_id, "seat_id": seat_id, "kind": kind,
            "payload": {**payload, "answer": True} if answer else payload, "to_address": to,
            "message_id": message_id_for(game_id or "mail", kind, key), "status": "pending", "attempts": 0}


# What the house knows of addresses and queued mail, read by the pages and the deliverer.

def failing(session: Session, address: str | None) -> FailingAddress | None:
    return session.get(FailingAddress, address.strip().lower()) if address else None


def clear_failing(session: Session, address: str) -> None:
    """The player says the address works (again): mail goes to it (the caller owns the
    transaction)."""
    dead = failing(session, address)
    if dead is not None:
        session.delete(dead)


THROTTLED = "waiting: "


def recipient_domain(address: str | None) -> str:
    return (address or "").rsplit("@", 1)[-1].strip().lower()


def backlog(session: Session, game_id: str) -> dict[str, int]:
    """The game's mails waiting for their recipient domain's pace, by domain."""
    rows = session.scalars(select(Outbox.to_address).where(
        Outbox.game_id == game_id, Outbox.status == "pending", Outbox.last_error.like(f"{THROTTLED}%")))
    out: dict[str, int] = {}
    for address in rows:
        out[recipient_domain(address)] = out.get(recipient_domain(address), 0) + 1
    return out


@dataclass(frozen=True)
class FailedMail:
    """A mail that could not be delivered, for the GM's page."""

    id: int
    kind: str
    to_address: str
    seat: str | None
    attempts: int
    error: str
    created_at: datetime


def failed_mail(session: Session, game_id: str) -> list[FailedMail]:
    """Every failed mail of a game, newest first (the caller owns the transaction)."""
    rows = session.execute(
        select(Outbox, Seat.name).outerjoin(Seat, Seat.id == Outbox.seat_id)
        .where(Outbox.game_id == game_id, Outbox.status == "failed").order_by(Outbox.id.desc())).all()
    return [FailedMail(o.id, o.kind, o.to_address or "", name, o.attempts, o.last_error or "", o.created_at)
            for o, name in rows]


def retry_failed(session: Session, game_id: str, outbox_id: int) -> bool:
    """Put a failed mail of the game back in the queue (the GM fixed an address, say).

    The caller owns the transaction and rings service.doorbell.ring_mail after COMMIT.
    """
    result = session.execute(
        update(Outbox).where(Outbox.id == outbox_id, Outbox.game_id == game_id, Outbox.status == "failed")
        .values(status="pending", attempts=0, next_attempt_at=None, lease_until=None)
        .execution_options(synchronize_session=False))
    return cast(CursorResult[Any], result).rowcount == 1
