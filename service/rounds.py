"""Orders and resolution: submit (every version kept) and resolve (exactly once).

Both lock the round row first (PostgreSQL: SELECT ... FOR UPDATE; SQLite: every
transaction is BEGIN IMMEDIATE, plus a conditional UPDATE claiming the resolution), so
a submission racing the resolution is either included in it or refused with 409,
never silently dropped; and of two tasks resolving the same round one wins and the
other does nothing.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session, joinedload
from sqlalchemy.orm.attributes import set_committed_value

from engine import OrderErrors, find_ruleset, round_inputs, run_round
from engine.contract import InvariantError
from engine.orders import format_orders
from service import clock
from service.audit import audit
from service.dice_keys import step_dice
from service.errors import Conflict, Invalid, NotFound, OrdersRefused, Unauthorized
from service.fairdice import input_text, receipt_hex
from service.faults import pause_point
from service.inputs import whole_number
from service.integrity import DamagedData, damaged, latest_state, mark_damaged
from service.mail.queue import enqueue
from service.models import Game, Round, Seat
from service.progress import record_step
from service.submissions import latest_of, latest_submissions, round_submissions, store_submission
from service.timekeeping.open_close import early_close_allowed, mark_ready
from service.timekeeping.state import read_schedules
from service.tokens import token_hash

log = logging.getLogger(__name__)
SOURCES = ("web", "api", "mail")  # what a player submits through (bots: service.timekeeping.open_close)


@dataclass(frozen=True)
class Accepted:
    round: int
    lines: list[str]
    version: int
    ready: bool
    receipt: str = ""  # v2: H(profile, "receipt", game, round, seat, version, text), hex
    at: str = ""  # when the version was stored (ISO 8601)


def seat_by_token(session: Session, game_id: str, token: str | None) -> Seat:
    """The seat a player token belongs to; 404 for an unknown game, 401 for a bad token.

    The game and its seats are read in one statement (callers read seat.game and
    game.seats next), and the seat keeps the game loaded: the identity map forgets a
    row nobody holds.
    """
    game = session.get(Game, game_id, options=[joinedload(Game.seats)])
    if game is None:
        raise NotFound(f"no game {game_id!r}")
    if not token:
        raise Unauthorized("a player token is needed (Authorization: Bearer <player_token>)")
    wanted = token_hash(token)
    seat = next((s for s in game.seats
                 if s.player_token_hash and hmac.compare_digest(s.player_token_hash, wanted)), None)
    if seat is None:
        raise Unauthorized("this player token is not valid for this game")
    set_committed_value(seat, "game", game)  # seat.game without asking the database again
    return seat


def lock_round(session: Session, game_id: str, number: int) -> Round | None:
    return session.scalars(select(Round).where(Round.game_id == game_id, Round.number == number)
                           .with_for_update()).first()


def submit(session: Session, game_id: str, token: str | None, round_number: Any, text: Any,
           source: str, seat_id: int | None = None,
           then: Callable[[Session, Accepted], None] | None = None) -> Accepted:
    """seat_id: a seat proven another way than by its player token (a signed mail token).
    then: more writes that must commit with the orders or not at all (a mail's outcome),
    run in the submission's transaction once the orders are stored."""
    if source not in SOURCES:
        raise InvariantError(f"not a submission source: {source}")
    if isinstance(round_number, bool) or not isinstance(round_number, int):
        raise Invalid("round must be the number of the open round", "round")
    whole_number(round_number, "round")
    if not isinstance(text, str):
        raise Invalid("orders must be text, one order a line", "orders")
    with session.begin():
        seat = seat_by_token(session, game_id, token) if seat_id is None else session.get(Seat, seat_id)
        if seat is None or seat.game_id != game_id:
            raise NotFound(f"no such seat in game {game_id!r}")
        game = seat.game
        rnd = lock_round(session, game_id, round_number)
        if game.status != "active" or rnd is None or rnd.status == "resolved":
            raise Conflict(f"round {round_number} is not open; the open round is "
                           f"{_open_round_text(game)}", "round")
        if seat.name not in rnd.expected:
            raise Conflict(f"{seat.name} is not expected to move in round {round_number} "
                           f"(expected: {', '.join(rnd.expected)})", "round")
        _step, state = latest_state(session, game)  # DamagedData: 503
        ruleset = find_ruleset(game.ruleset)
        try:
            orders = ruleset.parse_orders(state, seat.name, text)
        except OrderErrors as exc:
            raise OrdersRefused([e.to_json() for e in exc.errors]) from None
        # Every version of the round, listed once (the round is locked: nobody adds one meanwhile).
        subs = round_submissions(session, rnd.id)
        read_schedules(session, game)  # before the new rows: the early-close check needs no flush
        accepted = format_orders(orders)
        stored_at = clock.now()
        mine = store_submission(session, rnd, seat, text, accepted, source, stored_at, known=subs)
        version = mine.version
        proof = receipt_hex(game, rnd.number, seat.name, version, accepted)
        audit(session, game_id, seat.name, "submitted",
              {"round": rnd.number, "version": version, "source": source})
        enqueue(session, "confirmation",
                {"round": rnd.number, "version": version, "accepted": accepted, "source": source,
                 "receipt": proof, "at": stored_at.isoformat()},
                game=game, seat=seat)
        submitted = latest_of([*subs, mine])
        names = {s.id: s.name for s in game.seats}
        done = {names[seat_id] for seat_id in submitted}
        ready = (rnd.status == "open" and early_close_allowed(session, game, rnd, done)
                 and mark_ready(session, game, rnd, done))  # wait flags, pause, bot seats
        result = Accepted(rnd.number, [o.format() for o in orders], version,
                          bool(ready) or rnd.status == "ready", proof, stored_at.isoformat())
        if then is not None:
            then(session, result)
    return result


def _open_round_text(game: Game) -> str:
    if game.status == "waiting":
        return "none yet (seats are still being filled)"
    if game.status == "finished":
        return "none (the game is over)"
    return str(game.current_round)


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
