"""Rounds whose deadline has passed: apply the missed-turn policy, then close (missing hold).

Each round is handled in its own transaction that locks the round row and re-checks that
it is still open and due, so two sweepers running at once close it once: the loser finds
it ready (or its deadline moved) and does nothing.
"""

from __future__ import annotations

import logging
import secrets
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from engine.contract import InvariantError
from service.audit import log_action
from service.mail.bounces import failing
from service.mail.queue import enqueue
from service.models import Game, Round, Seat
from service.rounds import lock_round
from service.schedule.deadlines import extended_deadline
from service.schedule.nmr import plan_missed_turns
from service.timekeeping.bots import submit_for_bot
from service.timekeeping.open_close import close_early_if_done, early_close_allowed, mark_ready
from service.timekeeping.state import (
    expected_humans,
    policy_of,
    round_schedule,
    seat_schedule,
    submitted_names,
)
from service.tokens import new_token, token_hash
from service.urls import takeover_url

log = logging.getLogger(__name__)


def due_rounds(session: Session, at: datetime) -> list[tuple[str, int]]:
    with session.begin():
        rows = session.execute(
            select(Round.game_id, Round.number).join(Game, Game.id == Round.game_id).where(
                Round.status == "open", Round.closes_at.is_not(None), Round.closes_at <= at,
                Game.status == "active", Game.paused_at.is_(None)).order_by(Round.closes_at))
        return [(g, n) for g, n in rows]


def complete_rounds(session: Session) -> list[tuple[str, int]]:
    """Open rounds that may close early now (an early close held back by quiet hours, or
    missed): found in one read, each then closed under its own lock."""
    with session.begin():
        rows = session.execute(
            select(Round, Game).join(Game, Game.id == Round.game_id).where(
                Round.status == "open", Game.status == "active", Game.paused_at.is_(None))).all()
        return [(game.id, rnd.number) for rnd, game in rows if _may_close(session, game, rnd)]


def _may_close(session: Session, game: Game, rnd: Round) -> bool:
    try:
        return early_close_allowed(session, game, rnd, submitted_names(session, game, rnd))
    except Exception:  # damaged data of one game must not stop the sweep of the others
        log.exception("could not check %s round %d for an early close", game.id, rnd.number)
        return False


def close_if_complete(session: Session, game_id: str, number: int) -> bool:
    with session.begin():
        rnd = lock_round(session, game_id, number)
        game = session.get(Game, game_id)
        if rnd is None or game is None:
            return False
        closed = close_early_if_done(session, game, rnd)
    return closed


def close_due_round(session: Session, game_id: str, number: int, at: datetime) -> str:
    """'closed', 'extended' or 'skipped' (already handled, paused, or no longer due)."""
    with session.begin():
        rnd = lock_round(session, game_id, number)
        game = session.get(Game, game_id)
        if (rnd is None or game is None or rnd.status != "open" or game.status != "active"
                or game.paused_at is not None or rnd.closes_at is None or rnd.closes_at > at):
            return "skipped"
        result = _apply_deadline(session, game, rnd, at)
    return result


def _apply_deadline(session: Session, game: Game, rnd: Round, at: datetime) -> str:
    if rnd.closes_at is None:
        raise InvariantError(f"round {rnd.number} of game {game.id} has no deadline to apply")
    policy = policy_of(game)
    done = submitted_names(session, game, rnd)
    missing = [s for s in expected_humans(session, game, rnd) if s.name not in done]
    sched = round_schedule(session, rnd)
    unreachable = {s.name for s in missing if failing(session, s.email) is not None}
    plan = plan_missed_turns(policy.missed_turns,
                             {s.name: seat_schedule(session, s).misses for s in missing}, sched.extended,
                             unreachable)
    if plan.extend:
        old = rnd.closes_at
        rnd.closes_at = extended_deadline(old, policy.missed_turns.extend_by, policy)
        sched.extended = True
        log_action(session, game.id, "service", "deadline_extended",
                   {"round": rnd.number, "from": old.isoformat(), "to": rnd.closes_at.isoformat(),
                    "missing": [s.name for s in missing]})
        return "extended"
    by_name = {s.name: s for s in missing}
    for name in sorted(plan.actions):
        seat, action = by_name[name], plan.actions[name]
        log_action(session, game.id, "service", "missed_turn",
                   {"round": rnd.number, "seat": name, "misses": seat_schedule(session, seat).misses + 1,
                    "action": action})
        if action == "bot":
            hand_to_bot(session, game, rnd, seat, actor="service")
        elif action == "replace":
            open_for_replacement(session, game, seat, actor="service")
    log_action(session, game.id, "service", "deadline_closed",
               {"round": rnd.number, "deadline": rnd.closes_at.isoformat(), "at": at.isoformat(),
                "holding": sorted(s.name for s in missing if plan.actions.get(s.name) != "bot")})
    mark_ready(session, game, rnd)
    return "closed"


def hand_to_bot(session: Session, game: Game, rnd: Round | None, seat: Seat, actor: str) -> None:
    """The bot plays the seat from now on, this round included when it is expected and empty."""
    seat_schedule(session, seat).controller = "bot"
    log_action(session, game.id, actor, "seat_to_bot", {"seat": seat.name})
    if rnd is not None and rnd.status == "open" and seat.name in rnd.expected \
            and seat.name not in submitted_names(session, game, rnd):
        submit_for_bot(session, game, rnd, seat)


def open_for_replacement(session: Session, game: Game, seat: Seat, actor: str,
                         email: str | None = None) -> str:
    """Open the seat (units hold until someone takes it) and mint a fresh invitation for it.

    The old player's token and mail tokens stop working. With `email`, the invitation is
    mailed there; the other players are told the seat is open either way. Returns the
    invite token."""
    row = seat_schedule(session, seat)
    row.controller = "open"
    invite = new_token()
    seat.invite_token_hash = token_hash(invite)
    revoke_player(seat)
    seat.email = email  # mail for the seat now goes to the newcomer (or nobody until one is named)
    log_action(session, game.id, actor, "seat_opened", {"seat": seat.name, "invited": email is not None})
    url = takeover_url(game.id, invite)
    if email is not None:
        enqueue(session, "invitation", {"join_url": url, "commitment": game.commitment, "title": game.title,
                                        "replacement": True}, game=game, seat=seat)
    for other in game.seats:
        if other.id != seat.id:
            enqueue(session, "status", {"message": f"Seat {seat.name} is open for a replacement player; "
                                                   "its units hold until someone takes it."},
                    game=game, seat=other)
    return invite


def revoke_player(seat: Seat) -> None:
    """The seat's player can no longer act: the web/API token is dropped and the salt of the
    mail reply tokens is renewed, so tokens in mail already sent stop working too."""
    seat.player_token_hash = None
    seat.reply_token_salt = secrets.token_hex(16)
