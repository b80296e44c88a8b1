"""Standing orders: a player's word per unit (engine.standing), used in a round they let
pass without orders.

Set and cleared by the player (web page, mail `STANDING A1 hold`, `STANDING A1 none`),
each change in the audit log. When a round closes with the seat still without orders (its
deadline, or the GM's resolve-now), `use_standing` turns the words into the ruleset's own
orders and stores them as the player's next version with source "standing": the same row,
receipt and confirmation mail as typed orders, so the record lists it as theirs and replays
it like any input. The round is then not a missed turn, so the missed-turn policy's bot,
extension or replacement never takes a seat whose standing orders cover it. A seat the bot
plays keeps the bot: standing orders stand in for its player, not for the bot.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from engine import find_ruleset
from engine.orders import format_orders
from engine.standing import NONE, standing_kinds, standing_text
from service.audit import audit, log_action
from service.clock import now
from service.errors import Invalid
from service.fairdice import counted_orders, game_profile, receipt_hex
from service.integrity import loaded_state
from service.mail.outbox import enqueue
from service.models import Game, Round, Seat, StandingOrder
from service.submissions import latest_submissions, store_submission
from service.views import latest_step


def standing_of(session: Session, seat: Seat) -> dict[str, str]:
    """unit → its standing word, for the seat."""
    rows = session.scalars(select(StandingOrder).where(StandingOrder.seat_id == seat.id))
    return {r.unit: r.kind for r in rows}


def kinds_of(game: Game) -> dict[str, str]:
    """The words this game's ruleset offers, each with what it does."""
    return standing_kinds(find_ruleset(game.ruleset, game.revision))


def own_units(session: Session, game: Game, seat: Seat) -> list[str]:
    """The seat's units on the board now (a standing order names one of them)."""
    step = latest_step(session, game.id)
    if step is None:
        return []
    board = find_ruleset(game.ruleset, game.revision).board(loaded_state(game, step))
    return sorted(p.id for p in board.pieces if p.side == seat.name)


def set_standing(session: Session, seat: Seat, unit: str, kind: str) -> dict[str, str]:
    """Set (or with `none`, clear) the seat's standing order for a unit; its standing orders
    after. Invalid names the field: `unit` not one of the seat's units, `kind` not a word
    the ruleset offers. The caller holds the transaction."""
    game = seat.game
    if game.status not in ("active", "waiting"):
        raise Invalid("standing orders: the game is over", "unit")
    unit, kind = unit.strip().upper(), kind.strip().lower()
    mine = own_units(session, game, seat)
    if unit not in mine:
        raise Invalid(f"unit: {unit or 'nothing'} is not one of your units "
                      f"({', '.join(mine) or 'you have none on the board yet'})", "unit")
    kinds = kinds_of(game)
    if kind != NONE and kind not in kinds:
        raise Invalid(f"kind: {kind or 'nothing'} is not a standing order here; write one of "
                      f"{', '.join([*kinds, NONE])}", "kind")
    row = session.get(StandingOrder, (seat.id, unit))
    if kind == NONE:
        if row is not None:
            session.execute(delete(StandingOrder).where(StandingOrder.seat_id == seat.id,
                                                        StandingOrder.unit == unit))
    elif row is None:
        session.add(StandingOrder(seat_id=seat.id, unit=unit, kind=kind, set_at=now()))
    else:
        row.kind, row.set_at = kind, now()
    session.flush()
    audit(session, game.id, seat.name, "standing_set", {"seat": seat.name, "unit": unit, "kind": kind})
    return standing_of(session, seat)


def use_standing(session: Session, game: Game, rnd: Round, seats: Sequence[Seat]) -> list[str]:
    """The round closes: each of `seats` (expected, played in person) still without orders
    whose player left standing orders gets them as their next version. The names of those
    seats. The caller holds the round's lock."""
    have = latest_submissions(session, rnd.id)
    standing = {seat: words for seat in seats if seat.id not in have
                if (words := {u: k for u, k in standing_of(session, seat).items() if k != NONE})}
    # the state is loaded only for standing orders to use: a round without any closes as
    # before, even when its stored state no longer loads (the resolver marks that game)
    if not standing:
        return []
    step = latest_step(session, game.id)
    if step is None:
        return []
    ruleset = find_ruleset(game.ruleset, game.revision)
    state = loaded_state(game, step)
    profile = game_profile(game)
    used = []
    for seat, words in standing.items():
        text = standing_text(ruleset, state, seat.name, words)
        accepted = format_orders(counted_orders(profile, ruleset, state, seat.name,
                                                ruleset.parse_orders(state, seat.name, text)))
        at = now()
        sub = store_submission(session, rnd, seat, text, accepted, "standing", at)
        session.flush()
        log_action(session, game.id, seat.name, "standing_orders",
                   {"round": rnd.number, "seat": seat.name, "version": sub.version,
                    "units": sorted(words)})
        enqueue(session, "confirmation",
                {"round": rnd.number, "version": sub.version, "accepted": accepted, "source": "standing",
                 "receipt": receipt_hex(game, rnd.number, seat.name, sub.version, accepted),
                 "at": at.isoformat(), "sent": text}, game=game, seat=seat)
        used.append(seat.name)
    return used
