"""Damaged stored data: a clear error, the game marked for its GM, the rest unaffected.

A game's steps must run 1..n without a gap and its latest state must load with its
ruleset. When they don't (a disk or an operator damaged a row), every operation that
needs that state refuses with DamagedData (HTTP 503, naming the step and what is
wrong; nothing is changed) and the game gets a `damaged` entry in its audit log, which
the GM console lists. Other games never read those rows, so they go on as usual.

The mark is written in a transaction of its own, after the failed one was rolled
back (in a request: by an after-request callback; in the worker: by the caller), and
only when it differs from the game's latest mark, so a round that keeps failing (the
sweeper rings a ready round again every interval) does not flood the log. Once the
rows are repaired, the next sweep resolves the round with nothing else to do.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any, NamedTuple, Protocol, TypeVar

from flask import Response, after_this_request, has_request_context
from sqlalchemy import bindparam, func, select
from sqlalchemy.orm import Session

from engine import find_ruleset
from service.audit import audit
from service.db import session_scope
from service.errors import ServiceError
from service.models import AuditLog, Game, Step

log = logging.getLogger(__name__)
ACTION = "damaged"


class DamagedData(ServiceError):
    """503: the game's stored data is damaged; its GM is told; nothing was changed."""

    status = 503

    def __init__(self, game_id: str, problem: str) -> None:
        super().__init__(f"the stored data of game {game_id} is damaged: {problem}. Nothing was changed; "
                         f"the game is marked for its GM. Other games are not affected.")
        self.game_id = game_id
        self.problem = problem


def damaged(game_id: str, problem: str) -> DamagedData:
    """The error to raise; in a request, the game is marked once the request's transaction is over."""
    if has_request_context():
        @after_this_request
        def mark(response: Response) -> Response:
            mark_damaged(game_id, problem)
            return response
    return DamagedData(game_id, problem)


def mark_damaged(game_id: str, problem: str) -> bool:
    """Write the `damaged` audit entry in its own transaction; False when it was already the latest."""
    log.error("game %s: damaged data: %s", game_id, problem)
    with session_scope() as session, session.begin():
        latest = session.scalars(
            select(AuditLog).where(AuditLog.game_id == game_id, AuditLog.action == ACTION)
            .order_by(AuditLog.id.desc()).limit(1)).first()
        if latest is not None and latest.detail.get("problem") == problem:
            return False
        audit(session, game_id, "service", ACTION, {"problem": problem})
    return True


def damage_reports(session: Session, game_id: str) -> list[dict[str, Any]]:
    """The game's damage marks, oldest first (the caller owns the transaction)."""
    rows = session.scalars(select(AuditLog).where(AuditLog.game_id == game_id, AuditLog.action == ACTION)
                           .order_by(AuditLog.id))
    return [{"at": r.at.isoformat(), "problem": r.detail.get("problem", "")} for r in rows]


class StepLike(Protocol):
    """What the checks read of a step: its number and state."""

    @property
    def t(self) -> int: ...
    @property
    def state(self) -> Any: ...


S = TypeVar("S", bound=StepLike)


class GameLike(Protocol):
    """What the checks read of a game: a `Game`, or the resolution's columns of it."""

    @property
    def id(self) -> str: ...
    @property
    def ruleset(self) -> str: ...
    @property
    def revision(self) -> int: ...
    @property
    def status(self) -> str: ...
    @property
    def current_round(self) -> int: ...


class LatestStep(NamedTuple):
    """The columns of a step that resolving the round after it needs."""

    t: int
    state: Any
    key: str


def check_steps(session: Session, game_id: str, latest: S | None, count: int | None = None) -> S:
    """The latest step, after checking that the steps run 1..latest.t with none missing
    (count: how many steps the game has, when the caller read it with the latest)."""
    if latest is None:
        raise damaged(game_id, "it has no stored step (step 1 is missing)")
    if count is None:
        count = int(session.scalar(select(func.count()).select_from(Step)
                                   .where(Step.game_id == game_id)) or 0)
    if count != latest.t:
        have = set(session.scalars(select(Step.t).where(Step.game_id == game_id)))
        missing = [t for t in range(1, latest.t + 1) if t not in have]
        raise damaged(game_id, f"step {', '.join(map(str, missing))} is missing (latest step {latest.t})")
    return latest


# Built once: constructing the statement costs more CPU than running it.
_LATEST_WITH_COUNT = (select(Step, func.count().over().label("steps"))
                      .where(Step.game_id == bindparam("game_id")).order_by(Step.t.desc()).limit(1))


def latest_state(session: Session, game: Game) -> tuple[Step, Any]:
    """current_state of the game's latest step, read with the game's step count in one
    statement (a window count is computed before the LIMIT)."""
    row = session.execute(_LATEST_WITH_COUNT, {"game_id": game.id}).first()
    latest, count = (row.Step, int(row.steps)) if row is not None else (None, 0)
    return current_state(session, game, latest, count)


def loaded_state(game: GameLike, step: StepLike) -> Any:
    """The ruleset's state of a stored step; DamagedData when it does not load."""
    return load_state(game.id, game.ruleset, game.revision, step.t, step.state)


def load_state(game_id: str, ruleset_id: str, revision: int, t: int, data: Mapping[str, Any]) -> Any:
    """loaded_state from the columns alone (a caller that read only those)."""
    ruleset = find_ruleset(ruleset_id, revision)
    try:
        return ruleset.load(data)
    except Exception as exc:
        raise damaged(game_id, f"the state of step {t} does not load "
                               f"({type(exc).__name__}: {str(exc)[:200]})") from exc


def current_state(session: Session, game: GameLike, latest: S | None,
                  count: int | None = None) -> tuple[S, Any]:
    """The latest step (checked: no step missing) and its loaded state."""
    step = check_steps(session, game.id, latest, count)
    if game.status == "active" and step.t != game.current_round:  # round r follows step r
        raise damaged(game.id, f"step {game.current_round} is missing (round {game.current_round} is open, "
                               f"the latest step is {step.t})")
    return step, loaded_state(game, step)
