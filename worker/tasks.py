"""Thin tasks: ids in, one service function out. Each is safe to run twice."""

from __future__ import annotations

from celery import shared_task

from service import push, ratings, resolution, signin, sweeper
from service.db import connection_scope, engine_of, session_scope
from service.outbound import deliver as outbox
from service.webhooks import deliver as webhooks


@shared_task(name="worker.tasks.resolve_round", ignore_result=True)
def resolve_round(game_id: str, number: int, skipped: int = 0) -> bool:
    """Resolve round `number` of a game if it is ready and not yet resolved, then other
    ready rounds no one holds, up to a bound; True when it resolved its own round.
    `skipped`: the game's links skipped by rollbacks when it was rung."""
    if resolution.resolved_here(engine_of(), game_id, number, skipped):
        return False  # this process took the round along with another: nothing to do
    with connection_scope() as session:  # one checkout for the round and those it takes along
        own, _count = resolution.resolve_ready(session, game_id, number)
        return own


@shared_task(name="worker.tasks.deliver_mail", ignore_result=True)
def deliver_mail(outbox_id: int) -> None:
    """Send (or store, embedded) one outbox row."""
    outbox.deliver(outbox_id)


@shared_task(name="worker.tasks.deliver_mails", ignore_result=True)
def deliver_mails(outbox_ids: list[int]) -> None:
    """The outbox rows one transaction queued (a round's results, say), in one message:
    each delivered as deliver_mail would, one after the other."""
    outbox.deliver_each(outbox_ids)


@shared_task(name="worker.tasks.deliver_webhook", ignore_result=True)
def deliver_webhook(hook_id: int) -> str:
    """Post the news waiting for one webhook, if its minute has come (service.webhooks.deliver)."""
    return webhooks.deliver(hook_id)


@shared_task(name="worker.tasks.deliver_push", ignore_result=True)
def deliver_push(endpoint_hash: str) -> str:
    """Push one browser its due rows, as one notification."""
    return push.deliver(endpoint_hash)


@shared_task(name="worker.tasks.issue_signin_link", ignore_result=True)
def issue_signin_link(email: str) -> bool:
    """Queue a sign-in mail if the address plays here (the form answered already)."""
    return signin.issue_now(email)


@shared_task(name="worker.tasks.sweep", ignore_result=True)
def sweep() -> dict[str, int]:
    """Send again the tasks of recorded work: ready rounds not resolved, pending mail not sent."""
    return sweeper.sweep_and_ring()


@shared_task(name="worker.tasks.rate_games", ignore_result=True)
def rate_games() -> int:
    """Judge the finished games waiting for the ratings and fold the rated ones in."""
    with session_scope() as session, session.begin():
        return ratings.update(session)
