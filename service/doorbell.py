"""Ringing Celery after COMMIT: the work itself is already recorded in the database.

A doorbell that is lost (broker down, worker killed) is harmless: the sweeper finds
the recorded work (a ready round, a pending outbox row) and rings again. In embedded
mode the same tasks run in-process (Celery's task_always_eager).
"""

from __future__ import annotations

import importlib.util
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache, partial
from typing import TYPE_CHECKING

from flask import current_app

if TYPE_CHECKING:
    from service.models import Outbox

log = logging.getLogger(__name__)


@dataclass
class Doorbells:
    """Work to announce once the transaction that recorded it has committed."""

    rounds: list[tuple[str, int]] = field(default_factory=list)
    mail: list[int] = field(default_factory=list)
    # Outbox rows added but not flushed: their ids exist once the transaction committed
    # (sessions keep attributes after commit), so a transaction inserting several flushes
    # them together instead of once per row.
    mail_rows: list[Outbox] = field(default_factory=list)

    def mail_ids(self) -> list[int]:
        return [*self.mail, *(row.id for row in self.mail_rows)]

    def ring(self) -> None:
        ring_rounds(self.rounds)
        ring_mail(self.mail_ids(), together=True)


def ring_rounds(rounds: Iterable[tuple[str, int]]) -> None:
    from worker.tasks import resolve_round

    queue = current_app.config["QUEUES"]["resolve"]
    for game_id, number in rounds:
        _send(partial(resolve_round.apply_async, (game_id, number), queue=queue),
              f"resolve {game_id} round {number}")


@cache
def mail_available() -> bool:
    """Whether the mail part (service.mail.outbox) is installed; rows wait for it otherwise."""
    try:
        return importlib.util.find_spec("service.mail.outbox") is not None
    except ModuleNotFoundError:
        return False


def ring_mail(outbox_ids: Iterable[int], together: bool = False) -> None:
    """One message per row; with `together`, one message for all of them (the mail one
    transaction queued: fewer messages to publish and take, and one task delivers each
    in turn). The sweeper rings rows apart, so a backlog spreads over the mail workers."""
    if not mail_available():
        return
    from worker.tasks import deliver_mail, deliver_mails

    queue = current_app.config["QUEUES"]["mail"]
    ids = list(outbox_ids)
    if together and len(ids) > 1:
        _send(partial(deliver_mails.apply_async, (ids,), queue=queue),
              f"deliver mail {', '.join(map(str, ids))}")
        return
    for outbox_id in ids:
        _send(partial(deliver_mail.apply_async, (outbox_id,), queue=queue),
              f"deliver mail {outbox_id}")


def _send(call: Callable[[], object], what: str) -> None:
    try:
        call()
    except Exception:  # the sweeper will ring again; the work is safe in the database
        log.exception("could not ring the doorbell for %s; the sweeper will", what)
