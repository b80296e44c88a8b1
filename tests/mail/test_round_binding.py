"""A mail's orders count for the round it answers, never for a later one.

The round is the one of the game mail it replies to (In-Reply-To / References name an
outbox row), or for a fresh mail the round open when it arrived. A crash between
storing the orders and recording the mail as processed cannot happen: both are one
transaction, so the sweep that reprocesses a crashed mail stores its orders once, in
its own round. A mail for a round that has closed gets an answer saying so.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
from sqlalchemy import select

from service import clock
from service.db import session_scope
from service.inbound import receive as inbound
from service.inbound.receive import STUCK_AFTER, process_pending
from service.models import InboundMail, Round, Submission
from tests.mail.conftest import MailGame
from tests.mail.mail_world import text_of
from tests.mail.test_inbound import _mail

SECRET = "binding-secret"


class Crash(BaseException):
    """The process dies here: not an error the code could catch and record."""


@pytest.fixture
def fake_clock(db_mail_game: MailGame) -> Iterator[clock.FakeClock]:
    with db_mail_game.app.app_context():
        start = clock.now()
    fake = clock.FakeClock(start + timedelta(seconds=1))
    db_mail_game.app.config["CLOCK"] = fake
    yield fake
    db_mail_game.app.config.pop("CLOCK", None)


def _crash_when_recording(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first mail recorded as processed kills the process at that moment."""
    real = inbound._record
    armed = [True]

    def record(*args: object, **kwargs: object) -> None:
        if armed[0]:
            armed[0] = False
            raise Crash("killed between the orders and the mail's outcome")
        real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(inbound, "_record", record)


def _orders(game: MailGame, name: str) -> dict[int, list[str]]:
    """round number → the seat's stored versions' accepted text, oldest first."""
    seat = game.seat(name)
    with session_scope(game.app) as s:
        rows = s.execute(select(Round.number, Submission.accepted).join(Round, Submission.round_id == Round.id)
                         .where(Submission.seat_id == seat.id).order_by(Submission.version)).all()
    found: dict[int, list[str]] = {}
    for number, accepted in rows:
        found.setdefault(number, []).append(accepted)
    return found


def _round_status(game: MailGame, number: int) -> str | None:
    with session_scope(game.app) as s:
        return s.scalar(select(Round.status).where(Round.game_id == game.id, Round.number == number))


def _api_orders(game: MailGame, name: str, number: int, text: str = "pass") -> None:
    r = game.app.test_client().put(f"/api/games/{game.id}/orders", json={"round": number, "orders": text},
                                   headers={"Authorization": f"Bearer {game.tokens[name]}"})
    assert r.status_code == 200, r.json


def _sweep(game: MailGame, fake: clock.FakeClock) -> list[inbound.Outcome]:
    fake.advance(STUCK_AFTER + timedelta(minutes=1))
    with game.app.app_context():
        return process_pending()


def test_a_crash_between_orders_and_outcome_replays_them_once_in_their_round(db_mail_game, fake_clock,
                                                                               monkeypatch):
    game = db_mail_game
    _crash_when_recording(monkeypatch)
    with pytest.raises(Crash):
        game.send(_mail(game.reply_to("alice"), "pass", mid="<crash-a@c>"))
    with session_scope(game.app) as s:
        assert s.scalars(select(InboundMail.status)).one() == "processing"
    done = _sweep(game, fake_clock)
    assert [(o.status, o.detail) for o in done] == [("processed", "orders stored for round 1 as version 1")]
    _api_orders(game, "bob", 1)
    assert _round_status(game, 1) == "resolved"
    assert _sweep(game, fake_clock) == []
    assert _orders(game, "alice") == {1: ["pass"]}


def test_a_reply_to_a_closed_rounds_mail_is_answered_and_stores_nothing(db_mail_game):
    game = db_mail_game
    start = game.start_mail("alice")  # asks for round 1's orders
    _api_orders(game, "alice", 1)
    _api_orders(game, "bob", 1)
    assert _round_status(game, 1) == "resolved"
    out = game.players["alice"].reply(start, "pass")
    assert out.status == "processed"
    assert out.detail.startswith("round 1 closed at "), out.detail
    assert _orders(game, "alice") == {1: ["pass"]}
    answer_mail = game.players["alice"].latest("Status")
    answer = text_of(answer_mail)
    assert "Your mail answered round 1, which closed at " in answer
    assert "round 2 is open: resend your orders for it" in answer
    assert "Round 2 is open" in answer and "What your units can do:" in answer
    resent = game.players["alice"].reply(answer_mail, "pass")  # the answer asks for round 2
    assert resent.detail == "orders stored for round 2 as version 1", resent.detail
    assert _orders(game, "alice") == {1: ["pass"], 2: ["pass"]}


def test_a_fresh_mail_that_waited_past_its_round_is_answered_as_closed(db_mail_game, fake_clock):
    game = db_mail_game
    raw = _mail(game.reply_to("alice"), "A1 hold", mid="<late@c>")
    with game.app.app_context(), session_scope(game.app) as s, s.begin():
        s.add(InboundMail(message_id="<late@c>", raw=raw, status="stored", received_at=clock.now()))
    fake_clock.advance(timedelta(minutes=1))
    _api_orders(game, "alice", 1)
    _api_orders(game, "bob", 1)
    assert _round_status(game, 1) == "resolved"
    with game.app.app_context():
        done = process_pending()
    assert [o.status for o in done] == ["processed"]
    assert done[0].detail.startswith("round 1 closed at "), done[0].detail
    assert _orders(game, "alice") == {1: ["pass"]}


def test_a_webhook_retried_after_a_crash_binds_the_orders_to_their_round(db_mail_game, fake_clock,
                                                                       monkeypatch):
    game = db_mail_game
    game.app.config["INBOUND_SECRET"] = SECRET
    client = game.app.test_client()
    raw = _mail(game.reply_to("alice"), "pass", mid="<hook@c>")
    _crash_when_recording(monkeypatch)
    with pytest.raises(Crash):
        client.post("/api/inbound/email", data=raw, headers={"X-Dicepost-Secret": SECRET})
    retry = client.post("/api/inbound/email", data=raw, headers={"X-Dicepost-Secret": SECRET})
    assert retry.status_code == 200 and retry.json["status"] == "duplicate", retry.json
    _api_orders(game, "bob", 1)
    done = _sweep(game, fake_clock)
    assert [(o.status, o.detail) for o in done] == [("processed", "orders stored for round 1 as version 1")]
    assert _round_status(game, 1) == "resolved"
    assert _orders(game, "alice") == {1: ["pass"]}


def test_clear_in_a_reply_to_a_closed_rounds_mail_withdraws_nothing(db_mail_game):
    game = db_mail_game
    start = game.start_mail("alice")
    _api_orders(game, "alice", 1)
    _api_orders(game, "bob", 1)
    _api_orders(game, "alice", 2)
    out = game.players["alice"].reply(start, "CLEAR")
    assert out.detail.startswith("round 1 closed at "), out.detail
    assert _orders(game, "alice") == {1: ["pass"], 2: ["pass"]}
