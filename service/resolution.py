"""Resolution: a ready round resolved exactly once.

`claim_ready` locks and claims the round in one conditional UPDATE (PostgreSQL: the
second of two racing resolvers waits for the first's row lock, then matches nothing;
SQLite: every transaction is BEGIN IMMEDIATE), so of two tasks resolving the same round
one wins and the other does nothing; a submission racing it (service.submit) is either
included or refused with 409.

`resolve_ready` is what a worker's task runs: its own round, then, on PostgreSQL, other
ready rounds no one holds (`claim_next`, `FOR UPDATE SKIP LOCKED`), each in its own
transaction, up to a bound, so one task message carries several rounds. A round taken
that way is resolved once all the same: its own task later finds it resolved.
"""

from __future__ import annotations

import logging
import time

from sqlalchemy import ColumnElement, select, update
from sqlalchemy.orm import Session, joinedload

from engine import round_inputs, run_round
from engine.contract import InvariantError
from service import clock
from service.audit import audit
from service.dice_keys import step_dice
from service.fairdice import input_text
from service.faults import pause_point
from service.integrity import DamagedData, damaged, latest_state, mark_damaged
from service.models import Game, Round
from service.progress import record_step
from service.submissions import latest_submissions
from service.timekeeping.state import read_schedules

log = logging.getLogger(__name__)


def resolve_round(session: Session, game_id: str, number: int) -> bool:
    """Resolve a ready round exactly once; True when this call did it.

    Damaged stored data (service.integrity) leaves the round ready, marks the game for
    its GM and returns False: retrying cannot help until the rows are repaired.
    """
    try:
        return _resolve_round(session, game_id, number)
    except DamagedData as exc:
        mark_damaged(game_id, exc.problem)  # the failed transaction is over: a new one
        return False


# One task's extra rounds: a few dozen spread the task's own cost (a Celery message with
# late acks is several Redis round trips) without keeping its round waiting long.
BATCH_ROUNDS = 32
BATCH_SECONDS = 0.2
# Rounds this process found damaged while taking extra rounds: not taken again as extras
# (they stay ready for the GM; their own task and the sweeper still ring for them).
_damaged_extras: set[int] = set()
_DAMAGED_KEPT = 1024


def resolve_ready(session: Session, game_id: str, number: int, *, rounds: int = BATCH_ROUNDS,
                  seconds: float = BATCH_SECONDS) -> tuple[bool, int]:
    """Resolve round `number` of a game if it is ready, then up to `rounds` - 1 other
    ready rounds that no one else holds, for at most about `seconds` (PostgreSQL only:
    SQLite has no SKIP LOCKED, and there the tasks run in process, one round each).

    (this call resolved its own round, how many rounds it resolved in all).
    """
    own = resolve_round(session, game_id, number)
    done = int(own)
    if session.get_bind().dialect.name != "postgresql":
        return own, done
    end = time.monotonic() + seconds
    tried: set[int] = set()
    while done < rounds and time.monotonic() < end:
        rnd_id = _resolve_next(session, tried)
        if rnd_id is None:
            break
        tried.add(abs(rnd_id))
        if rnd_id > 0:
            done += 1
    return own, done


def _resolve_next(session: Session, tried: set[int]) -> int | None:
    """Resolve one ready round no one holds: its id (negated when its data turned out
    damaged: the round stays ready), None when there is none."""
    rnd_id = 0
    try:
        with session.begin():
            claimed = claim_next(session, tried | _damaged_extras)
            if claimed is None:
                return None
            rnd_id, game_id, number = claimed.id, claimed.game_id, claimed.number
            _resolve_claimed(session, claimed)
    except DamagedData as exc:
        if len(_damaged_extras) < _DAMAGED_KEPT:
            _damaged_extras.add(rnd_id)
        mark_damaged(exc.game_id, exc.problem)  # the failed transaction is over: a new one
        return -rnd_id
    log.info("resolved %s round %d", game_id, number)
    return rnd_id


def claim_next(session: Session, skip: set[int]) -> Round | None:
    """Claim the oldest ready round that no other transaction holds (PostgreSQL), or
    None. A round locked by a resolver or a submission is passed over, not waited for."""
    free = (select(Round.id).where(Round.status == "ready", Round.id.not_in(skip))
            .order_by(Round.id).limit(1).with_for_update(skip_locked=True).scalar_subquery())
    return _claim(session, Round.id == free)


def claim_ready(session: Session, game_id: str, number: int) -> Round | None:
    """Lock and claim a ready round for resolution in one statement; None if it is not
    ready (not closed yet, or another resolver claimed it first: on PostgreSQL the
    second UPDATE waits for the first's row lock, then finds the status changed)."""
    return _claim(session, Round.game_id == game_id, Round.number == number)


def _claim(session: Session, *which: ColumnElement[bool]) -> Round | None:
    """The round `which` picks changed from ready to resolved, in one statement."""
    return session.scalars(
        update(Round).where(*which, Round.status == "ready")
        .values(status="resolved", resolved_at=clock.now()).returning(Round)
        .execution_options(synchronize_session=False)).first()


def _resolve_round(session: Session, game_id: str, number: int) -> bool:
    with session.begin():
        rnd = claim_ready(session, game_id, number)
        if rnd is None:
            return False
        _resolve_claimed(session, rnd)
    log.info("resolved %s round %d", game_id, number)
    return True


def _resolve_claimed(session: Session, rnd: Round) -> None:
    """Resolve the round this transaction claimed: the step stored, the next round opened,
    the audit row and the results mails queued."""
    game_id, number = rnd.game_id, rnd.number
    game = session.get(Game, game_id, options=[joinedload(Game.seats)])
    if game is None:
        raise InvariantError(f"round {number} of game {game_id} has no game")
    previous, _state = latest_state(session, game)
    if previous.t != number:  # round r follows step r
        raise damaged(game_id, f"round {number} is ready but the latest step is {previous.t}")
    seats = list(game.seats)
    by_id = {s.id: s.name for s in seats}
    texts = {by_id[seat_id]: input_text(game, sub.accepted)
             for seat_id, sub in latest_submissions(session, rnd.id).items()}
    read_schedules(session, game)  # before the new rows: opening the next round needs no query
    inputs = round_inputs([s.name for s in seats], texts)
    t = number + 1
    dice, s_t = step_dice(game, t, inputs)
    try:
        result = run_round(game.ruleset, previous.state, inputs, t, dice)
    except Exception as exc:  # the rules failed on a state that loads: the GM must look
        log.exception("game %s: resolving round %d failed", game_id, number)
        raise damaged(game_id, f"resolving round {number} failed ({type(exc).__name__}: "
                               f"{str(exc)[:200]})") from exc
    record_step(session, game, result, s_t)
    audit(session, game_id, "service", "resolved", {"round": number, "step": t})
    pause_point("resolve")  # tests only: kill a worker mid-resolution (service.faults)
