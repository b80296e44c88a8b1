"""A World (tests/service/schedule_world.py) with a push service beside it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import select

from service import push
from service.db import session_scope
from service.models import Game, PushOutbox, Seat
from tests.push.receiver import Browser, PushService
from tests.service.schedule_world import World


@pytest.fixture
def service() -> Iterator[PushService]:
    receiver = PushService()
    yield receiver
    receiver.close()


class PushWorld(World):
    def received(self, service: PushService, browser: Browser) -> list[dict[str, Any]]:
        """What the browser got, decrypted and its VAPID tokens checked (at the world's time)."""
        return service.messages(browser, self.server_key(), self.clock.now().timestamp())

    def server_key(self) -> str:
        with self.app.app_context():
            return push.application_server_key()

    def subscribe(self, browser: Browser, seat: str, game_id: str | None = None) -> Any:
        return self.client.post("/push/subscribe", json={
            "subscription": browser.subscription(), "game_id": game_id or self.game_id, "token": self.tokens[seat]})

    def news(self, seat: str, event: str = "turn", key: str = "r1", game_id: str | None = None,
             title: str = "Your turn") -> list[int]:
        """Queue one piece of news for a seat as the house would (committed, then rung)."""
        with self.app.app_context(), session_scope(self.app) as s:
            with s.begin():
                game = s.get(Game, game_id or self.game_id)
                assert game is not None
                seat_row = s.scalars(select(Seat).where(Seat.game_id == game.id, Seat.name == seat)).one()
                rows = push.queue(s, game, seat_row, push.News(event, key, title, f"{game.title}: {event}",
                                                               f"http://dicepost.test/games/{game.id}"))
            return [r.id for r in rows]

    def pushes(self) -> list[PushOutbox]:
        with session_scope(self.app) as s:
            rows = list(s.scalars(select(PushOutbox).order_by(PushOutbox.id)))
            s.expunge_all()
            return rows
