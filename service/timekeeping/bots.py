"""Orders written by the engine's bot for a seat it plays (engine.bots.bot_orders)."""

from __future__ import annotations

from sqlalchemy.orm import Session

from engine import find_ruleset
from engine.bots import bot_orders
from engine.contract import InvariantError
from engine.dice import bot_key
from engine.orders import format_orders
from service.audit import log_action
from service.clock import now
from service.dice_keys import chain_link
from service.fairdice import is_v2
from service.models import Game, Round, Seat, Submission
from service.submissions import store_submission
from service.views import latest_step


def submit_for_bot(session: Session, game: Game, rnd: Round, seat: Seat) -> Submission:
    """Store the bot's orders for `seat` in this round as a submission with source 'bot'."""
    step = latest_step(session, game.id)
    if step is None:
        raise InvariantError(f"game {game.id}: a round opens only after its step is stored")
    ruleset = find_ruleset(game.ruleset)
    state = ruleset.load(step.state)
    if is_v2(game):  # the bound key: secret until S_{r+1} is revealed, then recomputable
        if game.salt is None:
            raise InvariantError(f"game {game.id}: a bot plays only after the salt is made")
        t = rnd.number + 1
        text = bot_orders(ruleset, state, seat.name,
                          key=bot_key(chain_link(game, t), bytes.fromhex(game.salt), t, seat.name))
    else:
        text = bot_orders(ruleset, state, seat.name, seed=f"{game.id}:{game.salt}")
    accepted = format_orders(ruleset.parse_orders(state, seat.name, text)) if text else ""
    sub = store_submission(session, rnd, seat, text, accepted, "bot", now())
    session.flush()
    log_action(session, game.id, "bot", "bot_orders",
               {"round": rnd.number, "seat": seat.name, "version": sub.version})
    return sub
