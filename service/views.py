"""Read models: what the API returns and the pages show, in the exact API shapes.

Nothing secret leaves here: the chain tip and token hashes are never read out; a
step's key S_t is shown only once the step exists (it is stored when revealed).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, defer

from engine import Board, Order, find_ruleset
from engine.record import build_record
from service import statecache
from service.audit import record_extra
from service.errors import NotFound
from service.fairdice import game_profile, is_bound, record_fields
from service.integrity import check_steps, latest_state, loaded_state
from service.memo import memo
from service.models import Game, Round, Seat, Step, Submission
from service.rollback_chain import record_rollbacks
from service.submissions import latest_submissions


def get_game(session: Session, game_id: str) -> Game:
    game = session.get(Game, game_id)
    if game is None:
        raise NotFound(f"no game {game_id!r}")
    return game


def current_round(session: Session, game: Game) -> Round | None:
    if game.current_round < 1:
        return None
    return round_numbered(session, game.id, game.current_round)


def round_numbered(session: Session, game_id: str, number: int) -> Round | None:
    """Round `number` of a game, or None (shared within a service.memo block)."""
    return memo(session, ("round", game_id, number), lambda: session.scalars(
        select(Round).where(Round.game_id == game_id, Round.number == number)).first())


def steps_to(session: Session, game_id: str, t: int) -> dict[int, Step]:
    """Steps t - 1 and t of a game (those stored), by t (shared within a service.memo block)."""
    return memo(session, ("steps", game_id, t), lambda: {s.t: s for s in session.scalars(
        select(Step).where(Step.game_id == game_id, Step.t.in_((t - 1, t))))})


def round_latest(session: Session, round_id: int) -> dict[int, Submission]:
    """latest_submissions of a round (shared within a service.memo block)."""
    return memo(session, ("latest", round_id), lambda: latest_submissions(session, round_id))


def board_at(session: Session, game: Game, step: Step | None) -> Board | None:
    """board_of, made once per step within a service.memo block (boards are only read)."""
    if step is None:
        return None
    return memo(session, ("board", game.id, step.t), lambda: board_of(game, step))


def submitted_names(session: Session, game: Game, rnd: Round | None) -> set[str]:
    if rnd is None:
        return set()
    names = {s.id: s.name for s in game.seats}
    return {names[seat_id] for seat_id in latest_submissions(session, rnd.id)}


def game_json(session: Session, game_id: str) -> dict[str, Any]:
    with session.begin():
        game = get_game(session, game_id)
        rnd = current_round(session, game)
        done = submitted_names(session, game, rnd)
        open_round = rnd is not None and game.status == "active"
        winners = (game.outcome or {}).get("winners") or []
        return {
            "id": game.id,
            "ruleset": game.ruleset,
            "revision": game.revision,  # the rules revision it plays to its end
            "title": game.title,
            "status": game.status,
            "round": game.current_round if open_round else (game.current_round or None),
            "commitment": game.commitment,
            "seats": [{"name": s.name, "joined": s.joined_at is not None,
                       "submitted": open_round and s.name in done} for s in game.seats],
            "expected": list(rnd.expected) if open_round and rnd else [],
            "deadline": rnd.closes_at.isoformat() if open_round and rnd and rnd.closes_at else None,
            "winner": winners[0] if len(winners) == 1 else None,
            "outcome": game.outcome,
        }


def public_games_json(session: Session, limit: int = 100) -> list[dict[str, Any]]:
    """The newest public games, as the home page lists them."""
    with session.begin():
        found = session.scalars(select(Game).where(Game.public.is_(True))
                                .order_by(Game.created_at.desc()).limit(limit))
        return [{"id": g.id, "title": g.title, "ruleset": g.ruleset, "status": g.status,
                 "round": g.current_round or None, "commitment": g.commitment} for g in found]


def seat_legal_orders(session: Session, seat: Seat) -> dict[str, list[Order]]:
    """The seat's legal orders in the open round, as values (each with its role, square and
    target: `Order.to_json`); empty when the seat does not move this round."""
    game = seat.game
    rnd = current_round(session, game)
    if game.status != "active" or rnd is None or seat.name not in rnd.expected:
        return {}
    ruleset = find_ruleset(game.ruleset, game.revision)
    checked, state = latest_state(session, game)
    return statecache.legal_orders(game.ruleset, game.revision, checked.state, seat.name,
                                   lambda: ruleset.legal_orders(state, seat.name))


def orders_json(session: Session, seat: Seat,
                legal: Mapping[str, Sequence[Order]] | None = None) -> dict[str, Any]:
    """The player's view of the open round: legal lines per unit (`units`), the same orders
    as values (`legal`: text, unit, verb, args, role, square, target, cost), current submission.
    `legal`: the seat's legal orders when the caller has them already."""
    game = seat.game
    rnd = current_round(session, game)
    current = ""
    if legal is None:
        legal = seat_legal_orders(session, seat)
    if game.status == "active" and rnd is not None:
        mine = latest_submissions(session, rnd.id).get(seat.id)
        current = mine.text if mine and mine.source != "bot" else ""  # the bot's orders are not the player's
    return {"round": game.current_round if game.status == "active" else None,
            "units": {unit: [o.format() for o in orders] for unit, orders in legal.items()},
            "legal": {unit: [o.to_json() for o in orders] for unit, orders in legal.items()},
            "current": current}


def latest_step(session: Session, game_id: str) -> Step | None:
    return session.scalars(
        select(Step).where(Step.game_id == game_id).order_by(Step.t.desc()).limit(1)
    ).first()


def step_of_round(session: Session, game_id: str, number: int) -> Step:
    step = session.scalars(select(Step).where(Step.game_id == game_id, Step.t == number + 1)).first()
    if step is None:
        raise NotFound(f"round {number} of game {game_id!r} is not resolved")
    return step


def round_json(session: Session, game_id: str, number: int) -> dict[str, Any]:
    with session.begin():
        get_game(session, game_id)
        step = step_of_round(session, game_id, number)
        return {"round": number, "step": step.t, "events": step.events, "rolls": step.rolls,
                "key": step.key, "state_hash": step.state_hash, "inputs": step.inputs}


def record_json(session: Session, game_id: str, viewer: str | None = None) -> dict[str, Any]:
    """The dicepost-record/1 of a game, built by engine.record (replayable as it stands),
    with the messages `viewer` may read (a seat's name, "gm", or None: the public talk)."""
    with session.begin():
        return game_record(session, get_game(session, game_id), viewer=viewer)


def game_record(session: Session, game: Game, upto: int | None = None,
                viewer: str | None = None) -> dict[str, Any]:
    """The game's record; with `upto`, the record as it stood when step `upto` was
    resolved (the results mail's attachment): later steps, versions, bot rounds and
    schedule entries left out, and no outcome unless that step was the last. Its
    `messages` are those `viewer` may read (service.messages), outside the dice chain."""
    seats = list(game.seats)
    # The states are not in the record (each step's hash is): reading them was much of its
    # cost on large armies.
    query = select(Step).where(Step.game_id == game.id).options(defer(Step.state))
    if upto is not None:
        query = query.where(Step.t <= upto)
    steps = session.scalars(query.order_by(Step.t)).all()
    if [s.t for s in steps] != list(range(1, len(steps) + 1)):  # a record must be whole to verify
        check_steps(session, game.id, steps[-1] if steps else None)
    later = upto is not None and session.scalar(
        select(Step.id).where(Step.game_id == game.id, Step.t > upto).limit(1)) is not None
    players = [s.name for s in seats]
    entropy = {s.name: bytes.fromhex(s.entropy) for s in seats if s.entropy}
    extra = record_extra(session, game, viewer)  # GM actions, missed turns, a GM's ending
    status, outcome = game.status, game.outcome
    snapshot = later or (upto is not None and game.status != "finished")
    if snapshot:
        until = steps[-1].created_at.isoformat() if steps else ""
        extra["schedule_log"] = [e for e in extra["schedule_log"] if e["at"] <= until]
        extra["messages"] = [m for m in extra["messages"] if m["at"] <= until]
        extra.pop("gm_ending", None)
        extra.pop("outcome", None)
        status, outcome = ("active" if later else game.status), (None if later else game.outcome)
    if is_bound(game):
        extra.update(record_fields(session, game, seats, len(steps) - 1, snapshot))
    if game.links_skipped:  # the rounds rolled back, as they stood, before the steps that replaced them
        rolled = record_rollbacks(session, game.id)
        if snapshot and steps:  # those made before step `upto` was resolved: their links came before its
            last = steps[-1].link or steps[-1].t
            rolled = [rb for rb in rolled if max(s.get("link", s["t"]) for s in rb["steps"]) < last]
        if rolled:
            extra["rollbacks"] = rolled
    return build_record(
        game_id=game.id, ruleset=game.ruleset, commitment=bytes.fromhex(game.commitment),
        players=[p for p in players if p in entropy], entropy=entropy,
        salt=bytes.fromhex(game.salt) if game.salt else b"",
        steps=[record_step_json(s) for s in steps],
        chain_length=game.chain_length,
        extra={"title": game.title, "status": status, "outcome": outcome,
               "options": game.options,
               "entropy_source": {s.name: s.entropy_source for s in seats if s.entropy},
               **extra},
        profile=game_profile(game),
    )


def record_step_json(step: Step) -> dict[str, Any]:
    """A stored step as the record writes it before sealing (engine.record.build_record): its
    chain link too, when a rollback made it other than its t."""
    out: dict[str, Any] = {"t": step.t, "inputs": step.inputs, "key": step.key, "rolls": step.rolls,
                           "events": step.events, "state_hash": step.state_hash}
    if step.link is not None:
        out["link"] = step.link
    return out


def board_of(game: Game, step: Step | None) -> Board | None:
    if step is None:
        return None
    return find_ruleset(game.ruleset, game.revision).board(loaded_state(game, step))
