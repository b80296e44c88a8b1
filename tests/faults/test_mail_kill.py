"""A mail send killed right after the SMTP server's 250, before the row is marked sent.

The SMTP server (aiosmtpd) has the message; the outbox row is still `sending` under
its lease. What must hold afterwards: once the lease has run out the sweeper rings
again and the mail is sent a second time (at most one duplicate), with the same
Message-ID so mail clients can fold the two; the row ends `sent`. SMTP refusing,
answering 4xx and dropping after DATA are covered by tests/mail/test_outbox.py and
tests/mail/test_transport.py.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import timedelta

import pytest
from sqlalchemy import select, update

from service import clock
from service.db import session_scope
from service.models import Outbox
from service.outbound.deliver import LEASE
from service.sweeper import sweep_and_ring
from tests.faults.conftest import Faults, FaultWorld, wait_for
from tests.mail.smtp_server import SmtpServer
from tests.service.play import start

pytestmark = pytest.mark.slow


def _rows(world: FaultWorld, game_id: str) -> list[Outbox]:
    with session_scope(world.app) as s, s.begin():
        rows = list(s.scalars(select(Outbox).where(Outbox.game_id == game_id).order_by(Outbox.id)))
        s.expunge_all()
        return rows


def test_send_killed_after_the_servers_250(fault_world: FaultWorld, faults: Faults) -> None:
    with SmtpServer() as smtp:
        fault_world.env["SMTP_URL"] = f"smtp://127.0.0.1:{smtp.port}"
        worker = fault_world.start_worker()
        table = start(fault_world.app.test_client())
        wait_for(lambda: all(r.status == "sent" for r in _rows(fault_world, table.id)), "the start mail", 60)
        faults.arm("mail-sent")
        assert table.put("alice", "pass").status_code == 200  # a confirmation mail for alice
        faults.wait_paused("mail-sent")
        faults.disarm("mail-sent")
        [row] = [r for r in _rows(fault_world, table.id) if r.kind == "confirmation"]
        copies = [m for m in smtp.received if m.message["Message-ID"] == row.message_id]
        assert len(copies) == 1 and row.status == "sending", "the server said 250; the row is not marked yet"
        fault_world.kill(worker)
        fault_world.start_worker()
        with session_scope(fault_world.app) as s, s.begin():  # the lease runs out (service.outbound.deliver.LEASE)
            s.execute(update(Outbox).where(Outbox.id == row.id).values(
                lease_until=clock.now() - timedelta(seconds=1), created_at=clock.now() - timedelta(minutes=1)))
        with fault_world.app.app_context():
            assert sweep_and_ring()["mail"] >= 1
        wait_for(lambda: [r.status for r in _rows(fault_world, table.id) if r.id == row.id] == ["sent"],
                 "the mail to be sent again", 60)
        copies = [m for m in smtp.received if m.message["Message-ID"] == row.message_id]
        assert len(copies) == 2, "one duplicate, no more"
        assert {str(m.message["Subject"]) for m in copies} == {str(copies[0].message["Subject"])}
        [done] = [r for r in _rows(fault_world, table.id) if r.id == row.id]
        assert done.attempts == 2 and done.sent_at is not None
        with fault_world.app.app_context():
            sweep_and_ring()
        assert len([m for m in smtp.received if m.message["Message-ID"] == row.message_id]) == 2


def _sweep_every(world: FaultWorld, seconds: float, until: Callable[[], bool], timeout: float) -> float:
    """What beat does, every `seconds`: sweep (rows past the fresh-row grace) until `until()`
    holds; returns how long that took."""
    began = time.monotonic()
    while not until():
        if time.monotonic() - began > timeout:
            raise AssertionError(f"not done after {timeout:.0f} s")
        with session_scope(world.app) as s, s.begin():
            s.execute(update(Outbox).values(created_at=clock.now() - timedelta(minutes=1)))
        with world.app.app_context():
            sweep_and_ring()
        time.sleep(seconds)
    return time.monotonic() - began


def _copies(smtp: SmtpServer, row: Outbox) -> int:
    return len([m for m in smtp.received if m.message["Message-ID"] == row.message_id])


def test_mail_of_a_killed_worker_is_sent_again_within_a_lease(fault_world: FaultWorld, faults: Faults) -> None:
    """The lease is short and renewed while the mail is being sent, so the mail a dead worker
    held is sent again within a minute of its death (a lease and a sweep), not minutes later."""
    with SmtpServer() as smtp:
        fault_world.env["SMTP_URL"] = f"smtp://127.0.0.1:{smtp.port}"
        worker = fault_world.start_worker()
        table = start(fault_world.app.test_client())
        wait_for(lambda: all(r.status == "sent" for r in _rows(fault_world, table.id)), "the start mail", 60)
        faults.arm("mail-sent")
        assert table.put("alice", "pass").status_code == 200
        faults.wait_paused("mail-sent")
        faults.disarm("mail-sent")
        [row] = [r for r in _rows(fault_world, table.id) if r.kind == "confirmation"]
        fault_world.kill(worker)
        fault_world.start_worker()
        gap = _sweep_every(fault_world, 2.0, lambda: _copies(smtp, row) == 2, 60)
        print(f"\nFIGURES killed worker's mail sent again {gap:.1f} s after the kill (lease {LEASE})")
        wait_for(lambda: [r.status for r in _rows(fault_world, table.id) if r.id == row.id] == ["sent"],
                 "the row to be marked sent", 30)
        assert _copies(smtp, row) == 2, "one duplicate, no more"


def test_a_slow_send_keeps_its_lease(fault_world: FaultWorld, faults: Faults) -> None:
    """A worker still sending after the lease's first term renews it: the sweeper does not
    hand its mail to another worker, and the mail goes out once."""
    with SmtpServer() as smtp:
        fault_world.env["SMTP_URL"] = f"smtp://127.0.0.1:{smtp.port}"
        fault_world.start_worker()
        fault_world.start_worker()
        table = start(fault_world.app.test_client())
        wait_for(lambda: all(r.status == "sent" for r in _rows(fault_world, table.id)), "the start mail", 60)
        faults.arm("mail-sent")
        assert table.put("alice", "pass").status_code == 200
        faults.wait_paused("mail-sent")
        faults.disarm("mail-sent")
        [row] = [r for r in _rows(fault_world, table.id) if r.kind == "confirmation"]
        held = 45.0  # longer than the lease: it has been renewed
        assert LEASE.total_seconds() < held
        with pytest.raises(AssertionError, match="not done"):
            _sweep_every(fault_world, 2.0, lambda: _copies(smtp, row) > 1, held)
        [now] = [r for r in _rows(fault_world, table.id) if r.id == row.id]
        assert (now.status, now.attempts) == ("sending", 1), "still held by the first worker"
        faults.release("mail-sent")
        wait_for(lambda: [r.status for r in _rows(fault_world, table.id) if r.id == row.id] == ["sent"],
                 "the row to be marked sent", 30)
        assert _copies(smtp, row) == 1
