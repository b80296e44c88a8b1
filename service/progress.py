"""Storing a played step and moving the game on: the one writer of steps, round openings,
game ends and the audit entries that go with them, for setup (service.games), resolution
(service.resolution) and anything else that moves a game along.

The step row holds the inputs, their digest D_t, the revealed chain link S_t, the new
state with its hash, the events and the rolls. Then either the game ends (outcome, or the
dice chain is used up) or the next round opens, ready at once when nobody is expected to
move. Every row of that change (step, results mails, audit entries, the round or the
game's end, the game's own columns) goes to the database in one statement of SQLAlchemy
Core (service.db.insert_together), whoever read the inputs and however (ORM objects or
columns): the writers take what they need as `GameFacts` and `SeatFacts`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, NamedTuple, Protocol

from sqlalchemy import Table, bindparam, func, select
from sqlalchemy.orm import Session, joinedload
from sqlalchemy.orm.attributes import set_committed_value
from sqlalchemy.orm.util import identity_key

from engine import StepResult
from engine.dice import inputs_digest
from service import clock, follow
from service.audit import audit_row
from service.db import insert_together, table_of
from service.mail.outbox import outbox_values, seat_wants
from service.models import Game, Outbox, RatedGame, Round, Step
from service.notify import notify
from service.rollback_chain import RESERVE_OPTION
from service.schedule.deadlines import parse_absences, round_deadline
from service.schedule.policy import parse_policy
from service.tasks import deliver_id_after_commit, rate_after_commit, resolve_after_commit
from service.timekeeping.open_close import round_opened
from service.timekeeping.state import read_schedules, seat_schedule

# Rows to insert: (table, column values), for service.db.insert_together.
Rows = list[tuple[Table, Mapping[str, Any]]]


class GameFacts(Protocol):
    """What the writers read of a game: a `Game`, or a reader's columns of it."""

    @property
    def id(self) -> str: ...
    @property
    def chain_length(self) -> int: ...
    @property
    def options(self) -> dict[str, Any]: ...
    @property
    def links_skipped(self) -> int: ...
    @property
    def deadline_policy(self) -> dict[str, Any] | None: ...


class ChainFacts(Protocol):
    @property
    def chain_length(self) -> int: ...
    @property
    def options(self) -> dict[str, Any]: ...


def steps_limit(game: ChainFacts) -> int:
    """The game's most steps: its chain's links but those kept for rollbacks."""
    return game.chain_length - int((game.options or {}).get(RESERVE_OPTION) or 0)


class SeatFacts(Protocol):
    """What the writers read of a seat: its mail preferences, its schedule's controller and
    absences (a seat without a schedule row: "human", none)."""

    @property
    def id(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def email(self) -> str | None: ...
    @property
    def mail_pref(self) -> str: ...
    @property
    def message_pref(self) -> str: ...
    @property
    def controller(self) -> str: ...
    @property
    def absences(self) -> list[Any]: ...


class SeatRow(NamedTuple):
    """SeatFacts of an ORM seat (`seat_facts`)."""

    id: int
    name: str
    email: str | None
    mail_pref: str
    message_pref: str
    controller: str
    absences: list[Any]


def seat_facts(session: Session, game: Game) -> list[SeatRow]:
    """The game's seats as the writers read them, in seat order (their schedule rows read
    in one statement). A seat without a schedule row gets one now, with the defaults, so the
    game's later transactions (two sweepers at once) update it rather than race to add it."""
    read_schedules(session, game)
    rows = [seat_schedule(session, s) for s in game.seats]
    return [SeatRow(s.id, s.name, s.email, s.mail_pref, s.message_pref, row.controller, row.absences or [])
            for s, row in zip(game.seats, rows, strict=True)]


def record_step(session: Session, game: GameFacts, seats: Sequence[SeatFacts], result: StepResult,
                s_t: bytes, profile: str, *, resolved: int | None = None, followed: bool = True) -> None:
    """Store step `result.t` with every seat's results mail, then finish the game or open the
    next round, in one statement.

    profile: the game's fair-dice profile (service.fairdice), for the inputs' digest.
    resolved: the round this step resolved (its audit entry is written with it); None for setup.
    followed: False when the caller knows that nobody follows the game by mail (no query)."""
    t = result.t
    now = clock.now()
    rows: Rows = [(table_of(Step), {
        "game_id": game.id, "t": t, "inputs": result.inputs,
        "inputs_digest": inputs_digest(result.inputs, profile).hex(), "key": s_t.hex(),
        # the chain link that keyed it (dice_keys.step_link), when rollbacks made it other than t
        "link": t + game.links_skipped if game.links_skipped else None,
        "state": result.state, "state_hash": result.state_hash, "events": result.events,
        "rolls": result.rolls, "created_at": now})]
    # Step 1 too: the start mail shows the first grid, the setup rolls and S_1 (round 0).
    rows += _mails(game.id, seats, "results", {"round": t - 1, "step": t}, now)
    if resolved is not None:
        rows.append(audit_row(game.id, "service", "resolved", {"round": resolved, "step": t}, now))
    if t > 1 and followed:
        follow.mail_round(session, _orm_game(session, game), t - 1, t)
    if resolved is not None:
        notify(session, game.id, "round_resolved", {"round": resolved, "step": t})
    elif t == 1:
        notify(session, game.id, "game_started", {"seats": [s.name for s in seats]})
    if result.outcome is not None:
        finish_game(session, game, seats, result.outcome, rows)
    elif t + 1 > steps_limit(game):
        finish_game(session, game, seats, {"winners": [], "draw": True,
                                           "reason": "the game's dice chain is used up"}, rows)
    else:
        open_round(session, game, seats, t, result.expected, rows)


def open_round(session: Session, game: GameFacts, seats: Sequence[SeatFacts], number: int,
               expected: Sequence[str], rows: Sequence[tuple[Table, Mapping[str, Any]]] = ()) -> int:
    """Open round `number` (round r follows step r: setup is step 1, round r is resolved by
    step r+1) with its deadline, the game's current round moved to it, and `rows` (the rest
    of the same change) inserted with it in one statement; the round's id.

    A round nobody is expected to move in is ready at once; in one where a bot plays, the
    bots write their orders and the round may close at once (timekeeping.open_close)."""
    now = clock.now()
    moving = [s for s in seats if s.name in expected]
    humans = [s for s in moving if s.controller == "human"]
    absences = [a for s in humans for a in parse_absences(s.absences)]
    closes_at = round_deadline(parse_policy(game.deadline_policy), now, absences) if expected else None
    values = {"game_id": game.id, "number": number, "status": "open" if expected else "ready",
              "expected": list(expected), "opened_at": now, "closes_at": closes_at}
    ids = _write(session, game, [*rows, (table_of(Round), values)], {"current_round": number})
    round_id = ids[-1]
    if humans:
        notify(session, game.id, "round_opened", {
            "round": number, "expected": [s.name for s in humans],
            "deadline": closes_at.isoformat() if closes_at else None})
    if not expected:
        resolve_after_commit(session, game.id, number, game.links_skipped or 0)
    elif not humans or any(s.controller == "bot" for s in moving):
        orm_game = _orm_game(session, game, with_seats=True)
        rnd = session.get(Round, round_id)
        if rnd is None:
            raise LookupError(f"round {number} of game {game.id} vanished in its own transaction")
        round_opened(session, orm_game, rnd)
    return round_id


def finish_game(session: Session, game: GameFacts, seats: Sequence[SeatFacts], outcome: dict[str, Any],
                rows: Sequence[tuple[Table, Mapping[str, Any]]] = ()) -> None:
    """End the game with `outcome`: its audit entry and every seat's game-over mail, with
    `rows` (the rest of the same change) in one statement."""
    now = clock.now()
    ending = [*rows, audit_row(game.id, "service", "finished", outcome, now),
              *_mails(game.id, seats, "game_over", {"outcome": outcome}, now)]
    session.add(RatedGame(game_id=game.id, finished_at=now, status="pending"))  # the ratings' to-do
    _write(session, game, ending, {"status": "finished", "outcome": outcome})
    notify(session, game.id, "game_over", {"outcome": outcome})
    rate_after_commit(session)


def _mails(game_id: str, seats: Sequence[SeatFacts], kind: str, payload: dict[str, Any],
           now: datetime) -> Rows:
    """The outbox rows of one mail to every seat that wants it (service.mail.outbox.enqueue's rules)."""
    rows: Rows = []
    for seat in seats:
        values = outbox_values(kind, payload, game_id, seat.id, seat.email, seat_wants(kind, seat))
        if values is not None:
            rows.append((table_of(Outbox), {**values, "created_at": now}))
    return rows


def _write(session: Session, game: GameFacts, rows: Rows, changed: dict[str, Any]) -> list[int]:
    """Insert the rows and change the game's columns in one statement (after what the session
    holds unwritten, so ids keep the order things happened in); each mail is delivered once
    the transaction commits. A `Game` the session holds keeps the columns as stored."""
    session.flush()
    games = table_of(Game)
    ids = insert_together(session.connection(), rows, (games, game.id, changed))
    outbox = table_of(Outbox)
    for (table, _values), row_id in zip(rows, ids, strict=True):
        if table is outbox:
            deliver_id_after_commit(session, row_id)
    loaded = session.identity_map.get(identity_key(Game, game.id))
    if loaded is not None:
        for name, value in changed.items():
            set_committed_value(loaded, name, value)
    return ids


# populate_existing: a Game the session kept from an earlier transaction is read again.
_GAME_WITH_SEATS = (select(Game).options(joinedload(Game.seats)).where(Game.id == bindparam("game_id"))
                    .execution_options(populate_existing=True))


def _orm_game(session: Session, game: GameFacts, with_seats: bool = False) -> Game:
    """The game as an ORM object, for the work done through the ORM (bots' orders, an early
    close, followers' mail); read only when a caller passed columns."""
    if isinstance(game, Game):
        return game
    if with_seats:
        found = session.scalars(_GAME_WITH_SEATS, {"game_id": game.id}).unique().one()
        read_schedules(session, found)
        return found
    loaded = session.get(Game, game.id)
    if loaded is None:
        raise LookupError(f"game {game.id} vanished in its own transaction")
    return loaded


def steps_count(session: Session, game_id: str) -> int:
    return int(session.scalar(select(func.count()).select_from(Step).where(Step.game_id == game_id))
               or 0)
