"""Delivering the outbox over real SMTP (aiosmtpd): leases, retries with backoff, failures."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select, update

from service import clock
from service.db import session_scope
from service.mail.outbox import failed_mail, retry_failed
from service.models import Outbox, Seat
from service.outbound.deliver import backoff, claim, deliver
from tests.mail.conftest import start_game
from tests.mail.smtp_server import DROP, SmtpServer


@pytest.fixture
def smtp():
    with SmtpServer() as server:
        yield server


def _queue(app, game_id: str, seat_name: str = "alice", kind: str = "status", **payload) -> int:
    with session_scope(app) as s, s.begin():
        seat = s.scalars(select(Seat).where(Seat.game_id == game_id, Seat.name == seat_name)).one()
        row = Outbox(game_id=game_id, seat_id=seat.id, kind=kind, payload=payload, to_address=seat.email,
                     message_id=f"<{game_id}.{kind}.t{clock.now().timestamp()}@dicepost.test>", status="pending")
        s.add(row)
        s.flush()
        return row.id


def _row(app, outbox_id: int) -> Outbox:
    with session_scope(app) as s:
        row = s.get(Outbox, outbox_id)
        s.expunge(row)
        return row


def _make_due(app, outbox_id: int) -> None:
    with session_scope(app) as s, s.begin():
        s.execute(update(Outbox).where(Outbox.id == outbox_id)
                  .values(next_attempt_at=clock.now() - timedelta(seconds=1)))


def _deliver(app, outbox_id: int) -> str:
    with app.app_context():
        return deliver(outbox_id)


@pytest.fixture
def game(sqlite_app, smtp):
    game = start_game(sqlite_app)  # embedded mailbox while the game is set up
    sqlite_app.config["SMTP_URL"] = f"smtp://127.0.0.1:{smtp.port}"
    return game


@pytest.fixture
def db_game(db_mail_game, smtp):
    db_mail_game.app.config["SMTP_URL"] = f"smtp://127.0.0.1:{smtp.port}"
    return db_mail_game


def test_sent_over_smtp_with_the_rows_message_id(game, smtp):
    oid = _queue(game.app, game.id, message="hello")
    assert _deliver(game.app, oid) == "sent"
    row = _row(game.app, oid)
    assert (row.status, row.attempts, row.lease_until) == ("sent", 1, None)
    assert len(smtp.received) == 1
    got = smtp.received[0]
    assert got.recipients == ["alice@example.org"]
    assert got.sender.startswith(f"bounce+{row.seat_id}-{oid}.") and got.sender.endswith("@dicepost.localhost")
    assert got.message["Message-ID"] == row.message_id
    assert _deliver(game.app, oid) == "busy"  # sent rows are never sent again
    assert len(smtp.received) == 1


def test_4xx_then_success_with_backoff(db_game, smtp):
    game = db_game
    smtp.handler.script = ["451 4.7.1 greylisted, try again later"]
    oid = _queue(game.app, game.id)
    assert _deliver(game.app, oid) == "retry"
    row = _row(game.app, oid)
    assert row.status == "pending" and row.attempts == 1 and "451" in row.last_error
    assert row.next_attempt_at > clock.now() + timedelta(seconds=30)
    assert _deliver(game.app, oid) == "busy"  # not due yet: the sweeper rings when it is
    _make_due(game.app, oid)
    assert _deliver(game.app, oid) == "sent"
    row = _row(game.app, oid)
    assert row.status == "sent" and row.attempts == 2 and row.last_error is None
    assert [m.message["Message-ID"] for m in smtp.received] == [row.message_id]


def test_drop_after_data_is_retried_with_the_same_message_id(game, smtp):
    smtp.handler.script = [DROP]
    oid = _queue(game.app, game.id)
    assert _deliver(game.app, oid) == "retry"
    assert "connection dropped" in _row(game.app, oid).last_error
    _make_due(game.app, oid)
    assert _deliver(game.app, oid) == "sent"
    assert smtp.handler.attempts == 2
    assert smtp.received[0].message["Message-ID"] == _row(game.app, oid).message_id


def test_5xx_fails_and_shows_on_the_gm_page(game, smtp):
    smtp.handler.script = ["550 5.1.1 <alice@example.org>: no such user"]
    oid = _queue(game.app, game.id)
    assert _deliver(game.app, oid) == "failed"
    with session_scope(game.app) as s:
        failed = failed_mail(s, game.id)
    assert [(f.id, f.seat, f.to_address, f.kind) for f in failed] == [(oid, "alice", "alice@example.org", "status")]
    assert "550" in failed[0].error
    page = game.app.test_client().get(f"/games/{game.id}/gm/{game.gm_token}")
    assert page.status_code == 200
    assert b"Mail that could not be delivered" in page.data and b"550 5.1.1" in page.data
    console = game.app.test_client().get(f"/api/games/{game.id}/gm",
                                         headers={"Authorization": f"Bearer {game.gm_token}"})
    assert [f["id"] for f in console.json["failed_mail"]] == [oid]
    with session_scope(game.app) as s, s.begin():
        assert retry_failed(s, game.id, oid)
        assert not retry_failed(s, "another-game", oid)
    assert _deliver(game.app, oid) == "sent"


def test_too_many_temporary_failures_give_up(game, smtp):
    from service.outbound import deliver as outbox

    smtp.handler.script = ["421 4.3.2 shutting down"] * outbox.MAX_ATTEMPTS
    oid = _queue(game.app, game.id)
    results = []
    for _ in range(outbox.MAX_ATTEMPTS):
        results.append(_deliver(game.app, oid))
        _make_due(game.app, oid)
    assert results == ["retry"] * (outbox.MAX_ATTEMPTS - 1) + ["failed"]
    assert _row(game.app, oid).last_error.startswith(f"gave up after {outbox.MAX_ATTEMPTS} attempts")
    assert smtp.received == []


def test_smtp_refused_connection_is_retried(game):
    from tests.mail.smtp_server import free_port

    game.app.config["SMTP_URL"] = f"smtp://127.0.0.1:{free_port()}?timeout=5"
    oid = _queue(game.app, game.id)
    assert _deliver(game.app, oid) == "retry"
    assert "refused" in _row(game.app, oid).last_error


def test_a_bad_smtp_url_is_recorded_and_retried(game):
    game.app.config["SMTP_URL"] = "smtp//no-scheme"
    oid = _queue(game.app, game.id)
    assert _deliver(game.app, oid) == "retry"
    assert "SMTP_URL must start with smtp://" in _row(game.app, oid).last_error


def test_a_claimed_row_is_not_claimed_twice(db_game):
    game = db_game
    oid = _queue(game.app, game.id)
    with session_scope(game.app) as s:
        now = clock.now()
        assert claim(s, oid, now) == 1
        assert claim(s, oid, now) is None
        # Once the lease has run out (a worker died mid-send), another worker may take it.
        assert claim(s, oid, now + timedelta(minutes=6)) == 2


def test_mail_preference_is_checked_when_sending(game, smtp):
    oid = _queue(game.app, game.id, kind="status")
    answer = _queue(game.app, game.id, kind="status", answer=True)
    with session_scope(game.app) as s, s.begin():
        s.execute(update(Seat).where(Seat.game_id == game.id, Seat.name == "alice").values(mail_pref="results"))
    assert _deliver(game.app, oid) == "skipped"
    row = _row(game.app, oid)
    assert row.status == "skipped" and "'results'" in row.last_error
    assert _deliver(game.app, answer) == "sent"
    assert len(smtp.received) == 1


def test_backoff_grows_and_is_capped():
    assert [backoff(n).total_seconds() for n in (1, 2, 3, 4)] == [60, 120, 240, 480]
    assert backoff(30) == timedelta(hours=2)


def test_cr_lf_in_names_and_titles_never_reach_headers(sqlite_app, smtp):
    game = start_game(sqlite_app, title="Dragons\r\nBcc: all@evil.example\r\n\r\nbody")
    sqlite_app.config["SMTP_URL"] = f"smtp://127.0.0.1:{smtp.port}"
    oid = _queue(sqlite_app, game.id, message="Round\r\nX-Injected: 1")
    assert _deliver(sqlite_app, oid) == "sent"
    got = smtp.received[0]
    head = got.raw.split(b"\r\n\r\n", 1)[0].decode()
    assert "\r\nBcc:" not in head and "\r\nX-Injected:" not in head
    assert got.recipients == ["alice@example.org"]
    assert got.message["Subject"].startswith("[Dragons Bcc: all@evil.example body] Status")


def test_workers_racing_for_one_row_send_it_once(db_game, smtp):
    from tests.mail.at_once import at_once

    oid = _queue(db_game.app, db_game.id)
    results = at_once(4, lambda: _deliver(db_game.app, oid))
    assert sorted(results) == ["busy", "busy", "busy", "sent"]
    assert len(smtp.received) == 1


def test_one_message_delivers_each_row_of_a_transaction_in_turn(game, smtp, monkeypatch):
    """deliver_mails: a row that cannot be delivered now does not keep the others from going."""
    from service.outbound import deliver as outbox

    rows = [_queue(game.app, game.id, message=f"hello {i}") for i in range(3)]
    real = outbox._prepare

    def prepare(session, outbox_id: int, attempt: int, settings):
        if outbox_id == rows[1]:
            raise RuntimeError("a bug while delivering this one")
        return real(session, outbox_id, attempt, settings)

    monkeypatch.setattr(outbox, "_prepare", prepare)
    with game.app.app_context():
        done = outbox.deliver_each(rows)
    assert done == {rows[0]: "sent", rows[1]: "error", rows[2]: "sent"}
    assert [m.message["Message-ID"] for m in smtp.received] == [_row(game.app, rows[0]).message_id,
                                                                 _row(game.app, rows[2]).message_id]
    assert _row(game.app, rows[1]).status == "pending"  # the sweeper rings it again


def test_the_mail_of_one_transaction_rings_one_message_and_the_sweeper_one_per_row(sqlite_app, monkeypatch):
    from service import tasks

    sent: list[tuple[str, object]] = []
    names = {tasks.DELIVER_MAILS: "many", tasks.DELIVER_MAIL: "one"}
    monkeypatch.setitem(sqlite_app.config, "EMBEDDED", False)  # sent to the broker, not run here
    monkeypatch.setattr(sqlite_app.extensions["celery"], "send_task",
                        lambda name, args, queue: sent.append((names[name], args)))
    tasks.send(sqlite_app, tasks.Outgoing(mail=[4, 5]))
    tasks.send(sqlite_app, tasks.Outgoing(mail=[6]))
    tasks.send_mail(sqlite_app, [7, 8])
    assert sent == [("many", ([4, 5],)), ("one", (6,)), ("one", (7,)), ("one", (8,))]


def test_mail_to_one_domain_keeps_the_configured_pace_and_the_gm_sees_the_backlog(game, smtp):
    """MAIL_DOMAIN_RATE=1: one mail a minute to example.org; the second waits, shown on the
    GM console and page, and goes once the minute has passed."""
    game.app.config["MAIL_DOMAIN_RATE"] = "1"
    with session_scope(game.app) as s, s.begin():  # the start's mails went out long ago
        s.execute(update(Outbox).values(sent_at=clock.now() - timedelta(minutes=5)))
    first, second = _queue(game.app, game.id, kind="status"), _queue(game.app, game.id, "bob", kind="help")
    assert _deliver(game.app, first) == "sent"
    assert _deliver(game.app, second) == "throttled"
    row = _row(game.app, second)
    assert (row.status, row.attempts) == ("pending", 0) and row.next_attempt_at > clock.now()
    assert row.last_error == "waiting: 1 mails a minute to example.org"
    assert len(smtp.received) == 1
    client = game.app.test_client()
    console = client.get(f"/api/games/{game.id}/gm", headers={"Authorization": f"Bearer {game.gm_token}"})
    assert console.json["mail_backlog"] == {"example.org": 1}
    assert "1 to example.org" in client.get(f"/games/{game.id}/gm/{game.gm_token}").get_data(as_text=True)
    with session_scope(game.app) as s, s.begin():  # a minute later
        s.execute(update(Outbox).where(Outbox.id == first).values(sent_at=clock.now() - timedelta(minutes=2)))
    _make_due(game.app, second)
    assert _deliver(game.app, second) == "sent"
    assert len(smtp.received) == 2
    assert client.get(f"/api/games/{game.id}/gm",
                      headers={"Authorization": f"Bearer {game.gm_token}"}).json["mail_backlog"] == {}
