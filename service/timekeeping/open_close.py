"""Closing a round: early when every expected person is in (and nobody asked to wait),
at the deadline otherwise, or when the GM says so. Missing players hold.

Closing marks the round `ready` and rings the lifecycle's resolve doorbell; the
resolution itself stays service.rounds.resolve_round's job. The consecutive-miss count
of each expected person is updated here, once per round.
"""

from __future__ import annotations

from sqlalchemy import update
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import set_committed_value

from service.clock import now
from service.models import Game, Round
from service.schedule.deadlines import in_quiet_hours
from service.schedule.nmr import next_misses
from service.tasks import resolve_after_commit
from service.timekeeping.state import controller, expected_humans, policy_of, seat_schedule, submitted_names


def early_close_allowed(session: Session, game: Game, rnd: Round, done: set[str]) -> bool:
    """Every expected person has submitted, none of them set 'wait', and the game is not paused.

    Never inside the game's quiet hours (the sweeper closes it when they end). A game nobody
    plays in person any more (every seat bot, open or removed) only moves at its deadlines,
    so the bot cannot race through the whole game in one go."""
    if game.paused_at is not None or game.status != "active":
        return False
    if not any(controller(session, s) == "human" for s in game.seats):
        return False
    policy = policy_of(game)
    if in_quiet_hours(now(), policy.quiet_hours, policy.zone):
        return False  # no round closes in quiet hours; the sweeper closes it when they end
    humans = expected_humans(session, game, rnd)
    if any(s.name not in done for s in humans):
        return False
    return not any(seat_schedule(session, s, create=False).wait for s in humans)


def mark_ready(session: Session, game: Game, rnd: Round,
               done: set[str] | None = None) -> bool:
    """Claim the round for resolution (False if another closer got there first).

    done: who has submitted, when the caller has just listed it (the round is locked)."""
    claimed = session.execute(
        update(Round).where(Round.id == rnd.id, Round.status == "open").values(status="ready")
        .execution_options(synchronize_session=False))
    if claimed.rowcount != 1:  # type: ignore[attr-defined]
        return False
    set_committed_value(rnd, "status", "ready")  # the UPDATE above wrote it: no second one
    humans = expected_humans(session, game, rnd)
    if done is None:
        done = submitted_names(session, game, rnd)
    rows = {s.name: seat_schedule(session, s) for s in humans}
    counts = next_misses({n: r.misses for n, r in rows.items()},
                         {n for n in rows if n in done}, {n for n in rows if n not in done})
    for name, row in rows.items():
        row.misses = counts[name]
    resolve_after_commit(session, game.id, rnd.number)
    return True


def close_early_if_done(session: Session, game: Game, rnd: Round) -> bool:
    if rnd.status == "open" and early_close_allowed(session, game, rnd, submitted_names(session, game, rnd)):
        return mark_ready(session, game, rnd)
    return False
