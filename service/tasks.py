"""The Celery app, and the tasks the service sends to it by name after COMMIT.

The service never imports the tasks (they live above it, in `worker.tasks`): Celery
imports them by name (`include`) and the service sends them by name. Work is recorded
on the session (`resolve_after_commit`, `deliver_after_commit`) inside the transaction
that makes it, and sent once that transaction has committed and given its connection
back to the pool. A send that is lost (broker down, process killed between COMMIT and
send) is harmless: the work is in the database and the sweeper (service.sweeper) sends
again. In the embedded default (no REDIS_URL) the same
task functions run in-process: right after the commit, or, when the app is served with
TASKS_AFTER_RESPONSE (`dicepost serve`), after the request's answer has been sent, so
the last player's request does not wait for the round's resolution and its mail.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import weakref
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from celery import Celery, Task
from celery.signals import setup_logging
from flask import Flask, Response, g, has_request_context, request
from sqlalchemy import event
from sqlalchemy.orm import Session, SessionTransaction

from service.logs import setup_worker_logging

if TYPE_CHECKING:
    from service.models import Outbox

log = logging.getLogger(__name__)

TASK_MODULES = ["worker.tasks"]
RESOLVE_ROUND = "worker.tasks.resolve_round"
DELIVER_MAIL = "worker.tasks.deliver_mail"
DELIVER_MAILS = "worker.tasks.deliver_mails"
ISSUE_SIGNIN_LINK = "worker.tasks.issue_signin_link"
RATE_GAMES = "worker.tasks.rate_games"
_OUTGOING = "dicepost.outgoing"
# Committed work waits here until the transaction has given its connection back: an
# embedded task run in this thread then opens a connection of its own, and a thread
# holding two would let a burst of requests take the whole pool and wait on each other.
_COMMITTED = "dicepost.committed"
_MAIL_BELL = "dicepost.mail_bell"
_AFTER_RESPONSE = "dicepost_after_response"
# Set on the request's environ once its answer is made: a commit after that (work a view
# hands to `call_on_close`, in a copied request context with a g of its own) is already
# after the answer, so its tasks are sent at once instead of waiting on a g nobody reads.
_ANSWERED = "dicepost.answered"


@dataclass
class Outgoing:
    """Tasks one transaction recorded, to send once it has committed."""

    rounds: list[tuple[str, int, int]] = field(default_factory=list)  # (game, round, links skipped)
    mail: list[int] = field(default_factory=list)
    # Outbox rows added but not flushed: their ids exist once the transaction committed
    # (sessions keep attributes after commit), so a transaction inserting several flushes
    # them together instead of once per row.
    mail_rows: list[Outbox] = field(default_factory=list)
    # Other tasks by name: (task name, args, queue key of QUEUES), each sent once.
    tasks: list[tuple[str, tuple[Any, ...], str]] = field(default_factory=list)

    def mail_ids(self) -> list[int]:
        return [*self.mail, *(row.id for row in self.mail_rows)]


def outgoing(session: Session) -> Outgoing:
    """The tasks the session's current transaction will send after COMMIT."""
    work: Outgoing = session.info.setdefault(_OUTGOING, Outgoing())
    return work


def resolve_after_commit(session: Session, game_id: str, number: int, skipped: int = 0) -> None:
    """Ring for round `number` once the transaction has committed; `skipped`: the game's links
    skipped by rollbacks (a round rolled back and played again is rung as another)."""
    outgoing(session).rounds.append((game_id, number, skipped))


def rate_after_commit(session: Session) -> None:
    """Ring the ratings' worker once the transaction that ended a game has committed."""
    task_after_commit(session, RATE_GAMES, (), "resolve")


def deliver_after_commit(session: Session, row: Outbox) -> None:
    """Deliver an outbox row once the transaction inserting it has committed."""
    if row.id is None:
        outgoing(session).mail_rows.append(row)
    else:
        deliver_id_after_commit(session, row.id)


def deliver_id_after_commit(session: Session, outbox_id: int) -> None:
    """Deliver an outbox row inserted (by its id) in the current transaction once it has committed."""
    outgoing(session).mail.append(outbox_id)


def task_after_commit(session: Session, name: str, args: tuple[Any, ...], queue: str = "mail") -> None:
    """Send the task `name` (a worker.tasks name) with `args` once the transaction has
    committed, once however often it is asked for (a notification channel's delivery)."""
    work = outgoing(session)
    if (name, args, queue) not in work.tasks:
        work.tasks.append((name, args, queue))


class MailBell:
    """Full mode, in the web process: the mail its requests commit, rung together.

    Each submission queues its confirmation; one broker message per request made the
    publish about a quarter of a submission's CPU. Here the outbox ids committed within
    `window` seconds go out as one deliver_mails message from a thread of the process (the
    mail worker then claims and composes them together too). The rows are committed before
    their ids arrive, so ids lost with the process (killed inside the window) or with a
    failed publish are only late mail: the sweeper rings them after its grace, as it does
    any lost doorbell. Sent by no one request, the message carries no request's id: its
    task's lines carry the task's own."""

    def __init__(self, app: Flask, window: float) -> None:
        self.app = app
        self.window = window
        self._reset()
        me = weakref.ref(self)

        def forked() -> None:  # a forked child has neither the parent's thread nor its ids to ring
            bell = me()
            if bell is not None:
                bell._reset()

        os.register_at_fork(after_in_child=forked)

    def _reset(self) -> None:
        self._lock = threading.Lock()
        self._ids: list[int] = []
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    def ring(self, outbox_ids: list[int]) -> None:
        """Send these (committed) rows' message within the window, with whatever else comes."""
        with self._lock:
            self._ids.extend(outbox_ids)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="dicepost-mail-bell", daemon=True)
                self._thread.start()
        self._wake.set()

    def take(self) -> list[int]:
        """The ids waiting, taken out (the caller sends them)."""
        with self._lock:
            ids, self._ids = self._ids, []
            self._wake.clear()
        return ids

    def flush(self) -> None:
        """Ring what waits now (in this thread)."""
        ids = self.take()
        if ids:
            send_mail(self.app, ids, together=True)

    def _run(self) -> None:
        while True:
            self._wake.wait()
            time.sleep(self.window)
            self.flush()


def mail_bell(app: Flask) -> MailBell | None:
    """The app's MailBell (None when DICEPOST_MAIL_BELL_SECONDS is 0)."""
    bell: MailBell | None = app.extensions.get(_MAIL_BELL)
    return bell


def celery_init_app(app: Flask) -> Celery[Any]:
    """Flask's Celery pattern: tasks run inside the app's context."""

    class FlaskTask(Task[Any, Any]):
        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            with app.app_context():
                return self.run(*args, **kwargs)

    # The worker and beat log through the service's handler (level and format from the
    # environment, task ids on every line) instead of Celery's own setup.
    setup_logging.connect(setup_worker_logging, weak=False, dispatch_uid="dicepost.logs")
    celery_app = Celery(app.name, task_cls=FlaskTask, include=TASK_MODULES)
    celery_app.config_from_object(app.config["CELERY"])
    celery_app.set_default()
    app.extensions["celery"] = celery_app
    window = float(app.config.get("MAIL_BELL_SECONDS", 0))
    if window > 0:
        app.extensions[_MAIL_BELL] = MailBell(app, window)
    sessions = app.extensions["dicepost.sessions"]
    event.listen(sessions, "after_commit", _after_commit)
    event.listen(sessions, "after_transaction_end",
                 lambda session, transaction: _after_transaction_end(app, session, transaction))
    app.after_request(lambda response: _after_response(app, response))
    return celery_app


def _after_commit(session: Session) -> None:
    if session.in_nested_transaction():
        return  # a savepoint released (the event fires for those too): the outer one is still open
    work = session.info.pop(_OUTGOING, None)
    if work is not None:
        session.info[_COMMITTED] = work  # sent when the transaction ends, its connection released


def _after_transaction_end(app: Flask, session: Session, transaction: SessionTransaction) -> None:
    # A savepoint ending keeps the outer transaction's work. The outermost one ending after
    # COMMIT (the session's connections are back in the pool by now) sends what it recorded;
    # ending without COMMIT (a rollback, or closed unfinished), nothing it recorded exists,
    # so nothing is announced.
    if transaction.parent is not None:
        return
    session.info.pop(_OUTGOING, None)
    work: Outgoing | None = session.info.pop(_COMMITTED, None)
    if work is None:
        return
    if (app.config["EMBEDDED"] and app.config.get("TASKS_AFTER_RESPONSE") and has_request_context()
            and not request.environ.get(_ANSWERED)):
        g.setdefault(_AFTER_RESPONSE, []).append(work)  # committed: runs once the answer is sent
        return
    send(app, work)


def _after_response(app: Flask, response: Response) -> Response:
    """The request's committed work runs when the server closes the answer (after sending
    it); if it never runs (the process dies), the sweeper finds the work in the database."""
    request.environ[_ANSWERED] = True
    pending: list[Outgoing] | None = g.pop(_AFTER_RESPONSE, None)
    if pending:
        def run_pending() -> None:
            for work in pending:
                send(app, work)

        response.call_on_close(run_pending)
    return response


def send(app: Flask, work: Outgoing) -> None:
    """Send one committed transaction's tasks: its mail in one message, before the rounds
    it closed, so the last sender's confirmation goes out before the round's results.
    A request's mail in full mode goes to the process's MailBell (rung within its window)
    unless the request closed a round: then what the bell holds goes with it, at once."""
    ids = work.mail_ids()
    bell = mail_bell(app)
    if bell is not None and ids and not app.config["EMBEDDED"] and has_request_context():
        if not work.rounds:
            bell.ring(ids)
            send_tasks(app, work.tasks)
            return
        ids = bell.take() + ids
    send_mail(app, ids, together=True)
    send_rounds(app, work.rounds)
    send_tasks(app, work.tasks)


def send_tasks(app: Flask, tasks: Iterable[tuple[str, tuple[Any, ...], str]]) -> None:
    for name, args, queue in tasks:
        _send(app, name, args, app.config["QUEUES"][queue], f"{name} {args}")


def send_rounds(app: Flask, rounds: Iterable[tuple[str, int, int]]) -> None:
    queue = app.config["QUEUES"]["resolve"]
    for game_id, number, skipped in rounds:
        args = (game_id, number, skipped) if skipped else (game_id, number)
        _send(app, RESOLVE_ROUND, args, queue, f"resolve {game_id} round {number}")


def send_mail(app: Flask, outbox_ids: Iterable[int], together: bool = False) -> None:
    """One message per row; with `together`, one message for all of them (the mail one
    transaction queued: fewer messages to publish and take, and one task delivers each
    in turn). The sweeper sends rows apart, so a backlog spreads over the mail workers."""
    queue = app.config["QUEUES"]["mail"]
    ids = list(outbox_ids)
    if together and len(ids) > 1:
        _send(app, DELIVER_MAILS, (ids,), queue, f"deliver mail {', '.join(map(str, ids))}")
        return
    for outbox_id in ids:
        _send(app, DELIVER_MAIL, (outbox_id,), queue, f"deliver mail {outbox_id}")


def send_ratings(app: Flask) -> None:
    """The ratings' pass (service.ratings.update): it takes every pending game, so one ring
    does for any number."""
    _send(app, RATE_GAMES, (), app.config["QUEUES"]["resolve"], "the ratings")


def send_signin_link(app: Flask, email: str) -> None:
    """The sign-in form's one task, the same for every address (service.signin).
    Nothing records it: if it cannot be sent, the player asks for a link again."""
    _send(app, ISSUE_SIGNIN_LINK, (email,), app.config["QUEUES"]["mail"], "a sign-in link")


def _send(app: Flask, name: str, args: tuple[Any, ...], queue: str, what: str) -> None:
    celery_app: Celery = app.extensions["celery"]
    try:
        if app.config["EMBEDDED"]:
            # No broker: run the task here, as a worker would (errors logged, not raised).
            celery_app.loader.import_default_modules()
            celery_app.tasks[name].apply(args)
        else:
            celery_app.send_task(name, args, queue=queue)
    except Exception:  # the sweeper will send again; the work is safe in the database
        log.exception("could not send the task to %s; the sweeper will", what)
