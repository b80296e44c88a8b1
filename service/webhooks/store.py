"""A game's webhooks: the GM adds, lists and deletes them, and the notification channel
(service.notify) queues each piece of public news for each working hook, in the
transaction that makes it; service.webhooks.deliver posts what waits.

A json hook's signing secret (Standard Webhooks: `whsec_` and 24 random bytes in base64)
is shown once, when the hook is added, and kept sealed with the seal key as the chain tips
are (service.dice_keys): a copy of the database alone cannot sign. Discord's and Slack's
URLs carry their own secret; pages and the API show them shortened.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

from flask import Flask, current_app
from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from service import clock
from service.db import session_scope
from service.errors import Invalid, NotFound
from service.models import Webhook, WebhookEvent, add_once
from service.notice import News
from service.tasks import send_tasks, task_after_commit
from service.webhooks.guard import Refused, checked_url

KINDS = ("discord", "slack", "json")
# The public news a webhook posts (service.notify's events; private news never).
POSTED = frozenset({"game_started", "round_opened", "reminder", "round_resolved", "game_over", "gm_news",
                    "message"})
MAX_HOOKS = 5  # a game's webhooks
DELIVER_WEBHOOK = "worker.tasks.deliver_webhook"
GRACE = timedelta(seconds=5)  # a fresh doorbell is probably still on its way
SECRET_PREFIX = "whsec_"  # noqa: S105 (the form of every secret, not one)
_SECRET_BYTES = 24


def _mac(key: bytes, *parts: bytes) -> bytes:
    return hmac.new(key, b"\x00".join(parts), hashlib.sha256).digest()


def _seal_key() -> bytes:
    return bytes.fromhex(current_app.config["SEAL_KEY"])


def seal_secret(game_id: str, secret: bytes) -> str:
    nonce = secrets.token_bytes(16)
    pad = _mac(_seal_key(), b"dicepost hook secret pad", game_id.encode(), nonce)
    body = bytes(a ^ b for a, b in zip(secret, pad, strict=False))
    tag = _mac(_seal_key(), b"dicepost hook secret tag", game_id.encode(), nonce, body)[:16]
    return (nonce + body + tag).hex()


def open_secret(game_id: str, sealed: str) -> bytes:
    raw = bytes.fromhex(sealed)
    nonce, body, tag = raw[:16], raw[16:-16], raw[-16:]
    if not hmac.compare_digest(tag, _mac(_seal_key(), b"dicepost hook secret tag", game_id.encode(), nonce,
                                         body)[:16]):
        raise ValueError(f"the seal key does not open a webhook secret of game {game_id}")
    pad = _mac(_seal_key(), b"dicepost hook secret pad", game_id.encode(), nonce)
    return bytes(a ^ b for a, b in zip(body, pad, strict=False))


def secret_text(secret: bytes) -> str:
    return SECRET_PREFIX + base64.b64encode(secret).decode()


def checked_kind(kind: Any) -> str:
    if kind not in KINDS:
        raise Invalid(f"kind: one of {', '.join(KINDS)}, got {kind!r}", "kind")
    return str(kind)


def add(session: Session, game_id: str, url: Any, kind: Any) -> tuple[Webhook, str | None]:
    """Add a webhook to the game (the caller owns the transaction); the hook and, for a json
    hook, its signing secret, which is shown this once."""
    kind = checked_kind(kind)
    try:
        url = checked_url(url)
    except Refused as refused:
        raise Invalid(str(refused), "url") from None
    if len(hooks_of(session, game_id)) >= MAX_HOOKS:
        raise Invalid(f"url: a game has at most {MAX_HOOKS} webhooks; delete one first", "url")
    secret = secrets.token_bytes(_SECRET_BYTES) if kind == "json" else None
    hook = Webhook(game_id=game_id, kind=kind, url=url, status="ok", failures=0, created_at=clock.now(),
                   secret_sealed=seal_secret(game_id, secret) if secret else None)
    session.add(hook)
    session.flush()
    return hook, secret_text(secret) if secret else None


def hooks_of(session: Session, game_id: str) -> list[Webhook]:
    return list(session.scalars(select(Webhook).where(Webhook.game_id == game_id).order_by(Webhook.id)))


def hook_of(session: Session, game_id: str, hook_id: int) -> Webhook:
    hook = session.get(Webhook, hook_id)
    if hook is None or hook.game_id != game_id:
        raise NotFound(f"webhook {hook_id} is not one of this game's")
    return hook


def delete(session: Session, game_id: str, hook_id: int) -> None:
    hook = hook_of(session, game_id, hook_id)
    for row in session.scalars(select(WebhookEvent).where(WebhookEvent.webhook_id == hook.id)):
        session.delete(row)
    session.delete(hook)


def shown_url(url: str) -> str:
    """The URL without what makes it a credential: scheme, host and the path's start."""
    parts = urlsplit(url)
    path = parts.path if len(parts.path) <= 24 else parts.path[:20] + "…"
    return f"{parts.scheme}://{parts.netloc}{path}"


def view(hook: Webhook) -> dict[str, Any]:
    """What the GM's page and the API show of a hook."""
    return {"id": hook.id, "kind": hook.kind, "url": shown_url(hook.url), "status": hook.status,
            "failures": hook.failures, "last_error": hook.last_error,
            "failing_since": hook.failing_since.isoformat() if hook.failing_since else None,
            "last_posted_at": hook.last_posted_at.isoformat() if hook.last_posted_at else None,
            "created_at": hook.created_at.isoformat()}


class WebhookChannel:
    """The notification channel of chat and JSON webhooks (service.notify.CHANNELS)."""

    name = "webhooks"

    def queue(self, session: Session, news: News) -> None:
        if not news.public or news.event not in POSTED:
            return
        for hook_id in _working_hooks(session, news.game_id):
            row = WebhookEvent(webhook_id=hook_id, event=news.event, key=news.key, status="pending",
                               data={**news.data, "at": news.at.isoformat()}, created_at=news.at)
            if _added_once(session, row):
                task_after_commit(session, DELIVER_WEBHOOK, (hook_id,))

    def lost(self, app: Flask) -> int:
        """Ring every working hook with news waiting whose time to post has come."""
        now = clock.now()
        with session_scope() as session, session.begin():
            # From the few hooks, each asked through its (webhook, status) index: sent news piles up.
            waiting = select(WebhookEvent.id).where(
                WebhookEvent.webhook_id == Webhook.id, WebhookEvent.status.in_(("pending", "sending")),
                WebhookEvent.created_at <= now - GRACE).exists()
            ids = list(session.scalars(select(Webhook.id).where(
                Webhook.status == "ok", waiting,
                or_(Webhook.next_post_at.is_(None), Webhook.next_post_at <= now),
                or_(Webhook.lease_until.is_(None), Webhook.lease_until <= now))
                .order_by(Webhook.id).limit(500)))
        send_tasks(app, [(DELIVER_WEBHOOK, (hook_id,), "mail") for hook_id in ids])
        return len(ids)


_HOOKS = "dicepost.webhooks"


def _working_hooks(session: Session, game_id: str) -> list[int]:
    """The game's working hooks, read once a transaction (a resolution tells of a round
    resolved and the next one opened: one query)."""
    transaction = session.get_transaction()
    cached = session.info.get(_HOOKS)
    if cached is None or cached[0] is not transaction:
        cached = session.info[_HOOKS] = (transaction, {})
    known: dict[str, list[int]] = cached[1]
    if game_id not in known:
        known[game_id] = list(session.scalars(select(Webhook.id).where(Webhook.game_id == game_id,
                                                                       Webhook.status == "ok")))
    return known[game_id]


def _added_once(session: Session, row: WebhookEvent) -> bool:
    """Insert the row; a keyed one unless the hook has it already (queued by us, or by a
    racing transaction: its insert is rolled back to a savepoint)."""
    if row.key is None:
        session.add(row)
        return True
    return add_once(session, row, select(WebhookEvent.id).where(WebhookEvent.webhook_id == row.webhook_id,
                                                                WebhookEvent.key == row.key))


CHANNEL = WebhookChannel()
