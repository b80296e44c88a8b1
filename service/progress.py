"""Storing a played step and moving the game on: shared by setup (join) and resolution.

The step row holds the inputs, their digest D_t, the revealed chain link S_t, the new
state with its hash, the events and the rolls. Then either the game ends (outcome,
or the dice chain is used up) or the next round opens, ready at once when nobody is
expected to move.
"""

from __future__ import annotations

from typing import Any, Protocol

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from engine import StepResult
from engine.dice import inputs_digest
from service import clock, follow
from service.audit import audit
from service.fairdice import game_profile
from service.mail.outbox import enqueue
from service.models import Game, Round, Seat, Step
from service.rollback_chain import RESERVE_OPTION
from service.tasks import resolve_after_commit
from service.timekeeping.open_close import round_opened


class GameLike(Protocol):
    @property
    def chain_length(self) -> int: ...
    @property
    def options(self) -> dict[str, Any]: ...


def steps_limit(game: GameLike) -> int:
    """The game's most steps: its chain's links but those kept for rollbacks."""
    return game.chain_length - int((game.options or {}).get(RESERVE_OPTION) or 0)


def record_step(session: Session, game: Game, result: StepResult,
                s_t: bytes, link: int | None = None) -> Step:
    """`link`: the chain link of s_t, when a rollback made it other than the step's t."""
    step = Step(game_id=game.id, t=result.t, inputs=result.inputs,
                inputs_digest=inputs_digest(result.inputs, game_profile(game)).hex(), key=s_t.hex(),
                link=link if link != result.t else None,
                state=result.state, state_hash=result.state_hash, events=result.events,
                rolls=result.rolls)
    session.add(step)
    seats = list(game.seats)
    # Step 1 too: the start mail shows the first grid, the setup rolls and S_1 (round 0).
    for seat in seats:
        enqueue(session, "results", {"round": result.t - 1, "step": result.t}, game=game, seat=seat)
    if result.t > 1:
        follow.mail_round(session, game, result.t - 1, result.t)
    if result.outcome is not None:
        _finish(session, game, result.outcome, seats)
    elif result.t + 1 > steps_limit(game):
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
        enqueue(session, "game_over", {"outcome": outcome}, game=game, seat=seat)


def _open_round(session: Session, game: Game, number: int,
                expected: list[str]) -> None:
    """Round r follows step r (setup is step 1, round r is resolved by step r+1)."""
    ready = not expected
    rnd = Round(game_id=game.id, number=number, status="ready" if ready else "open",
                expected=list(expected), opened_at=clock.now())
    session.add(rnd)
    game.current_round = number
    if ready:
        resolve_after_commit(session, game.id, number, game.links_skipped or 0)
    else:
        round_opened(session, game, rnd)  # deadline, bot seats, early close


def steps_count(session: Session, game_id: str) -> int:
    return int(session.scalar(select(func.count()).select_from(Step).where(Step.game_id == game_id))
               or 0)
