"""Posting a webhook's news: one post a minute at most, the news waiting collapsed into it.

`deliver(hook_id)` (worker.tasks.deliver_webhook; rung after the news commits and by the
sweeper) takes the hook under a lease, so one deliverer posts at a time. The news it
posts is a batch: the rows waiting, marked `sending` with the post's id (Standard
Webhooks' `webhook-id`). A batch that was not settled (the process died mid-post) is
posted again first, with the same id, so a receiver can drop the repeat; new news waits
for the next post. The answer settles it:

- 2xx: the batch is sent; the next post no sooner than a minute on.
- 429: nothing counted against the hook; the next post after Retry-After (or Discord's
  `retry_after`), the same batch again.
- 401, 403, 404, 410, or an address no longer allowed: the hook is failing at once
  (shown on the GM's page); its waiting news is dropped.
- anything else (5xx, no answer): a failure; the next try after a backoff, and after
  MAX_FAILURES in a row the hook is failing.

No ETA task: the hook's `next_post_at` is a row the sweeper finds due.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from engine import find_ruleset
from service import clock, urls
from service.db import session_scope
from service.models import Game, Seat, Step, Tournament, TournamentGame, Webhook, WebhookEvent
from service.webhooks import guard, payloads
from service.webhooks.store import hook_of, open_secret, view

log = logging.getLogger(__name__)

PACE = timedelta(minutes=1)  # one post a minute at most, per hook
LEASE = timedelta(seconds=60)  # longer than a post's timeout
MAX_BATCH = 25
MAX_FAILURES = 8  # in a row: about four hours of backoff
DEAD = frozenset({401, 403, 404, 410})
MAX_RETRY_AFTER = timedelta(hours=1)


def backoff(failures: int) -> timedelta:
    """30 s, 1, 2, 4 ... minutes, at most an hour."""
    return min(timedelta(seconds=30 * 2 ** max(failures - 1, 0)), timedelta(hours=1))


@dataclass(frozen=True)
class Post:
    hook_id: int
    game_id: str
    kind: str
    url: str
    secret_sealed: str | None
    batch: str
    rows: list[WebhookEvent]


def deliver(hook_id: int) -> str:
    """Post what waits for the hook, if its time has come; what happened, in a word."""
    post = _claim(hook_id)
    if post is None:
        return "nothing"
    try:
        body, headers = _compose(post)
        answer: guard.Answer | None = guard.post(post.url, body, headers)
        error = None
    except guard.Refused as refused:
        answer, error = None, f"refused: {refused}"
    except OSError as exc:
        answer, error = None, f"no answer: {exc.__class__.__name__}: {exc}"[:500]
    return _settle(post, answer, error)


def _claim(hook_id: int) -> Post | None:
    now = clock.now()
    with session_scope() as session, session.begin():
        hook = session.scalars(select(Webhook).where(Webhook.id == hook_id).with_for_update()).first()
        if (hook is None or hook.status != "ok" or (hook.lease_until and hook.lease_until > now)
                or (hook.next_post_at and hook.next_post_at > now)):
            return None
        rows = list(session.scalars(select(WebhookEvent).where(
            WebhookEvent.webhook_id == hook_id, WebhookEvent.status == "sending").order_by(WebhookEvent.id)))
        if rows:  # a post that was never settled goes again as it was
            batch = rows[0].batch or _batch_id()
            rows = [r for r in rows if r.batch == batch]
        else:
            rows = list(session.scalars(select(WebhookEvent).where(
                WebhookEvent.webhook_id == hook_id, WebhookEvent.status == "pending")
                .order_by(WebhookEvent.id).limit(MAX_BATCH)))
            if not rows:
                return None
            batch = _batch_id()
            for row in rows:
                row.status, row.batch = "sending", batch
        hook.lease_until = now + LEASE
        session.flush()
        session.expunge_all()
        return Post(hook.id, hook.game_id, hook.kind, hook.url, hook.secret_sealed, batch, rows)


def _batch_id() -> str:
    return "msg_" + secrets.token_urlsafe(18)


def _compose(post: Post) -> tuple[bytes, dict[str, str]]:
    now = clock.now()
    with session_scope() as session, session.begin():
        game = session.get(Game, post.game_id)
        if game is None:
            raise guard.Refused(f"game {post.game_id} is gone")
        facts = payloads.GameFacts(game.id, game.title, urls.game_url(game.id))
        items = [payloads.item(r.id, r.event, r.data, facts, _round_url(game.id, r),
                               _summary(session, game, r)) for r in post.rows]
        document: Mapping[str, Any]
        if post.kind == "discord":
            seats: Sequence[Seat] = [] if _anonymous(session, game.id) else session.scalars(
                select(Seat).where(Seat.game_id == game.id)).all()
            ids = {s.name: s.discord_id for s in seats if s.discord_id}
            document = payloads.discord(items, ids)
        elif post.kind == "slack":
            document = payloads.slack(items)
        else:
            document = payloads.json_document(items, facts, now)
    body = payloads.body_bytes(document)
    headers = {"Content-Type": "application/json"}
    if post.kind == "json" and post.secret_sealed:
        headers |= payloads.signed_headers(open_secret(post.game_id, post.secret_sealed), post.batch,
                                           int(now.timestamp()), body)
    return body, headers


def _round_url(game_id: str, row: WebhookEvent) -> str:
    number = row.data.get("round")
    if row.event == "round_resolved" and isinstance(number, int) and number > 0:
        return urls.absolute("web.round_", game_id=game_id, number=number)
    return urls.game_url(game_id)


def _summary(session: Session, game: Game, row: WebhookEvent) -> list[str]:
    """A resolved round in a line or two: what its events did, counted by the ruleset's
    words, and the units lost (the round's page has the rest)."""
    if row.event != "round_resolved" or not isinstance(row.data.get("step"), int):
        return []
    events = session.scalar(select(Step.events).where(Step.game_id == game.id, Step.t == row.data["step"]))
    if not events:
        return ["Nothing happened."]
    words = find_ruleset(game.ruleset, game.revision).info.events
    kinds = [str(e.get("kind", "")) for e in events if isinstance(e, Mapping)]
    counts = [(sum(k in words.moves for k in kinds), "move", "moves"),
              (sum(k in words.attacks for k in kinds), "attack", "attacks"),
              (sum(k in words.losses for k in kinds), "unit lost", "units lost")]
    said = [f"{n} {one if n == 1 else many}" for n, one, many in counts if n]
    lines = [(", ".join(said) or f"{len(kinds)} events") + "."]
    losses = [str(e.get("text", "")) for e in events
              if isinstance(e, Mapping) and e.get("kind") in words.losses and e.get("text")]
    lines += losses[:5]
    return lines


def retry_after(answer: guard.Answer, now: datetime) -> timedelta:
    """How long a 429 asks us to wait: Retry-After (seconds or an HTTP date), else
    Discord's `retry_after` in the body, else a minute; at most an hour."""
    wait: timedelta | None = None
    value = answer.headers.get("retry-after", "").strip()
    if value:
        try:
            wait = timedelta(seconds=float(value))
        except ValueError:
            try:
                wait = parsedate_to_datetime(value).astimezone(UTC) - now
            except (TypeError, ValueError):
                wait = None
    if wait is None:
        try:
            wait = timedelta(seconds=float(json.loads(answer.body or b"{}").get("retry_after")))
        except (ValueError, TypeError, AttributeError):
            wait = None
    if wait is None:
        wait = PACE
    return min(max(wait, timedelta(seconds=1)), MAX_RETRY_AFTER)


def _settle(post: Post, answer: guard.Answer | None, error: str | None) -> str:
    now = clock.now()
    ids = [r.id for r in post.rows]
    with session_scope() as session, session.begin():
        hook = session.scalars(select(Webhook).where(Webhook.id == post.hook_id).with_for_update()).first()
        if hook is None:
            return "deleted"
        hook.lease_until = None
        status = answer.status if answer is not None else None
        if status is not None and 200 <= status < 300:
            _mark(session, ids, "sent", now)
            hook.failures, hook.last_error, hook.last_posted_at = 0, None, now
            hook.next_post_at = now + PACE
            outcome = "sent"
        elif status == 429 and answer is not None:
            wait = retry_after(answer, now)
            hook.next_post_at = now + wait
            hook.last_error = f"429 Too Many Requests: waiting {int(wait.total_seconds())} s as asked"
            outcome = "waiting"
        elif (error is not None and error.startswith("refused")) or status in DEAD:
            _fail(session, hook,
                  error or f"{status}: the endpoint refuses our posts (is the webhook deleted?)", now)
            outcome = "failing"
        else:
            hook.failures += 1
            hook.last_error = error or f"{status}: {_answer_words(answer)}"
            hook.next_post_at = now + backoff(hook.failures)
            outcome = "retry"
            if hook.failures >= MAX_FAILURES:
                _fail(session, hook, f"{hook.failures} failures in a row; the last: {hook.last_error}", now)
                outcome = "failing"
    log.info("webhook %s of game %s: %s (%d news)", post.hook_id, post.game_id, outcome, len(ids))
    return outcome


def _answer_words(answer: guard.Answer | None) -> str:
    return "" if answer is None else answer.body[:200].decode("utf-8", "replace")


def _mark(session: Session, ids: Sequence[int], status: str, now: datetime) -> None:
    session.execute(update(WebhookEvent).where(WebhookEvent.id.in_(ids))
                    .values(status=status, sent_at=now if status == "sent" else None)
                    .execution_options(synchronize_session=False))


def _fail(session: Session, hook: Webhook, reason: str, now: datetime) -> None:
    """The hook is failing: shown to the GM, nothing more posted until the GM's test post
    gets through; the news waiting for it is dropped (it would be stale by then)."""
    hook.status, hook.last_error, hook.failing_since = "failing", reason[:1000], now
    session.execute(update(WebhookEvent).where(WebhookEvent.webhook_id == hook.id,
                                               WebhookEvent.status.in_(("pending", "sending")))
                    .values(status="failed").execution_options(synchronize_session=False))


def try_post(session: Session, game_id: str, hook_id: int) -> tuple[str, dict[str, Any]]:
    """The GM's test post, at once (not through the queue: the GM waits for its answer):
    what the endpoint said, and the hook after it. A failing hook works again when the
    post gets through. No transaction is held while the post waits for its answer."""
    now = clock.now()
    with session.begin():
        hook = hook_of(session, game_id, hook_id)
        game = session.get(Game, game_id)
        title = game.title if game else game_id
        kind, url, sealed = hook.kind, hook.url, hook.secret_sealed
    facts = payloads.GameFacts(game_id, title, urls.game_url(game_id))
    it = payloads.Item(0, "test", now.isoformat(), {}, f"{title}: a test post from dicepost",
                       ["This webhook works: the game's news will appear here."], facts.url)
    document: Mapping[str, Any] = (payloads.discord([it], {}) if kind == "discord"
                                   else payloads.slack([it]) if kind == "slack"
                                   else payloads.json_document([it], facts, now))
    body = payloads.body_bytes(document)
    headers = {"Content-Type": "application/json"}
    if kind == "json" and sealed:
        headers |= payloads.signed_headers(open_secret(game_id, sealed), _batch_id(), int(now.timestamp()),
                                           body)
    try:
        answer = guard.post(url, body, headers)
        result = f"{answer.status}: " + ("delivered" if 200 <= answer.status < 300 else _answer_words(answer))
    except guard.Refused as refused:
        answer, result = None, f"refused: {refused}"
    except OSError as exc:
        answer, result = None, f"no answer: {exc}"
    with session.begin():
        hook = hook_of(session, game_id, hook_id)
        if answer is not None and 200 <= answer.status < 300 and hook.status != "ok":
            hook.status, hook.failures, hook.last_error, hook.failing_since = "ok", 0, None, None
            hook.next_post_at = None
        return result.strip(), view(hook)


def _anonymous(session: Session, game_id: str) -> bool:
    """A game of an anonymous tournament: an @mention would name the player behind a seat."""
    return bool(session.scalar(
        select(Tournament.anonymous).join(TournamentGame, TournamentGame.tournament_id == Tournament.id)
        .where(TournamentGame.game_id == game_id)))
