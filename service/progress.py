"""Storing a played step and moving the game on: shared by setup (join) and resolution.

The step row holds the inputs, their digest D_t, the revealed chain link S_t, the new
state with its hash, the events and the rolls. Then either the game ends (outcome,
or the dice chain is used up) or the next round opens, ready at once when nobody is
expected to move.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from engine import Dice, StepResult, chain, step_key
from engine.dice import inputs_digest
from service import clock
from service.models import AuditLog, Game, Round, Seat, Step
from service.notify import queue_mail
from service.tasks import resolve_after_commit


def audit(session: Session, game_id: str | None, actor: str, action: str,
          detail: dict[str, Any] | None = None) -> None:
    session.add(AuditLog(game_id=game_id, actor=actor, action=action, detail=detail or {}))


# Every EVERY-th link of a game's chain, kept in this process's memory only (they are as
# secret as the tip: never stored, logged or served), so each round hashes at most EVERY
# links instead of walking the chain from the tip (4,096 links by default, ~1.6 ms).
# Keyed by the tip itself; a bounded LRU (about 2.2 KB a game).
EVERY = 64
_MARKS_KEPT = 1024
_marks: OrderedDict[tuple[bytes, int], list[bytes]] = OrderedDict()
_marks_lock = threading.Lock()


def _chain_marks(tip: bytes, length: int) -> list[bytes]:
    """[S_0, S_EVERY, S_2*EVERY, ...] of the chain whose tip is S_length."""
    key = (tip, length)
    with _marks_lock:
        if key in _marks:
            _marks.move_to_end(key)
            return _marks[key]
    marks = chain(tip, length)[::EVERY]
    with _marks_lock:
        _marks[key] = marks
        while len(_marks) > _MARKS_KEPT:
            _marks.popitem(last=False)
    return marks


def chain_link(game: Game, t: int) -> bytes:
    """S_t, derived from the secret tip (S_N) stored with the game."""
    if not 0 <= t <= game.chain_length:
        raise ValueError(f"step {t} is beyond the dice chain of {game.chain_length} links")
    tip, length = bytes.fromhex(game.chain_tip), game.chain_length
    above = -(-t // EVERY) * EVERY  # the first kept link at or above t
    start = _chain_marks(tip, length)[above // EVERY] if above <= length else tip
    return chain(start, min(above, length) - t)[0]


def step_dice(game: Game, t: int, inputs: Any) -> tuple[Dice, bytes]:
    assert game.salt is not None, "the salt is made when the last seat is filled"
    s_t = chain_link(game, t)
    return Dice(step_key(s_t, bytes.fromhex(game.salt), t, inputs), t), s_t


def latest_step(session: Session, game_id: str) -> Step | None:
    return session.scalars(
        select(Step).where(Step.game_id == game_id).order_by(Step.t.desc()).limit(1)
    ).first()


def record_step(session: Session, game: Game, result: StepResult,
                s_t: bytes) -> Step:
    step = Step(game_id=game.id, t=result.t, inputs=result.inputs,
                inputs_digest=inputs_digest(result.inputs).hex(), key=s_t.hex(),
                state=result.state, state_hash=result.state_hash, events=result.events,
                rolls=result.rolls)
    session.add(step)
    seats = list(game.seats)
    # Step 1 too: the start mail shows the first grid, the setup rolls and S_1 (round 0).
    for seat in seats:
        queue_mail(session, game, seat, "results", {"round": result.t - 1, "step": result.t})
    if result.outcome is not None:
        _finish(session, game, result.outcome, seats)
    elif result.t + 1 > game.chain_length:
        _finish(session, game, {"winners": [], "draw": True,
                                       "reason": "the game's dice chain is used up"}, seats)
    else:
        _open_round(session, game, result.t, result.expected)
    return step


def _finish(session: Session, game: Game, outcome: dict[str, Any],
            seats: list[Seat]) -> None:
    game.status = "finished"
    game.outcome = outcome
    audit(session, game.id, "service", "finished", outcome)
    for seat in seats:
        queue_mail(session, game, seat, "game_over", {"outcome": outcome})


def _open_round(session: Session, game: Game, number: int,
                expected: list[str]) -> None:
    """Round r follows step r (setup is step 1, round r is resolved by step r+1)."""
    ready = not expected
    rnd = Round(game_id=game.id, number=number, status="ready" if ready else "open",
                expected=list(expected), opened_at=clock.now())
    session.add(rnd)
    game.current_round = number
    if ready:
        resolve_after_commit(session, game.id, number)
    else:
        from service.timekeeping.opening import round_opened  # deadline, bot seats, early close

        round_opened(session, game, rnd)


def steps_count(session: Session, game_id: str) -> int:
    return int(session.scalar(select(func.count()).select_from(Step).where(Step.game_id == game_id))
               or 0)
