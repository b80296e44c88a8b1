"""A round opens and closes. On opening (service.progress.open_round sets its deadline)
bot-played seats write orders (engine.bots.bot_orders): `round_opened`. It closes early
when every expected person is in (and nobody asked to wait), at the deadline otherwise, or
when the GM says so. Missing players hold.

Closing marks the round `ready` and rings the lifecycle's resolve doorbell; the
resolution itself stays service.resolution.resolve_round's job. The consecutive-miss count
of each expected person is updated here, once per round.
"""

from __future__ import annotations

from sqlalchemy import update
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import set_committed_value

from engine import find_ruleset
from engine.bots import bot_orders
from engine.contract import InvariantError
from engine.dice import bot_key
from engine.orders import format_orders
from service.audit import log_action
from service.clock import now
from service.dice_keys import chain_link, step_link
from service.fairdice import counted_orders, game_profile, is_bound
from service.models import Game, Round, Seat, Submission
from service.schedule.deadlines import in_quiet_hours
from service.schedule.nmr import next_misses
from service.submissions import store_submission
from service.tasks import resolve_after_commit
from service.timekeeping.state import (
    controller,
    expected_humans,
    expected_seats,
    policy_of,
    seat_schedule,
    submitted_names,
)
from service.views import latest_step


def round_opened(session: Session, game: Game, rnd: Round) -> None:
    """A round just opened (service.progress.open_round, which set its deadline) in which a
    bot plays or no person does: the bots write their orders, and the round closes at once
    when that was all it waited for."""
    for seat in expected_seats(game, rnd):
        if controller(session, seat) == "bot":
            submit_for_bot(session, game, rnd, seat)
    if rnd.status == "open":
        close_early_if_done(session, game, rnd)


def submit_for_bot(session: Session, game: Game, rnd: Round, seat: Seat) -> Submission:
    """Store the bot's orders for `seat` in this round as a submission with source 'bot'."""
    step = latest_step(session, game.id)
    if step is None:
        raise InvariantError(f"game {game.id}: a round opens only after its step is stored")
    ruleset = find_ruleset(game.ruleset, game.revision)
    state = ruleset.load(step.state)
    profile = game_profile(game)
    if is_bound(game):  # the bound key: secret until S_{r+1} is revealed, then recomputable
        if game.salt is None:
            raise InvariantError(f"game {game.id}: a bot plays only after the salt is made")
        t = rnd.number + 1
        text = bot_orders(ruleset, state, seat.name,
                          key=bot_key(chain_link(game, step_link(game, t)), bytes.fromhex(game.salt), t,
                                      seat.name, profile),
                          profile=profile)
    else:
        text = bot_orders(ruleset, state, seat.name, seed=f"{game.id}:{game.salt}")
    accepted = format_orders(counted_orders(profile, ruleset, state, seat.name,
                                            ruleset.parse_orders(state, seat.name, text))) if text else ""
    sub = store_submission(session, rnd, seat, text, accepted, "bot", now())
    session.flush()
    log_action(session, game.id, "bot", "bot_orders",
               {"round": rnd.number, "seat": seat.name, "version": sub.version})
    return sub


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
    resolve_after_commit(session, game.id, rnd.number, game.links_skipped or 0)
    return True


def close_early_if_done(session: Session, game: Game, rnd: Round) -> bool:
    if rnd.status == "open" and early_close_allowed(session, game, rnd, submitted_names(session, game, rnd)):
        return mark_ready(session, game, rnd)
    return False
