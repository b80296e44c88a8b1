"""Resolution: a ready round resolved exactly once.

`claim_ready` locks and claims the round in one conditional UPDATE (PostgreSQL: the
second of two racing resolvers waits for the first's row lock, then matches nothing;
SQLite: every transaction is BEGIN IMMEDIATE), so of two tasks resolving the same round
one wins and the other does nothing; a submission racing it (service.submit) is either
included or refused with 409.
"""

from __future__ import annotations

import logging

from sqlalchemy import update
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


def claim_ready(session: Session, game_id: str, number: int) -> Round | None:
    """Lock and claim a ready round for resolution in one statement; None if it is not
    ready (not closed yet, or another resolver claimed it first: on PostgreSQL the
    second UPDATE waits for the first's row lock, then finds the status changed)."""
    return session.scalars(
        update(Round).where(Round.game_id == game_id, Round.number == number, Round.status == "ready")
        .values(status="resolved", resolved_at=clock.now()).returning(Round)
        .execution_options(synchronize_session=False)).first()


def _resolve_round(session: Session, game_id: str, number: int) -> bool:
    with session.begin():
        rnd = claim_ready(session, game_id, number)
        if rnd is None:
            return False
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
    log.info("resolved %s round %d", game_id, number)
    return True
