"""Delivering outbox rows: claim with a lease, compose, send, mark (the transactional outbox).

deliver(outbox_id) is what `worker.tasks.deliver_mail` runs; it is safe to run twice
and from two workers at once:

1. claim: one conditional UPDATE moves the row to `sending`, sets a lease and counts
   the attempt, only if the row is pending (or its lease ran out) and due. Of two
   workers exactly one gets a row count of 1; the other returns. The lease is short and
   renewed by a thread for as long as the worker is still on the row, so a row whose
   worker died is free again one lease later, while a slow SMTP server keeps its row.
2. compose, outside the claim's transaction. The player's mail preference is checked
   again here (it may have changed since the row was queued); a row the player turned
   off ends as `skipped`. Answers to a player's own mail (payload "answer": true) and
   refusals are always sent. A seat's mail to an address that has not confirmed
   (service.address_confirm) waits: pending until CONFIRM_WAIT after it was queued
   (confirming releases it at once), then skipped.
3. send: SMTP outside any transaction. Without SMTP_URL (the embedded mailbox) there is
   nothing outside the database, so steps 1 to 4 are one transaction: the row is taken
   and marked sent in one UPDATE, composed, and its message stored in stored_mail; no
   lease, and a worker that dies leaves the row as it was.
4. mark, fenced by the attempt number, so a worker whose lease was taken over cannot
   overwrite the newer attempt: sent; or pending again with next_attempt_at after a
   temporary failure (exponential backoff: the sweeper rings when it is due, no ETA
   tasks); or failed after a permanent one or too many attempts, with last_error, which
   the GM's page lists (failed_mail).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Hashable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any, cast
from zoneinfo import ZoneInfo

from flask import current_app
from sqlalchemy import (
    BindParameter,
    CursorResult,
    and_,
    bindparam,
    func,
    insert,
    literal,
    or_,
    select,
    tuple_,
    union_all,
    update,
)
from sqlalchemy.orm import Session, joinedload

from service import clock
from service.address_confirm import CONFIRM_WAIT, WAITING, is_confirmed, trusted_domain
from service.db import session_scope, table_of
from service.faults import pause_point
from service.mail.dkim_sign import sign_bytes
from service.mail.headers import plus_address
from service.mail.outbox import KINDS, THROTTLED, failing, kind_of, recipient_domain, seat_wants
from service.mail.server_url import ConfigError
from service.mail.settings import BOUNCE_LOCAL, MailSettings, mail_settings
from service.mail.tokens import make_token
from service.memo import memo, shared
from service.models import (
    ConfirmedAddress,
    FailingAddress,
    Game,
    Outbox,
    PlayerZone,
    Round,
    Seat,
    StoredMail,
    Submission,
    UTCDateTime,
)
from service.outbound.compose import Composed, compose
from service.outbound.transport import DeliveryError, SmtpTransport, Transport
from service.zones import is_zone

log = logging.getLogger(__name__)

# A dead worker's row waits up to LEASE (plus a sweep) before it is sent again; a live
# worker renews every RENEW_EVERY, so a renewal may fail twice (a database blip) before
# the lease runs out under it.
LEASE = timedelta(seconds=30)
RENEW_EVERY = LEASE / 3
FIRST_RETRY = timedelta(minutes=1)
MAX_RETRY = timedelta(hours=2)
MAX_ATTEMPTS = 10


def backoff(attempts: int) -> timedelta:
    """1, 2, 4, ... minutes after the n-th failed attempt, at most MAX_RETRY."""
    return min(MAX_RETRY, FIRST_RETRY * (1 << max(0, attempts - 1)))


def claim(session: Session, outbox_id: int, now: datetime) -> int | None:
    """The attempt number if this worker now holds the row, else None."""
    with session.begin():
        attempts = session.scalar(
            update(Outbox)
            .where(Outbox.id == outbox_id, _claimable(now))
            .values(status="sending", lease_until=now + LEASE, attempts=Outbox.attempts + 1)
            .returning(Outbox.attempts)
            .execution_options(synchronize_session=False))
        return None if attempts is None else int(attempts)


def renew(session: Session, held: dict[int, int], now: datetime) -> bool:
    """Extend these attempts' leases ({row id: attempt}); False once no row is still its
    attempt's."""
    with session.begin():
        result = session.execute(
            update(Outbox)
            .where(tuple_(Outbox.id, Outbox.attempts).in_(list(held.items())), Outbox.status == "sending")
            .values(lease_until=now + LEASE).execution_options(synchronize_session=False))
        return cast(CursorResult[Any], result).rowcount > 0


@contextmanager
def lease_kept(held: dict[int, int]) -> Iterator[None]:
    """Renew the claims' leases ({row id: attempt}) in a thread (its own session) until the
    block ends."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    done = threading.Event()
    names = ",".join(map(str, held))

    def keep() -> None:
        while not done.wait(RENEW_EVERY.total_seconds()):
            try:  # in the app's context: its clock and its database
                with app.app_context(), session_scope(app) as session:
                    if not renew(session, held, clock.now()):
                        return
            except Exception:  # the next renewal may get through; the lease covers two misses
                log.warning("outbox %s: renewing the lease failed", names, exc_info=True)

    thread = threading.Thread(target=keep, name=f"outbox-lease-{names}"[:60], daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join(RENEW_EVERY.total_seconds())


def _finish(session: Session, outbox_id: int, attempt: int, holding: str = "sending",
            **values: object) -> bool:
    """Mark the row if this attempt still holds it (status `holding`: "sent" when _take_stored
    took it); False when another attempt took over."""
    result = session.execute(
        update(Outbox).where(Outbox.id == outbox_id, Outbox.attempts == attempt, Outbox.status == holding)
        .values(lease_until=None, **values).execution_options(synchronize_session=False))
    return cast(CursorResult[Any], result).rowcount == 1


def wanted(row: Outbox, seat: Seat | None) -> bool:
    """The seat's preference, asked again at sending (it may have changed since). Mail to an
    address, answers, and kinds not in the registry (compose marks those failed) go ahead."""
    spec = KINDS.get(row.kind)
    if seat is None or spec is None or spec.to == "address" or (row.payload or {}).get("answer"):
        return True
    return seat_wants(row.kind, seat)


def _prepare(session: Session, outbox_id: int, attempt: int,
             settings: MailSettings) -> tuple[Composed, str, str] | None:
    """The message, its recipient and its envelope sender (the seat's signed return path),
    or None after marking the row skipped or failed.

    The caller owns the transaction."""
    # A row _take_stored took is marked sent already; if it ends otherwise it was not sent.
    fence: dict[str, Any] = {"holding": "sent", "sent_at": None} if _TAKEN in session.info else {}
    row = session.get(Outbox, outbox_id)
    if row is None:
        return None
    # The game with its seats in one statement (the row's seat is one of them): compose()
    # finds them in the identity map while `game` holds them.
    game = (session.get(Game, row.game_id, options=[joinedload(Game.seats)])
            if row.game_id else None)
    seats = {s.id: s for s in game.seats} if game is not None else {}
    seat = (seats.get(row.seat_id) or session.get(Seat, row.seat_id)) if row.seat_id else None
    dead = _failing(session, row.to_address) if not kind_of(row.kind).despite_bounces else None
    if dead is not None:
        _finish(session, outbox_id, attempt, status="skipped",
                last_error=f"not sent: mail to this address bounced ({dead})"[:2000], **fence)
        return None
    spec = kind_of(row.kind)
    if (spec.to == "seat" or spec.confirmed_only) and not _confirmed(session, row.to_address):
        address = row.to_address or ""
        until = row.created_at + CONFIRM_WAIT
        if until > clock.now():
            _finish(session, outbox_id, attempt, status="pending", next_attempt_at=until,
                    last_error=f"{WAITING}mail to {address} starts once {address} confirms", **fence)
        else:
            _finish(session, outbox_id, attempt, status="skipped",
                    last_error=f"not sent: {address} never confirmed", **fence)
        return None
    if not wanted(row, seat):
        pref = (f"messages '{seat.message_pref}'" if row.kind == "message" and seat.mail_pref != "none"
                else f"'{seat.mail_pref}' mail") if seat else "no"
        _finish(session, outbox_id, attempt, status="skipped",
                last_error=f"not sent: the player chose {pref}", **fence)
        return None
    if row.kind == "reminder" and seat is not None and orders_in(session, row, seat):
        _finish(session, outbox_id, attempt, status="skipped",
                last_error="not sent: the player has sent orders for the round", **fence)
        return None
    try:
        msg = compose(session, row, settings)
    except Exception as exc:  # a mail that cannot be written will not be written later either
        log.exception("outbox %s: composing %s mail failed", outbox_id, row.kind)
        _finish(session, outbox_id, attempt, status="failed",
                last_error=f"could not compose the mail: {type(exc).__name__}: {exc}", **fence)
        return None
    sender = return_path(settings, seat, row.id) if seat is not None else settings.sender
    return msg, str(row.to_address), sender


_BATCH_FAILING = "failing addresses of the batch"


def _failing(session: Session, address: str | None) -> str | None:
    """Why mail to this address fails (bounces.failing), or None; from the batch's one read of
    its addresses when _deliver_batch made it."""
    known: dict[str, str] | None = memo(session, _BATCH_FAILING, lambda: None)
    if known is None or not address:
        dead = failing(session, address)
        return dead.reason if dead is not None else None
    return known.get(address.strip().lower())


_BATCH_CONFIRMED = "confirmed addresses of the batch"


def _confirmed(session: Session, address: str | None) -> bool:
    """is_confirmed, from the batch's one read of its addresses when _deliver_batch made it."""
    known: set[str] | None = memo(session, _BATCH_CONFIRMED, lambda: None)
    if known is None or not address:
        return is_confirmed(session, address)
    address = address.strip().lower()
    return address in known or trusted_domain(address)


# Built once: building these statements costs more than running them.
_GAMES = select(Game).where(Game.id.in_(bindparam("ids", expanding=True))).options(joinedload(Game.seats))
_ADDRESSES = union_all(
    select(literal("zone"), PlayerZone.address, PlayerZone.zone)
    .where(PlayerZone.address.in_(bindparam("zoned", expanding=True))),
    select(literal("failing"), FailingAddress.address, FailingAddress.reason)
    .where(FailingAddress.address.in_(bindparam("mailed", expanding=True))),
    select(literal("confirmed"), ConfirmedAddress.address, ConfirmedAddress.how)
    .where(ConfirmedAddress.address.in_(bindparam("mailed", expanding=True))))
_STORE = insert(table_of(StoredMail))


def orders_in(session: Session, row: Outbox, seat: Seat) -> bool:
    """Whether the seat has orders in for the round a reminder is about: a reminder that
    waited (a retry, an address to confirm) is not sent once they are."""
    number = (row.payload or {}).get("round")
    if not isinstance(number, int):
        return False
    latest = session.scalar(
        select(Submission.accepted).join(Round, Round.id == Submission.round_id)
        .where(Round.game_id == row.game_id, Round.number == number, Submission.seat_id == seat.id)
        .order_by(Submission.version.desc()).limit(1))
    return bool(latest)  # an empty text is a withdrawal: still waiting


def _read_addresses(session: Session, rows: Sequence[Outbox], games: Sequence[Game]) -> None:
    """In one statement, for the batch (its service.memo): the recipients' addresses that
    bounce, and the zones of the games' players (service.outbound.context.mail_zone)."""
    mailed = sorted({r.to_address.strip().lower() for r in rows if r.to_address})
    zoned = sorted({s.email.lower() for g in games for s in g.seats if s.email})
    found = session.execute(_ADDRESSES, {"zoned": zoned, "mailed": mailed}).all() if mailed or zoned else []
    memo(session, _BATCH_FAILING, lambda: {a: why for kind, a, why in found if kind == "failing"})
    memo(session, _BATCH_CONFIRMED, lambda: {a for kind, a, _ in found if kind == "confirmed"})
    zones = {a: ZoneInfo(z) for kind, a, z in found if kind == "zone" and is_zone(z)}
    for game in games:
        players = {s.email.lower() for s in game.seats if s.email}
        _put(session, ("zones", game.id), {a: z for a, z in zones.items() if a in players})


def _put(session: Session, key: Hashable, value: object) -> None:
    memo(session, key, lambda: value)


def deliver(outbox_id: int, transport: Transport | None = None) -> str:
    """Send one outbox row; returns what happened: sent, retry, failed, skipped or busy."""
    settings = mail_settings(current_app.config)
    now = clock.now()
    with session_scope() as session:
        # The pace is the SMTP relay's concern; the embedded mailbox keeps everything at once.
        if (settings.domain_rate and settings.smtp_url
                and held_back(session, outbox_id, settings.domain_rate, now)):
            return "throttled"
        if transport is None and not settings.smtp_url:
            return _deliver_stored(session, [outbox_id], settings, now)[outbox_id]
        attempt = claim(session, outbox_id, now)
        if attempt is None:
            return "busy"
        with lease_kept({outbox_id: attempt}):
            return _deliver_claimed(session, outbox_id, attempt, settings, transport)


RATE_WINDOW = timedelta(minutes=1)


def held_back(session: Session, outbox_id: int, rate: int, now: datetime) -> bool:
    """True (the row put off to later) when `rate` mails went to the row's recipient domain
    in the last minute, so one big provider does not throttle the host. Two workers may
    both pass the count at once: the limit is a pace, not a hard ceiling."""
    with session.begin():
        row = session.get(Outbox, outbox_id)
        if row is None or row.status != "pending" or (row.next_attempt_at and row.next_attempt_at > now):
            return False
        domain = recipient_domain(row.to_address)
        recent = session.scalar(select(func.count()).select_from(Outbox).where(
            func.lower(Outbox.to_address).like(f"%@{domain}"), Outbox.id != outbox_id,
            or_(Outbox.status == "sending",
                and_(Outbox.status == "sent", Outbox.sent_at > now - RATE_WINDOW)),
        )) or 0
        if recent < rate:
            return False
        row.next_attempt_at = now + RATE_WINDOW / rate
        row.last_error = f"{THROTTLED}{rate} mails a minute to {domain}"
        return True


def _deliver_claimed(session: Session, outbox_id: int, attempt: int, settings: MailSettings,
                     transport: Transport | None) -> str:
    with session.begin():
        prepared = _prepare(session, outbox_id, attempt, settings)
        if prepared is None:
            return "skipped"
        msg, recipient, envelope_sender = prepared
        raw = wire_bytes(msg, settings)
    return _send_claimed(session, outbox_id, attempt, raw, envelope_sender, recipient, settings, transport)


def _claimable(now: datetime | BindParameter[datetime]) -> Any:
    """The rows a worker may take now: pending (or their lease ran out) and due."""
    return and_(Outbox.status.in_(("pending", "sending")),
                or_(Outbox.lease_until.is_(None), Outbox.lease_until <= now),
                or_(Outbox.next_attempt_at.is_(None), Outbox.next_attempt_at <= now))


def _take_stored(session: Session, outbox_ids: list[int], now: datetime) -> dict[int, int]:
    """Without SMTP: the claim and the mark in one UPDATE, inside the transaction that then
    composes and stores the mails (the caller's), so no lease is needed; a row that ends
    otherwise (skipped, failed, released) is marked again in that transaction, and if it
    rolls back the rows are as they were. The rows come back loaded (the session holds
    them while `loaded` in the caller does). {row id: attempt} of those taken."""
    rows = session.scalars(_TAKE, {"ids": outbox_ids, "now": now}).all()
    session.info[_TAKEN] = rows
    return {row.id: row.attempts for row in rows}


_TAKEN = "outbox rows taken"
_NOW = bindparam("now", type_=UTCDateTime())
# Built once: building the statement cost more than running it.
_TAKE = (update(Outbox).where(Outbox.id.in_(bindparam("ids", expanding=True)), _claimable(_NOW))
         .values(status="sent", sent_at=_NOW, lease_until=None, last_error=None, next_attempt_at=None,
                 attempts=Outbox.attempts + 1)
         .returning(Outbox).execution_options(synchronize_session=False))


def _deliver_stored(session: Session, outbox_ids: list[int], settings: MailSettings,
                    now: datetime) -> dict[int, str]:
    """deliver() and deliver_each() without SMTP: taken, composed, stored and marked in one
    transaction (_deliver_batch)."""
    done = {i: "busy" for i in outbox_ids}
    try:
        done.update(_deliver_batch(session, outbox_ids, settings, None, now))
    finally:
        session.info.pop(_TAKEN, None)
    return done


def _keep(session: Session, mails: list[tuple[int, Composed, bytes, str]]) -> None:
    """Embedded mode: the mails of rows _take_stored marked sent, kept for the mailbox page
    (in one INSERT, in the transaction that took and composed them)."""
    now = clock.now()
    session.execute(_STORE, [
        {"outbox_id": i, "to": recipient, "subject": msg.subject, "raw": raw.decode("utf-8", "replace"),
         "created_at": now} for i, msg, raw, recipient in mails])


def _send_claimed(session: Session, outbox_id: int, attempt: int, raw: bytes, envelope_sender: str,
                  recipient: str, settings: MailSettings, transport: Transport | None) -> str:
    """SMTP outside any transaction, then the mark (fenced by the attempt)."""
    try:
        (transport or _smtp(settings.smtp_url)).send(raw, envelope_sender, recipient)
    except DeliveryError as exc:
        return _failed(session, outbox_id, attempt, exc)
    pause_point("mail-sent")  # tests only: kill a worker right after the server's 250
    with session.begin():
        _finish(session, outbox_id, attempt, status="sent", sent_at=clock.now(), last_error=None,
                next_attempt_at=None)
    return "sent"


def deliver_each(outbox_ids: list[int], transport: Transport | None = None) -> dict[int, str]:
    """Deliver the rows of one message (a round's results, say) as deliver() would each:
    claimed together, composed in one transaction that reads what they share once (the
    steps, the round, the boards: service.memo), stored and marked there too when there
    is no SMTP. A row that raises is logged and left to the sweeper (its claim released,
    or its lease runs out), the others are still delivered. A domain pace (`domain_rate`
    with SMTP) is asked row by row, as deliver() does."""
    settings = mail_settings(current_app.config)
    if len(outbox_ids) < 2 or (settings.domain_rate and settings.smtp_url):
        return {i: _deliver_guarded(i, transport) for i in outbox_ids}
    now = clock.now()
    with session_scope() as session:
        if transport is None and not settings.smtp_url:
            return _deliver_stored(session, outbox_ids, settings, now)
        held = claim_many(session, outbox_ids, now)
        done = {i: "busy" for i in outbox_ids if i not in held}
        if not held:
            return done
        with lease_kept(held):
            done.update(_deliver_batch(session, held, settings, transport, now))
    return {i: done[i] for i in outbox_ids}


def _deliver_guarded(outbox_id: int, transport: Transport | None) -> str:
    try:
        return deliver(outbox_id, transport)
    except Exception:
        log.exception("outbox %s: delivery failed; the sweeper will ring it again", outbox_id)
        return "error"


def claim_many(session: Session, outbox_ids: list[int], now: datetime) -> dict[int, int]:
    """claim() for several rows in one statement: {row id: attempt} of those now held."""
    with session.begin():
        rows = session.execute(
            update(Outbox)
            .where(Outbox.id.in_(outbox_ids), _claimable(now))
            .values(status="sending", lease_until=now + LEASE, attempts=Outbox.attempts + 1)
            .returning(Outbox.id, Outbox.attempts)
            .execution_options(synchronize_session=False)).all()
        return {int(i): int(a) for i, a in rows}


def _release(session: Session, outbox_id: int, attempt: int, stored: bool = False) -> None:
    """Give a claimed row back at once (pending, no lease), for the sweeper to ring again."""
    if stored:
        _finish(session, outbox_id, attempt, holding="sent", status="pending", sent_at=None)
    else:
        _finish(session, outbox_id, attempt, status="pending")


def _deliver_batch(session: Session, claimed: dict[int, int] | list[int], settings: MailSettings,
                   transport: Transport | None, now: datetime) -> dict[int, str]:
    """The rows `claimed` ({row id: attempt}), or without SMTP the rows of these ids,
    taken in the batch's own transaction (_take_stored)."""
    done: dict[int, str] = {}
    outgoing: list[tuple[int, int, bytes, str, str]] = []
    keep: list[tuple[int, Composed, bytes, str]] = []
    stored = isinstance(claimed, list)
    with session.begin(), shared(session):
        # What every row needs, one statement each for the whole batch: the rows, their
        # games with their seats, their addresses that bounce. _prepare then finds them in
        # the identity map (weak: `loaded` holds them) and the memo.
        if isinstance(claimed, list):
            taken = _take_stored(session, claimed, now)
            held = {i: taken[i] for i in claimed if i in taken}
            rows = session.info[_TAKEN]
        else:
            held = claimed
            rows = list(session.scalars(select(Outbox).where(Outbox.id.in_(held))))
        game_ids = sorted({r.game_id for r in rows if r.game_id})
        games = session.scalars(_GAMES, {"ids": game_ids}).unique().all() if game_ids else []
        loaded = [rows, games]
        _read_addresses(session, rows, games)
        for outbox_id, attempt in held.items():
            try:
                prepared = _prepare(session, outbox_id, attempt, settings)
                if prepared is None:
                    done[outbox_id] = "skipped"
                    continue
                msg, recipient, envelope_sender = prepared
                raw = wire_bytes(msg, settings)
                if stored:
                    keep.append((outbox_id, msg, raw, recipient))
                else:
                    outgoing.append((outbox_id, attempt, raw, envelope_sender, recipient))
            except Exception:
                log.exception("outbox %s: delivery failed; the sweeper will ring it again", outbox_id)
                done[outbox_id] = "error"
                _release(session, outbox_id, attempt, stored)
        if keep:
            _keep(session, keep)
            done.update((i, "sent") for i, *_ in keep)
        del loaded
    for outbox_id, attempt, raw, envelope_sender, recipient in outgoing:
        done[outbox_id] = _send_claimed(session, outbox_id, attempt, raw, envelope_sender, recipient,
                                        settings, transport)
    return done


def _smtp(url: str) -> SmtpTransport:
    try:
        return SmtpTransport.from_url(url)
    except ConfigError as exc:  # the operator's to fix: recorded on the row, retried later
        raise DeliveryError(str(exc), temporary=True) from exc


def wire_bytes(msg: Composed, settings: MailSettings) -> bytes:
    """The message as it goes out (CRLF), DKIM-signed when configured."""
    return sign_bytes(msg.raw, settings.dkim) if settings.dkim is not None else msg.raw


def _failed(session: Session, outbox_id: int, attempt: int, exc: DeliveryError) -> str:
    with session.begin():
        if exc.temporary and attempt < MAX_ATTEMPTS:
            _finish(session, outbox_id, attempt, status="pending", last_error=str(exc)[:2000],
                    next_attempt_at=clock.now() + backoff(attempt))
            log.warning("outbox %s: attempt %d failed, will retry: %s", outbox_id, attempt, exc)
            return "retry"
        why = str(exc) if not exc.temporary else f"gave up after {attempt} attempts: {exc}"
        _finish(session, outbox_id, attempt, status="failed", last_error=why[:2000])
    log.error("outbox %s: failed for good: %s", outbox_id, exc)
    return "failed"


def return_path(settings: MailSettings, seat: Seat, outbox_id: int) -> str:
    """The envelope sender of one mail to one seat."""
    token = make_token(settings.secret_key, "bounce", f"{seat.id}-{outbox_id}", seat.reply_token_salt or "")
    return plus_address(f"{BOUNCE_LOCAL}@{settings.domain}", token)
