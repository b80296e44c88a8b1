"""The GM's rollback: the game back at the start of an earlier round, hiding nothing.

The rounds from that one on are superseded: their steps, with the versions and bot rounds
of their rounds, go into the rollback's entry of the record as they stood (engine.rollbacks),
so every verifier still checks them; the game's chain skips the links they revealed, so
the rounds played again get dice nobody has seen (service.rollback_chain); the round
opens again for orders (its earlier versions stay in the entry: send again to change
them); every player is mailed, and the game's pages say so. Refused after a confirmation
is missing, for a finished game, for a game that forbids rollbacks, further back than
REACH rounds, and when the chain's reserved links are used up.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from engine.record import seal_step
from service.audit import log_action
from service.clock import now
from service.errors import Conflict, Invalid
from service.fairdice import game_profile, is_bound, record_fields
from service.gm.actions import Done, _acting
from service.gm.news import broadcast
from service.models import Game, Rollback, Round, RoundSchedule, Step, Submission
from service.progress import open_round, seat_facts
from service.rollback_chain import REACH, forbids_rollback, reserved_links
from service.views import record_step_json

REASON_MAX = 500


def roll_back(session: Session, game_id: str, token: str | None, round_number: Any, reason: Any,
              confirmed: bool) -> Done:
    """Roll the game back to the start of round `round_number` (see the module doc)."""
    if confirmed is not True:
        raise Invalid("confirm: a rollback replaces the dice of every round from the one named and "
                      "tells every player; confirm it (true)", "confirm")
    if isinstance(round_number, bool) or not isinstance(round_number, int):
        raise Invalid("round: the number of a resolved round to play again", "round")
    text = reason.strip() if isinstance(reason, str) else ""
    if not text or len(text) > REASON_MAX:
        raise Invalid(f"reason: say why, in 1 to {REASON_MAX} characters (every player reads it)", "reason")
    with _acting(session, game_id, token) as game:
        _allowed(game, round_number)
        return _roll_back(session, game, round_number, text)


def _allowed(game: Game, number: int) -> None:
    if forbids_rollback(game.options):
        raise Conflict("this game forbids rollbacks (its option no_rollback, shown to every player "
                       "when they joined)", "game")
    if not reserved_links(game.options):
        raise Conflict("this game was created before rollbacks: its dice chain keeps no links for "
                       "them", "game")
    current = game.current_round
    if current <= 1:
        raise Conflict("no round is resolved yet: there is nothing to roll back", "round")
    if not 1 <= number < current:
        raise Invalid(f"round: a resolved round, 1 to {current - 1} (round {current} is open)", "round")
    if number < current - REACH:
        raise Conflict(f"round: a rollback reaches back at most {REACH} rounds: to round "
                       f"{max(1, current - REACH)} at the earliest", "round")


def _roll_back(session: Session, game: Game, number: int, reason: str) -> Done:
    steps = list(session.scalars(select(Step).where(Step.game_id == game.id, Step.t > number)
                                 .order_by(Step.t)))
    reserve = reserved_links(game.options)
    if game.links_skipped + len(steps) > reserve:
        raise Conflict(f"the dice chain's {reserve} links kept for rollbacks are used up "
                       f"({game.links_skipped} used; this one needs {len(steps)})", "round")
    at = now()
    profile = game_profile(game)
    salt = bytes.fromhex(game.salt or "")
    current = game.current_round
    entry: dict[str, Any] = {"round": number, "at": at.isoformat(), "by": "gm", "reason": reason,
                             "steps": [seal_step(record_step_json(s), salt, profile) for s in steps]}
    if is_bound(game):  # the versions and bot rounds of the superseded rounds, as they stood
        lists = record_fields(session, game, list(game.seats), current - 1)
        entry["versions"] = [v for v in lists["versions"] if v["round"] >= number]
        if "bots" in lists:  # v2 (v3's bot rounds follow from the record's hand-overs)
            entry["bots"] = [b for b in lists["bots"] if b["round"] >= number]
    links = [s.link or s.t for s in steps]
    session.add(Rollback(game_id=game.id, round=number, at=at, entry=entry))
    rounds = list(session.scalars(select(Round).where(Round.game_id == game.id, Round.number >= number)))
    ids = [r.id for r in rounds]
    session.execute(delete(Submission).where(Submission.round_id.in_(ids)))
    session.execute(delete(RoundSchedule).where(RoundSchedule.round_id.in_(ids)))
    for step in steps:
        session.delete(step)
    expected = next(r.expected for r in rounds if r.number == number)
    for rnd in rounds:
        session.delete(rnd)
    session.flush()
    game.links_skipped += len(steps)
    detail = {"round": number, "rounds": list(range(number, current)), "reason": reason,
              "links": links, "next_link": number + 1 + game.links_skipped}
    log_action(session, game.id, "gm", "gm_rollback", detail)
    broadcast(session, game, "gm_rollback", detail)
    # Opened again as any round opens: a new deadline, the bots' orders with their new key.
    open_round(session, game, seat_facts(session, game), number, expected)
    return Done("gm_rollback", detail)
