"""News beyond mail: the one call the domain makes at each event, fanned out to every
notification channel (chat webhooks, web push) beside the mail it queues.

The domain calls `notify(session, game_id, event, data, to=..., key=...)` inside the
transaction that makes the news, next to where it queues the event's mail. Each channel
in `CHANNELS` gets the same `News` and writes its own outbox rows in that transaction
(so the news exists exactly when the change does), then rings its own delivery task
after COMMIT (`service.tasks.task_after_commit`, a task sent by name); its own sweep
(`Channel.lost`, run by service.sweeper) rings again whatever was lost or waits for a
retry. Nothing is sent from here and nothing here reads the network.

A channel registers by being listed in `CHANNELS` below: an object with
    name: str                                    # "webhooks", "push"
    queue(session, news) -> None                 # write this channel's rows for the news
    lost(app) -> int                             # the sweeper's pass: ring what waits; a count
It lives in a module that imports nothing above the bottom of the service (models,
db, clock, tasks, urls, ...): every domain module imports this one. A channel takes the
events it serves and ignores the rest (an event name it does not know included), and
keeps its own privacy rule: `news.to` is None for public news (anyone at the table, or
watching a public game, may know it: chat webhooks take only these) and names the seats
a private piece of news is for (a private message: push takes it, webhooks never).

Events and their data (JSON values only: seat names, round numbers, ISO 8601 UTC times;
never a token, a link with a token, an address or a private text in public news):

    game_started   {"seats": [names]}                        the last join ran the setup
    round_opened   {"round": n, "expected": [names], "deadline": iso | None}
                   expected: the people (not bots) who must send orders
    reminder       {"round": n, "deadline": iso, "waiting": [names], "due": [names]}
                   waiting: every person without orders yet; due: those whose own
                   reminder lead is reached now (key: one per round and deadline)
    round_resolved {"round": n, "step": t}
    game_over      {"outcome": {"winners": [names], "draw": bool, "reason": str?}}
    gm_news        {"action": "gm_pause" | ..., "text": sentence with times in UTC,
                    "round": n}
    message        {"from": name | "gm", "to": "all" | name | "gm", "text": str,
                    "round": n, "message_id": id}      to=None only when "to" is "all"
    seat_to_bot    {"seat": name, "from_round": n}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from flask import Flask
from sqlalchemy.orm import Session

from service.notice import News
from service.push import CHANNEL as PUSH
from service.webhooks.store import CHANNEL as WEBHOOKS

EVENTS = frozenset({"game_started", "round_opened", "reminder", "round_resolved", "game_over",
                    "gm_news", "message", "seat_to_bot"})


class Channel(Protocol):
    @property
    def name(self) -> str: ...
    def queue(self, session: Session, news: News) -> None: ...
    def lost(self, app: Flask) -> int: ...


# One entry a channel (see the docstring): the order is the order they are told.
CHANNELS: tuple[Channel, ...] = (
    WEBHOOKS,
    PUSH,
)


def notify(session: Session, game_id: str, event: str, data: Mapping[str, Any], *,
           to: tuple[str, ...] | None = None, key: str | None = None) -> News:
    """Tell every channel about one event of a game, in the caller's transaction."""
    if event not in EVENTS:
        raise ValueError(f"no event {event!r} (events: {', '.join(sorted(EVENTS))})")
    news = News(game_id, event, dict(data), to, key)
    for channel in CHANNELS:
        channel.queue(session, news)
    return news


def ring_lost(app: Flask) -> dict[str, int]:
    """The sweeper's pass over every channel: what each rang again."""
    return {channel.name: channel.lost(app) for channel in CHANNELS}
