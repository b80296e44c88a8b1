"""Orders written by the engine's bot for a seat it plays (engine.bots.bot_orders)."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from engine import find_ruleset
from engine.bots import bot_orders
from engine.orders import format_orders
from service.clock import now
from service.models import Game, Round, Seat, Submission
from service.progress import latest_step
from service.timekeeping.journal import log_action


def submit_for_bot(session: Session, game: Game, rnd: Round, seat: Seat) -> Submission:
    """Store the bot's orders for `seat` in this round as a submission with source 'bot'."""
    step = latest_step(session, game.id)
    assert step is not None, "a round opens after its step is stored"
    ruleset = find_ruleset(game.ruleset)
    state = ruleset.load(step.state)
    text = bot_orders(ruleset, state, seat.name, seed=f"{game.id}:{game.salt}")
    accepted = format_orders(ruleset.parse_orders(state, seat.name, text)) if text else ""
    version = 1 + int(session.scalar(select(func.max(Submission.version)).where(
        Submission.round_id == rnd.id, Submission.seat_id == seat.id)) or 0)
    sub = Submission(seat_id=seat.id, round_id=rnd.id, version=version, text=text, accepted=accepted,
                     source="bot", created_at=now())
    session.add(sub)
    session.flush()
    log_action(session, game.id, "bot", "bot_orders",
               {"round": rnd.number, "seat": seat.name, "version": version})
    return sub
