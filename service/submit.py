"""Orders in: a player's orders for the open round, checked and stored (every version kept).

`submit` locks the round row first (PostgreSQL: SELECT ... FOR UPDATE; SQLite: every
transaction is BEGIN IMMEDIATE), so a submission racing the resolution
(service.resolution) is either included in it or refused with 409, never silently
dropped. In the same transaction: the audit row, the confirmation mail's outbox row and,
when every expected player is in, the round's early close.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from engine import OrderErrors, find_ruleset
from engine.contract import InvariantError
from engine.orders import format_orders
from service import clock
from service.audit import audit
from service.errors import Conflict, Invalid, NotFound, OrdersRefused
from service.fairdice import receipt_hex
from service.games import seat_by_token
from service.inputs import whole_number
from service.integrity import latest_state
from service.mail.queue import enqueue
from service.models import Game, Seat
from service.submissions import latest_of, lock_round, round_submissions, store_submission
from service.timekeeping.open_close import early_close_allowed, mark_ready
from service.timekeeping.state import read_schedules

SOURCES = ("web", "api", "mail")  # what a player submits through (bots: service.timekeeping.open_close)


@dataclass(frozen=True)
class Accepted:
    round: int
    lines: list[str]
    version: int
    ready: bool
    receipt: str = ""  # v2: H(profile, "receipt", game, round, seat, version, text), hex
    at: str = ""  # when the version was stored (ISO 8601)


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
