"""One piece of news for the notification channels: service.notify makes it, each channel
(service.push, service.webhooks) reads it. Below all of them, so no channel imports notify."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from service import clock


@dataclass(frozen=True)
class News:
    """One event of one game, as every channel is told it."""

    game_id: str
    event: str  # one of EVENTS
    data: Mapping[str, Any]  # JSON values (the table in the module's docstring)
    to: tuple[str, ...] | None = None  # None: public news; else the only seats it is for
    key: str | None = None  # the same key is queued once per channel and target (a reminder)
    at: datetime = field(default_factory=clock.now)

    @property
    def public(self) -> bool:
        return self.to is None
