"""Thin tasks: ids in, service functions out. Each is safe to run twice."""

from __future__ import annotations

import logging

from celery import shared_task

log = logging.getLogger(__name__)


@shared_task(name="worker.tasks.resolve_round", ignore_result=True)
def resolve_round(game_id: str, number: int) -> bool:
    """Resolve round `number` of a game if it is ready and not yet resolved."""
    from service import rounds
    from service.db import session_scope

    with session_scope() as session:
        return rounds.resolve_round(session, game_id, number)


@shared_task(name="worker.tasks.deliver_mail", ignore_result=True)
def deliver_mail(outbox_id: int) -> None:
    """Send (or store, embedded) one outbox row: the mail part's own function."""
    from service.mail.outbox import deliver

    deliver(outbox_id)


@shared_task(name="worker.tasks.deliver_mails", ignore_result=True)
def deliver_mails(outbox_ids: list[int]) -> None:
    """The outbox rows one transaction queued (a round's results, say), in one message:
    each delivered as deliver_mail would, one after the other."""
    from service.mail.outbox import deliver_each

    deliver_each(outbox_ids)


@shared_task(name="worker.tasks.sweep", ignore_result=True)
def sweep() -> dict[str, int]:
    """Re-ring lost doorbells: ready rounds not resolved, pending mail not sent."""
    from service import sweeper

    return sweeper.sweep_and_ring()
