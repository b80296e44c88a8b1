"""What the sweeper finds due: rounds past their deadline (the missed-turn policy applied,
then closed, missing players hold), complete rounds whose early close was held back, and
reminders. The lifecycle's sweeper calls `sweep_schedule()` each interval, then sends again
the tasks of whatever is still ready or pending.

Each round is handled in its own transaction that locks the round row and re-checks that
it is still open and due, so two sweepers running at once close it once: the loser finds
it ready (or its deadline moved) and does nothing.

Due reminders become outbox rows keyed by (seat, round, deadline). The key makes the row's
Message-ID, which the outbox holds unique: two sweepers queueing the same reminder leave one
row (service.mail.outbox.enqueue) and nothing is sent twice. A moved deadline (pause,
extension) has a new key, so the player is reminded of the new one.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from engine.contract import InvariantError
from service.address_confirm import is_confirmed
from service.audit import log_action
from service.clock import Clock, app_clock
from service.db import session_scope
from service.mail.outbox import enqueue, failing
from service.models import Game, Outbox, Round, Seat
from service.notify import notify
from service.schedule.deadlines import extended_deadline
from service.schedule.durations import describe_duration, format_duration
from service.schedule.nmr import plan_missed_turns
from service.schedule.reminders import reminder_due, reminder_key
from service.standing import use_standing
from service.submissions import lock_round
from service.timekeeping.open_close import (
    close_early_if_done,
    early_close_allowed,
    mark_ready,
    submit_for_bot,
)
from service.timekeeping.state import (
    expected_humans,
    policy_of,
    reminder_lead,
    round_schedule,
    seat_schedule,
    submitted_names,
)
from service.tokens import new_token, token_hash
from service.urls import takeover_url

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ScheduleSweep:
    closed: int
    extended: int
    reminders: int


def sweep_schedule(clock: Clock | None = None) -> ScheduleSweep:
    """One pass. A round that fails (damaged data) is logged and left; the others go on."""
    at = (clock or app_clock()).now()
    closed = extended = 0
    with session_scope() as session:
        for game_id, number in due_rounds(session, at):
            try:
                result = close_due_round(session, game_id, number, at)
            except Exception:
                log.exception("could not close %s round %d at its deadline", game_id, number)
                continue
            closed += result == "closed"
            extended += result == "extended"
        for game_id, number in complete_rounds(session):
            try:
                closed += close_if_complete(session, game_id, number)
            except Exception:
                log.exception("could not close complete round %d of %s; other games go on", number, game_id)
    with session_scope() as session:
        reminders = send_due_reminders(session, at)
    return ScheduleSweep(closed, extended, reminders)


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
    use_standing(session, game, rnd, expected_humans(session, game, rnd))  # before anyone counts as missing
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
        if action == "bot":  # the missed round holds: the bot plays the rounds after it
            hand_to_bot(session, game, None, seat, actor="service")
        elif action == "replace":
            open_for_replacement(session, game, seat, actor="service")
    log_action(session, game.id, "service", "deadline_closed",
               {"round": rnd.number, "deadline": rnd.closes_at.isoformat(), "at": at.isoformat(),
                "holding": sorted(s.name for s in missing if plan.actions.get(s.name) != "bot")})
    mark_ready(session, game, rnd)
    return "closed"


def hand_to_bot(session: Session, game: Game, rnd: Round | None, seat: Seat, actor: str) -> None:
    """The bot plays the seat from the next round on, and `rnd` too when given (the GM's
    hand-over of an open round) and the seat is expected and has no orders in it. The
    player's own orders take the seat back (service.submit). The audit entry names the
    first round the bot plays (`from_round`: the record's hand-over)."""
    seat_schedule(session, seat).controller = "bot"
    plays_now = (rnd is not None and rnd.status == "open" and seat.name in rnd.expected
                 and seat.name not in submitted_names(session, game, rnd))
    first = (rnd.number if plays_now else rnd.number + 1) if rnd is not None else game.current_round + 1
    log_action(session, game.id, actor, "seat_to_bot", {"seat": seat.name, "from_round": first})
    notify(session, game.id, "seat_to_bot", {"seat": seat.name, "from_round": first})
    if rnd is not None and plays_now:
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
    if (seat.email or "").lower() != (email or "").lower():
        tell_former_player(session, game, seat, "replaced")
    seat.email = email  # mail for the seat now goes to the newcomer (or nobody until one is named)
    log_action(session, game.id, actor, "seat_opened", {"seat": seat.name, "invited": email is not None})
    url = takeover_url(game.id, invite)
    if email is not None:
        enqueue(session, "invitation", {"join_url": url, "commitment": game.commitment, "title": game.title,
                                        "replacement": True}, game=game, seat=seat)
    for other in game.seats:  # a GM's replacement is told by the GM's news (service.gm.news)
        if other.id != seat.id and actor != "gm":
            enqueue(session, "status", {"message": f"Seat {seat.name} is open for a replacement player; "
                                                   "its units hold until someone takes it."},
                    game=game, seat=other)
    return invite


def tell_former_player(session: Session, game: Game, seat: Seat, how: str) -> None:
    """Mail the seat's player (before their address leaves the seat) that they no longer
    play it: `how` "replaced" (the seat is open for a newcomer) or "removed". Only to an
    address that confirmed: the notice is news for its owner, never a stranger's."""
    if not seat.email:
        return
    # Mail of the seat still waiting (the GM's news gathering, say) would carry the seat's new
    # tokens to the old address: it is not sent.
    session.execute(update(Outbox).where(
        Outbox.seat_id == seat.id, Outbox.status == "pending",
        func.lower(Outbox.to_address) == seat.email.lower())
        .values(status="skipped", last_error="not sent: the seat went to another player")
        .execution_options(synchronize_session=False))
    if is_confirmed(session, seat.email):
        enqueue(session, "seat_lost", {"seat": seat.name, "how": how, "round": game.current_round},
                game=game, to=seat.email)


def revoke_player(seat: Seat) -> None:
    """The seat's player can no longer act: the web/API token is dropped and the salt of the
    mail reply tokens is renewed, so tokens in mail already sent stop working too."""
    seat.player_token_hash = None
    seat.reply_token_salt = secrets.token_hex(16)


def send_due_reminders(session: Session, at: datetime) -> int:
    """Queue every reminder due at `at`; the number queued by this call."""
    queued = 0
    with session.begin():
        rounds = session.execute(
            select(Round, Game).join(Game, Game.id == Round.game_id).where(
                Round.status == "open", Round.closes_at.is_not(None), Round.closes_at > at,
                Game.status == "active", Game.paused_at.is_(None)).order_by(Round.id)).all()
        for rnd, game in rounds:
            done = submitted_names(session, game, rnd)
            waiting = [seat for seat in expected_humans(session, game, rnd) if seat.name not in done]
            due = []
            for seat in waiting:
                lead = reminder_lead(seat_schedule(session, seat))
                if reminder_due(at, rnd.opened_at, rnd.closes_at, lead):
                    due.append(seat.name)
                    queued += _queue(session, game, rnd, seat, lead)
            if due and rnd.closes_at is not None:
                # Told at every pass while due: the key lets each channel queue it once.
                deadline = rnd.closes_at.isoformat()
                notify(session, game.id, "reminder", {"round": rnd.number, "deadline": deadline,
                                                      "waiting": [s.name for s in waiting], "due": due},
                       key=f"reminder.{rnd.number}.{deadline}")
    return queued


def _queue(session: Session, game: Game, rnd: Round, seat: Seat, lead: timedelta) -> bool:
    if rnd.closes_at is None:
        raise InvariantError(f"round {rnd.number} of game {game.id} has no deadline to remind of")
    payload = {"round": rnd.number, "deadline": rnd.closes_at.isoformat(), "lead": describe_duration(lead),
               "lead_iso": format_duration(lead), "title": game.title}
    return enqueue(session, "reminder", payload, game=game, seat=seat,
                   key=reminder_key(seat.id, rnd.number, rnd.closes_at)) is not None
