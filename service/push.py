"""Web push to players' browsers: subscriptions, the push outbox, and its delivery.

A player turns push on from their player page (that seat) or from "Your games" (every seat
of their address); the browser's PushSubscription is kept in `push_subscriptions`, one row
per browser and scope. News for a seat (`queue`) becomes one `push_outbox` row per browser
that wants it, in the transaction that makes the news, keyed by browser and event so a
browser holding two scopes, or a second sweeper, still gets it once. After COMMIT the rows
are rung (`worker.tasks.deliver_push`, by name); a lost ring is rung again by the sweeper.

Delivery (`deliver_each`) takes every due row of a browser at once, so news that arrives
together goes out as one notification ("Your turn in 3 games"), encrypts it for the
browser (service.webpush) and POSTs it: sent; or pending again with backoff (a network
failure, 429 with its Retry-After, 5xx); or failed (any other refusal); a subscription the
push service answers 404 or 410 for is dropped with its rows.

No noise: no "your turn" push to a player whose page of that game was in view within
PRESENT (its heartbeat, `seen`), no reminder to a player who has sent orders (the
caller's), and a push that would ring inside the game's quiet hours waits for their end.
Times in a push are given in the player's zone, as mail gives them.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache
from typing import Any, cast
from zoneinfo import ZoneInfo

from flask import Flask, current_app
from sqlalchemy import CursorResult, and_, delete, or_, select, tuple_, update
from sqlalchemy.orm import Session

from service import clock, notice, webpush
from service.db import session_scope
from service.models import Game, PushOutbox, PushSubscription, Round, Seat, SeatPresence, Submission, add_once
from service.schedule.deadlines import outside_quiet_hours
from service.schedule.policy import parse_policy
from service.tasks import send_tasks, task_after_commit
from service.zones import address_zone

log = logging.getLogger(__name__)

DELIVER_PUSH = "worker.tasks.deliver_push"
# The events a player can be pushed, with the tag that makes a newer one replace an older
# one of the same game on the device.
EVENTS = ("turn", "reminder", "results", "message", "paused", "resumed", "bot", "test")
PRESENT = timedelta(seconds=90)  # the page beats every 30 s while in view
LEASE = timedelta(seconds=30)
FIRST_RETRY = timedelta(minutes=1)
MAX_RETRY = timedelta(hours=1)
MAX_ATTEMPTS = 8
TURNED_OFF = "not sent: push was turned off on this device"
KEEP_ENDPOINTS = 20  # subscriptions one seat or address may hold (browsers, devices)
LOST_GRACE = timedelta(seconds=5)  # a fresh ring is probably still on its way


def enabled() -> bool:
    """Whether this host can push (it has a VAPID key: service.config)."""
    return bool(current_app.config.get("VAPID_PRIVATE_KEY"))


def application_server_key() -> str:
    """The public key a page subscribes with ("" when push is off)."""
    key = str(current_app.config.get("VAPID_PRIVATE_KEY") or "")
    return _public_key(key) if key else ""


@cache
def _public_key(private_key: str) -> str:
    return webpush.public_key(private_key)


def endpoint_hash(endpoint: str) -> str:
    return hashlib.sha256(endpoint.encode()).hexdigest()


# Subscriptions.

def check_subscription(data: Any) -> webpush.Subscription:
    """The browser's PushSubscription JSON ({endpoint, keys: {p256dh, auth}}) or ValueError
    naming the field."""
    if not isinstance(data, dict):
        raise ValueError("subscription: expected the browser's PushSubscription as a JSON object")
    endpoint, keys = data.get("endpoint"), data.get("keys")
    if not isinstance(endpoint, str) or not endpoint:
        raise ValueError("subscription.endpoint: expected the push service's URL")
    if not isinstance(keys, dict) or not all(isinstance(keys.get(k), str) for k in ("p256dh", "auth")):
        raise ValueError("subscription.keys: expected {p256dh, auth} as text")
    problem = webpush.check_keys(keys["p256dh"], keys["auth"])
    if problem:
        raise ValueError(f"subscription.{problem}")
    try:
        webpush.check_endpoint(endpoint, bool(current_app.config["EMBEDDED"]))
    except webpush.EndpointRefused as exc:
        raise ValueError(f"subscription.{exc}") from None
    return webpush.Subscription(endpoint, keys["p256dh"], keys["auth"])


def scope_of(seat: Seat | None, address: str | None) -> str:
    return f"seat:{seat.id}" if seat is not None else f"all:{(address or '').lower()}"


def subscribe(session: Session, sub: webpush.Subscription, *, seat: Seat | None = None,
              address: str | None = None) -> None:
    """Keep this browser's subscription for the seat, or for every seat of the address (the
    caller owns the transaction and has checked who is asking)."""
    if (seat is None) == (address is None):
        raise ValueError("a subscription is for one seat or for one address")
    scope = scope_of(seat, address)
    digest = endpoint_hash(sub.endpoint)
    row = session.scalar(select(PushSubscription).where(PushSubscription.endpoint_hash == digest,
                                                        PushSubscription.scope == scope))
    if row is not None:
        row.p256dh, row.auth = sub.p256dh, sub.auth  # the same endpoint, renewed keys
        return
    held = session.scalars(select(PushSubscription).where(PushSubscription.scope == scope)
                           .order_by(PushSubscription.id)).all()
    for old in held[:max(0, len(held) - KEEP_ENDPOINTS + 1)]:
        session.delete(old)  # the oldest browsers give way (a phone replaced long ago)
    session.add(PushSubscription(endpoint=sub.endpoint, endpoint_hash=digest, p256dh=sub.p256dh,
                                 auth=sub.auth, seat_id=seat.id if seat else None,
                                 address=address.lower() if address else None, scope=scope,
                                 created_at=clock.now()))


def unsubscribe(session: Session, endpoint: str, scope: str | None = None) -> int:
    """Forget this browser (for one scope, or every scope: "turn off on this device"); its
    waiting pushes are dropped too when no scope is left. The number of rows removed."""
    digest = endpoint_hash(endpoint)
    query = delete(PushSubscription).where(PushSubscription.endpoint_hash == digest)
    if scope is not None:
        query = query.where(PushSubscription.scope == scope)
    removed = cast(CursorResult[Any], session.execute(query.execution_options(synchronize_session=False)))
    left = select(PushSubscription.id).where(PushSubscription.endpoint_hash == digest).limit(1)
    if session.scalar(left) is None:
        _drop_waiting(session, digest, TURNED_OFF)
    return removed.rowcount


def _drop_waiting(session: Session, digest: str, why: str) -> None:
    session.execute(update(PushOutbox).where(
        PushOutbox.endpoint_hash == digest, PushOutbox.status.in_(("pending", "sending")))
        .values(status="skipped", last_error=why, lease_until=None)
        .execution_options(synchronize_session=False))


def scopes(session: Session, endpoint: str) -> list[str]:
    """The scopes this browser holds (what its pages show as on)."""
    return list(session.scalars(select(PushSubscription.scope).where(
        PushSubscription.endpoint_hash == endpoint_hash(endpoint)).order_by(PushSubscription.id)))


def _browsers(session: Session, seat: Seat) -> list[str]:
    """The endpoints (hashes) that want news of this seat: its own and its address's."""
    wanted = [PushSubscription.seat_id == seat.id]
    if seat.email:
        wanted.append(PushSubscription.address == seat.email.lower())
    return sorted(set(session.scalars(select(PushSubscription.endpoint_hash).where(or_(*wanted)))))


# Presence.

def seen(session: Session, seat: Seat) -> None:
    """The seat's page is open and in view now (its heartbeat)."""
    row = session.get(SeatPresence, seat.id)
    if row is None:
        session.add(SeatPresence(seat_id=seat.id, seen_at=clock.now()))
    else:
        row.seen_at = clock.now()


def present(session: Session, seat: Seat) -> bool:
    row = session.get(SeatPresence, seat.id)
    return row is not None and row.seen_at > clock.now() - PRESENT


# Queueing.

@dataclass(frozen=True)
class News:
    """One event for one seat, as a push says it."""

    event: str  # one of EVENTS
    key: str  # unique within the game and event: a second queue of the same news is dropped
    title: str
    body: str
    url: str  # the page a tap opens (absolute)
    round: int | None = None  # the round a turn or reminder is for (skipped once orders are in)


def queue(session: Session, game: Game, seat: Seat, news: News) -> list[PushOutbox]:
    """Queue the news for every browser that wants this seat's pushes (the caller's
    transaction; delivered after COMMIT). Nothing for a "turn" while the seat's page of the
    game is in view, and nothing when push is off on this host."""
    if news.event not in EVENTS:
        raise ValueError(f"no push event {news.event!r}")
    if not enabled() or (news.event == "turn" and present(session, seat)):
        return []
    browsers = _browsers(session, seat)
    if not browsers:
        return []
    now = clock.now()
    policy = parse_policy(game.deadline_policy)
    due = outside_quiet_hours(now, policy.quiet_hours, policy.zone)
    payload = {"title": news.title[:120], "body": news.body[:400], "url": news.url, "game": game.id,
               "game_title": game.title[:120], "seat": seat.name, "tag": f"{news.event}-{game.id}",
               "round": news.round,
               "overview": _overview_url()}
    rows = []
    for digest in browsers:
        row = PushOutbox(endpoint_hash=digest, game_id=game.id, seat_id=seat.id, event=news.event,
                         payload=payload, key=f"{digest[:32]}.{game.id}.{news.event}.{news.key}"[:255],
                         status="pending", attempts=0, created_at=now,
                         next_attempt_at=due if due != now else None)
        if add_once(session, row, select(PushOutbox.id).where(PushOutbox.key == row.key)):
            rows.append(row)
    for digest in sorted({row.endpoint_hash for row in rows}):
        task_after_commit(session, DELIVER_PUSH, (digest,))  # one task a browser, after COMMIT
    return rows




# Delivery.

def backoff(attempts: int, retry_after: int | None = None) -> timedelta:
    """1, 2, 4, ... minutes after the n-th failed attempt (at most MAX_RETRY), or the push
    service's Retry-After when it asks for longer."""
    wait = min(MAX_RETRY, FIRST_RETRY * (1 << max(0, attempts - 1)))
    return max(wait, timedelta(seconds=retry_after or 0))


def _claimable(now: datetime) -> Any:
    return and_(PushOutbox.status.in_(("pending", "sending")),
                or_(PushOutbox.lease_until.is_(None), PushOutbox.lease_until <= now),
                or_(PushOutbox.next_attempt_at.is_(None), PushOutbox.next_attempt_at <= now))


def deliver(digest: str) -> str:
    """What `worker.tasks.deliver_push` runs: the browser's due rows as one push; sent,
    retry, failed, gone, skipped or busy (nothing due, or another worker holds it)."""
    with session_scope() as session:
        return deliver_browser(session, digest)


def deliver_browser(session: Session, digest: str) -> str:
    """One push to one browser: its due rows, and with them the rows waiting to be tried
    again (the push service answers now), never those held for quiet hours."""
    now = clock.now()
    with session.begin():
        free = and_(PushOutbox.endpoint_hash == digest, PushOutbox.status.in_(("pending", "sending")),
                    or_(PushOutbox.lease_until.is_(None), PushOutbox.lease_until <= now))
        if session.scalar(select(PushOutbox.id).where(free, _claimable(now)).limit(1)) is None:
            return "busy"
        claimed = session.execute(
            update(PushOutbox).where(free, or_(_claimable(now), PushOutbox.attempts > 0))
            .values(status="sending", lease_until=now + LEASE, attempts=PushOutbox.attempts + 1)
            .returning(PushOutbox.id, PushOutbox.attempts, PushOutbox.event, PushOutbox.payload,
                       PushOutbox.created_at)
            .execution_options(synchronize_session=False)).all()
        if not claimed:
            return "busy"
        held = {int(r.id): int(r.attempts) for r in claimed}
        done = _answered(session, [r.id for r in claimed if r.event in ("turn", "reminder")])
        if done:  # orders came in since: no "your turn" or reminder for them any more
            _finish(session, {i: held.pop(i) for i in done}, status="skipped",
                    last_error="not sent: the player has sent orders for the round")
            claimed = [r for r in claimed if r.id not in done]
            if not claimed:
                return "skipped"
        sub = session.scalar(select(PushSubscription).where(PushSubscription.endpoint_hash == digest)
                             .order_by(PushSubscription.id.desc()).limit(1))
        if sub is None:
            _finish(session, held, status="skipped", last_error=TURNED_OFF)
            return "skipped"
        target = webpush.Subscription(sub.endpoint, sub.p256dh, sub.auth)
    rows = sorted(claimed, key=lambda r: (r.created_at, r.id))
    body = json.dumps(collapse([(r.event, r.payload) for r in rows]), separators=(",", ":")).encode()
    try:
        webpush.check_endpoint(target.endpoint, bool(current_app.config["EMBEDDED"]))
        headers = {"Authorization": webpush.vapid_header(
            current_app.config["VAPID_PRIVATE_KEY"], target.endpoint, subject(), int(now.timestamp())),
            "Urgency": "high" if any(r.event in ("turn", "reminder") for r in rows) else "normal",
            "Topic": digest[:32]}  # a newer push replaces one the service still holds
        answer = webpush.post(target, webpush.encrypt(body, target), headers)
    except webpush.EndpointRefused as exc:
        answer = webpush.Answer(403, text=str(exc))
    return _mark(session, digest, held, answer)


def _mark(session: Session, digest: str, held: dict[int, int], answer: webpush.Answer) -> str:
    attempt = max(held.values())
    with session.begin():
        if answer.ok:
            _finish(session, held, status="sent", sent_at=clock.now(), last_error=None, next_attempt_at=None)
            return "sent"
        if answer.gone:
            session.execute(delete(PushSubscription).where(PushSubscription.endpoint_hash == digest))
            _finish(session, held, status="skipped",
                    last_error=f"not sent: the push service says the subscription is gone ({answer.status})")
            log.info("push subscription %s gone (%d): dropped", digest[:12], answer.status)
            return "gone"
        why = f"push service answered {answer.status or 'nothing'}: {answer.text}"[:2000]
        temporary = answer.status in (0, 408, 425, 429) or answer.status >= 500
        if temporary and attempt < MAX_ATTEMPTS:
            _finish(session, held, status="pending", last_error=why,
                    next_attempt_at=clock.now() + backoff(attempt, answer.retry_after))
            log.warning("push to %s: attempt %d failed, will retry: %s", digest[:12], attempt, why)
            return "retry"
        _finish(session, held, status="failed", last_error=why)
    log.error("push to %s failed for good: %s", digest[:12], why)
    return "failed"


def _answered(session: Session, ids: list[int]) -> set[int]:
    """Of these turn and reminder rows, those whose seat has orders in for their round now."""
    if not ids:
        return set()
    found = set()
    for row in session.scalars(select(PushOutbox).where(PushOutbox.id.in_(ids))):
        number = row.payload.get("round")
        if not isinstance(number, int) or row.seat_id is None:
            continue
        latest = session.scalar(
            select(Submission.accepted).join(Round, Round.id == Submission.round_id)
            .where(Round.game_id == row.game_id, Round.number == number, Submission.seat_id == row.seat_id)
            .order_by(Submission.version.desc()).limit(1))
        if latest:  # an empty text is a withdrawal: still waiting
            found.add(row.id)
    return found


def _finish(session: Session, held: dict[int, int], **values: Any) -> None:
    """Mark the rows this attempt still holds (fenced by attempt, as the mail outbox is)."""
    session.execute(update(PushOutbox).where(
        tuple_(PushOutbox.id, PushOutbox.attempts).in_(list(held.items())), PushOutbox.status == "sending")
        .values(lease_until=None, **values).execution_options(synchronize_session=False))


def subject() -> str:
    """VAPID's contact: DICEPOST_VAPID_SUBJECT, else the site (https) or the mail domain's postmaster."""
    config = current_app.config
    if config.get("VAPID_SUBJECT"):
        return str(config["VAPID_SUBJECT"])
    base = str(config.get("BASE_URL") or "")
    if base.startswith("https://"):
        return base.rstrip("/")
    from service.mail.settings import message_domain

    return f"mailto:postmaster@{message_domain(config)}"


def collapse(rows: Sequence[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """What one push says for the news that arrived together: one item as it is; several
    "your turn" as one "Your turn in N games"; other mixes as "N updates"."""
    if len(rows) == 1:
        event, payload = rows[0]
        return {**payload, "events": [event], "count": 1}
    by_game = {p.get("game"): str(p.get("game_title") or p.get("game")) for _, p in rows}
    games = list(by_game.values())
    events = [e for e, _ in rows]
    many_games = len(by_game) > 1
    url = _overview_url() if many_games else str(rows[-1][1]["url"])
    if all(e in ("turn", "reminder") for e in events):
        title = (f"Your turn in {len(games)} games" if many_games else rows[-1][1]["title"])
        return {"title": title, "body": ", ".join(games)[:400], "url": url, "tag": "turn",
                "game": None if many_games else rows[-1][1].get("game"), "events": events, "count": len(rows)}
    body = "\n".join(str(p["title"]) for _, p in rows[-6:])
    title = (f"{len(rows)} updates from dicepost" if many_games
             else f"{games[0]}: {len(rows)} updates")
    return {"title": title, "body": body[:400], "url": url,
            "tag": "updates", "game": None if many_games else rows[-1][1].get("game"), "events": events,
            "count": len(rows)}


def _overview_url() -> str:
    from service.urls import absolute

    return absolute("dashboard.home")


def lost(app: Flask, grace: timedelta = LOST_GRACE) -> int:
    """The sweeper's pass (service.notify): ring each browser that has a due row whose ring
    was lost or whose retry (or quiet hours) is over; the number rung."""
    now = clock.now()
    with app.app_context(), session_scope(app) as session, session.begin():
        digests = sorted(set(session.scalars(select(PushOutbox.endpoint_hash).where(
            _claimable(now), PushOutbox.created_at <= now - grace).limit(500))))
    send_tasks(app, [(DELIVER_PUSH, (digest,), "mail") for digest in digests])
    return len(digests)


# The channel service.notify tells: the house's events, as each seat's push says them.

def _when(session: Session, game: Game, seat: Seat, iso: Any) -> str:
    """A time in the player's zone (the game's when they set none), UTC beside, as mail gives it."""
    try:
        at = datetime.fromisoformat(str(iso))
    except ValueError:
        return str(iso)
    zone = address_zone(session, seat.email) or parse_policy(game.deadline_policy).zone
    local = at.astimezone(zone)
    text = local.strftime("%a %d %b %H:%M ") + zone.key
    return text if zone.key == "UTC" else f"{text} ({at.astimezone(ZoneInfo('UTC')).strftime('%H:%M')} UTC)"


def _seat_page(seat: Seat) -> str:
    from service.urls import absolute

    return absolute("dashboard.play", seat_id=seat.id)  # this browser's own player link replaces it


def _pushes(session: Session, game: Game, told: notice.News) -> list[tuple[Seat, News]]:
    """Each seat's push for one event of the game (none for events push does not carry)."""
    data = told.data
    seats = {s.name: s for s in game.seats if s.joined_at is not None}
    title = game.title
    out: list[tuple[Seat, News]] = []
    if told.event == "round_opened":
        number = int(data["round"])
        for name in data.get("expected", []):
            if (seat := seats.get(name)) is not None:
                body = f"Round {number}: " + (f"orders by {_when(session, game, seat, data['deadline'])}"
                                              if data.get("deadline") else "orders when you are ready")
                out.append((seat, News("turn", f"r{number}", f"Your turn in {title}", body, _seat_page(seat),
                                       number)))
    elif told.event == "reminder":
        number = int(data["round"])
        for name in data.get("due", []):
            if (seat := seats.get(name)) is not None:
                out.append((seat, News("reminder", told.key or f"r{number}.{data['deadline']}",
                                       f"Reminder: round {number} of {title} closes soon",
                                       f"Orders by {_when(session, game, seat, data['deadline'])}",
                                       _seat_page(seat), number)))
    elif told.event in ("round_resolved", "game_over"):
        over = told.event == "game_over"
        outcome = data.get("outcome") or {}
        winners = ", ".join(outcome.get("winners") or [])
        head = f"Game over: {title}" if over else f"Round {data['round']} results: {title}"
        body = ((f"{winners} won" if winners else "A draw") if over
                else f"Round {data['round']} is resolved: see what happened.")
        for seat in seats.values():
            out.append((seat, News("results", "over" if over else f"r{data['round']}", head, body,
                                   _seat_page(seat))))
    elif told.event == "message" and told.to:
        for name in told.to:
            if (seat := seats.get(name)) is not None and data.get("from") != name:
                sender = "the GM" if data.get("from") == "gm" else data.get("from")
                out.append((seat, News("message", f"m{data.get('message_id')}", f"Message from {sender}",
                                       str(data.get("text", ""))[:300], _seat_page(seat))))
    elif told.event == "gm_news" and data.get("action") in ("gm_pause", "gm_resume"):
        event = "paused" if data["action"] == "gm_pause" else "resumed"
        head = f"{title} is {'paused' if event == 'paused' else 'running again'}"
        key = f"{event}.{told.key or ''}{data.get('round')}.{clock.now().isoformat()}"
        for seat in seats.values():
            out.append((seat, News(event, key, head, str(data.get("text", ""))[:300], _seat_page(seat))))
    elif told.event == "seat_to_bot" and (seat := seats.get(str(data.get("seat")))) is not None:
        out.append((seat, News("bot", f"from{data.get('from_round')}",
                               f"Your seat in {title} was handed to the bot",
                               f"From round {data.get('from_round')} the bot plays {seat.name}.",
                               _seat_page(seat))))
    return out


class PushChannel:
    """Web push as a channel of service.notify."""

    name = "push"

    def queue(self, session: Session, news: notice.News) -> None:
        if not enabled() or not session.scalar(select(PushSubscription.id).limit(1)):
            return  # nobody here has push on: no game to read
        game = session.get(Game, news.game_id)
        if game is None:
            return
        for seat, one in _pushes(session, game, news):
            queue(session, game, seat, one)

    def lost(self, app: Flask) -> int:
        return lost(app)


CHANNEL = PushChannel()
