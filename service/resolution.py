"""Resolution: a ready round resolved exactly once.

`claim_ready` locks and claims the round in one conditional UPDATE (PostgreSQL: the
second of two racing resolvers waits for the first's row lock, then matches nothing;
SQLite: every transaction is BEGIN IMMEDIATE), so of two tasks resolving the same round
one wins and the other does nothing; a submission racing it (service.submit) is either
included or refused with 409.

`resolve_ready` is what a worker's task runs: its own round, then, on PostgreSQL, other
ready rounds no one holds (`claim_next`, `FOR UPDATE SKIP LOCKED`), each in its own
transaction, up to a bound, so one task message carries several rounds. A round taken
that way is resolved once all the same: its own task later finds it resolved.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any, NamedTuple

from sqlalchemy import (
    Boolean,
    ColumnElement,
    Engine,
    Integer,
    Table,
    bindparam,
    func,
    literal,
    literal_column,
    null,
    or_,
    select,
    true,
    type_coerce,
    union_all,
    update,
)
from sqlalchemy.orm import Session, joinedload
from sqlalchemy.orm.attributes import set_committed_value
from sqlalchemy.orm.util import identity_key

from engine import StepResult, round_inputs, run_round
from engine.contract import InvariantError
from engine.dice import chain_link_ok, inputs_digest
from service import caches, clock
from service.audit import audit, audit_row
from service.db import insert_together, table_of
from service.dice_keys import step_dice, step_link
from service.fairdice import options_profile, profile_input_text
from service.faults import pause_point
from service.integrity import DamagedData, LatestStep, current_state, damaged, mark_damaged
from service.mail.outbox import outbox_values, seat_wants
from service.models import Follower, Game, Outbox, Round, Seat, SeatSchedule, Step, Submission
from service.progress import record_step, steps_limit
from service.rollback_chain import revealed_link
from service.schedule.deadlines import parse_absences, round_deadline
from service.schedule.policy import parse_policy
from service.tasks import deliver_id_after_commit
from service.timekeeping.state import read_schedules

log = logging.getLogger(__name__)


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


# One task's extra rounds: a few dozen spread the task's own cost (a Celery message with
# late acks is several Redis round trips) without keeping its round waiting long.
BATCH_ROUNDS = 32
BATCH_SECONDS = 0.2
# Rounds this process found damaged while taking extra rounds: not taken again as extras
# (they stay ready for the GM; their own task and the sweeper still ring for them).
_damaged_extras: set[int] = set()
_DAMAGED_KEPT = 1024


# Rounds this process resolved (committed) on PostgreSQL, by database and by the game's
# links skipped by rollbacks: a round's own doorbell that arrives after a task took the
# round along is answered from here, with no connection or statement (a resolved round is
# ready again only after a rollback, which changes the key). Bounded; other processes'
# rounds still cost the doorbell its one claim statement.
def _resolved() -> caches.Cache[tuple[str, str, int, int], bool]:
    return caches.named("rounds resolved here", 4096)


def _remember(session: Session, game_id: str, number: int, skipped: int) -> None:
    bind = session.get_bind()
    if bind.dialect.name == "postgresql":
        _resolved().put((str(bind.engine.url), game_id, number, skipped), True)


def resolved_here(engine: Engine, game_id: str, number: int, skipped: int = 0) -> bool:
    """Whether this process resolved (and committed) round `number` of the game there, with
    `skipped` links skipped by rollbacks (a round rolled back is ready again: another key)."""
    return (str(engine.url), game_id, number, skipped) in _resolved()


def resolve_ready(session: Session, game_id: str, number: int, *, rounds: int = BATCH_ROUNDS,
                  seconds: float = BATCH_SECONDS) -> tuple[bool, int]:
    """Resolve round `number` of a game if it is ready, then up to `rounds` - 1 other
    ready rounds that no one else holds, for at most about `seconds` (PostgreSQL only:
    SQLite has no SKIP LOCKED, and there the tasks run in process, one round each).

    (this call resolved its own round, how many rounds it resolved in all).
    """
    own = resolve_round(session, game_id, number)
    done = int(own)
    if session.get_bind().dialect.name != "postgresql":
        return own, done
    end = time.monotonic() + seconds
    tried: set[int] = set()
    while done < rounds and time.monotonic() < end:
        rnd_id = _resolve_next(session, tried)
        if rnd_id is None:
            break
        tried.add(abs(rnd_id))
        if rnd_id > 0:
            done += 1
    return own, done


def _resolve_next(session: Session, tried: set[int]) -> int | None:
    """Resolve one ready round no one holds: its id (negated when its data turned out
    damaged: the round stays ready), None when there is none."""
    rnd_id = 0
    try:
        with session.begin():
            claimed = claim_next(session, tried | _damaged_extras)
            if claimed is None:
                return None
            rnd_id, game_id, number = claimed.id, claimed.game_id, claimed.number
            skipped = _resolve_claimed(session, claimed)
    except DamagedData as exc:
        if len(_damaged_extras) < _DAMAGED_KEPT:
            _damaged_extras.add(rnd_id)
        mark_damaged(exc.game_id, exc.problem)  # the failed transaction is over: a new one
        return -rnd_id
    _remember(session, game_id, number, skipped)
    log.info("resolved %s round %d", game_id, number)
    return rnd_id


class Claimed(NamedTuple):
    """The round a claim changed from ready to resolved."""

    id: int
    game_id: str
    number: int


def claim_next(session: Session, skip: set[int]) -> Claimed | None:
    """Claim the oldest ready round that no other transaction holds (PostgreSQL), or
    None. A round locked by a resolver or a submission is passed over, not waited for."""
    return _claim(session, _CLAIM_NEXT, {"skip": sorted(skip)})


def claim_ready(session: Session, game_id: str, number: int) -> Claimed | None:
    """Lock and claim a ready round for resolution in one statement; None if it is not
    ready (not closed yet, or another resolver claimed it first: on PostgreSQL the
    second UPDATE waits for the first's row lock, then finds the status changed)."""
    return _claim(session, _CLAIM_READY, {"b_game_id": game_id, "b_number": number})


def _claim_statement(*which: ColumnElement[bool]) -> Any:
    """The round `which` picks changed from ready to resolved, in one statement built once."""
    return (update(Round).where(*which, Round.status == "ready")
            .values(status="resolved", resolved_at=bindparam("b_now", type_=Round.resolved_at.type))
            .returning(Round.id, Round.game_id, Round.number))


_CLAIM_READY = _claim_statement(Round.game_id == bindparam("b_game_id"),
                                Round.number == bindparam("b_number"))
_CLAIM_NEXT = _claim_statement(Round.id == (
    select(Round.id).where(Round.status == "ready", Round.id.not_in(bindparam("skip", expanding=True)))
    .order_by(Round.id).limit(1).with_for_update(skip_locked=True).scalar_subquery()))


def _claim(session: Session, statement: Any, params: dict[str, Any]) -> Claimed | None:
    row = session.connection().execute(statement, {**params, "b_now": clock.now()}).first()
    return Claimed(*row) if row is not None else None


def _resolve_round(session: Session, game_id: str, number: int) -> bool:
    with session.begin():
        rnd = claim_ready(session, game_id, number)
        if rnd is None:
            return False
        skipped = _resolve_claimed(session, rnd)
    _remember(session, game_id, number, skipped)
    log.info("resolved %s round %d", game_id, number)
    return True


def _resolve_claimed(session: Session, rnd: Claimed) -> int:
    """Resolve the round this transaction claimed: the step stored, the next round opened,
    the audit row and the results mails queued. The game's links skipped by rollbacks."""
    game_id, number = rnd.game_id, rnd.number
    game, followed, latest, count, seats = _read_round(session, rnd)
    previous, _state = current_state(session, game, latest, count)
    if previous.t != number:  # round r follows step r
        raise damaged(game_id, f"round {number} is ready but the latest step is {previous.t}")
    profile = options_profile(game.options)
    texts = {s.name: profile_input_text(profile, s.accepted) for s in seats if s.accepted}
    inputs = round_inputs([s.name for s in seats], texts)
    t = number + 1
    dice, s_t = step_dice(game, t, inputs)
    link = step_link(game, t)
    before = previous.key if not game.links_skipped else revealed_link(session, game_id, link - 1)
    if before is None or not chain_link_ok(s_t, bytes.fromhex(before), profile):  # no die from a wrong link
        raise damaged(game_id, f"the dice chain's link S_{link} does not follow the S_{link - 1} revealed "
                               "before it: the sealed tip or marks are wrong")
    try:
        result = run_round(game.ruleset, previous.state, inputs, t, dice, revision=game.revision)
    except Exception as exc:  # the rules failed on a state that loads: the GM must look
        log.exception("game %s: resolving round %d failed", game_id, number)
        raise damaged(game_id, f"resolving round {number} failed ({type(exc).__name__}: "
                               f"{str(exc)[:200]})") from exc
    if followed or not _store_usual(session, game, seats, rnd, result, s_t, profile):
        orm_game = session.scalars(_GAME_WITH_SEATS, {"game_id": game_id}).unique().one()
        read_schedules(session, orm_game)  # before the new rows: opening the next round needs no query
        record_step(session, orm_game, result, s_t, link)
        audit(session, game_id, "service", "resolved", {"round": number, "step": t})
    pause_point("resolve")  # tests only: kill a worker mid-resolution (service.faults)
    return game.links_skipped


@dataclass
class GameColumns:
    """The columns of a game that resolving its round reads (`ChainGame`, `GameLike`); a
    plain object, so `chain_link` sees the sealed marks as read (`vars`), never a query."""

    id: str
    ruleset: str
    status: str
    current_round: int
    chain_length: int
    sealed_tip: str
    sealed_marks: bytes | None
    salt: str | None
    options: dict[str, Any]
    deadline_policy: dict[str, Any] | None
    revision: int
    links_skipped: int


class SeatColumns(NamedTuple):
    """A seat as the resolution reads it: its schedule's controller and absences (a seat
    without a schedule row: "human", none) and the accepted text of its latest version in
    the round ("" when it has none, or withdrew: an empty accepted text)."""

    id: int
    name: str
    email: str | None
    mail_pref: str
    message_pref: str
    controller: str
    absences: list[Any]
    accepted: str


# After the claim (a statement that waited for the round's lock would read with the
# snapshot from before the wait), in one statement built once: a first row with the
# game's columns, its sealed chain marks, whether anyone follows it by mail
# (follow.mail_round's rule: confirmed; of a private game, through a spectator link) and
# its latest step's number, state and key with the step count (for current_state's
# checks); then a row per seat in seat order. UNION ALL, so the game's and the step's
# columns are not repeated per seat.
_FOLLOWED = (select(Follower.id).where(
    Follower.game_id == Game.id, Follower.confirmed_at.is_not(None),
    or_(Game.public, Follower.spectator_id.is_not(None))).exists())
_LATEST = (select(Step.t, Step.state, Step.key, func.count().over().label("steps"))
           .where(Step.game_id == bindparam("game_id")).order_by(Step.t.desc()).limit(1).subquery())
_LATEST_ACCEPTED = (select(Submission.accepted)
                    .where(Submission.round_id == bindparam("round_id"), Submission.seat_id == Seat.id)
                    .order_by(Submission.version.desc()).limit(1).scalar_subquery())


def _none(of: Any) -> Any:
    """NULL of a column's type (or of a type): the first SELECT's types process every row's values."""
    return type_coerce(null(), getattr(of, "type", of))


_ROUND_COLUMNS = union_all(
    select(literal(-1).label("pos"), Game.ruleset, Game.status, Game.current_round, Game.chain_length,
           Game.sealed_tip, Game.sealed_marks, Game.salt, Game.options, Game.deadline_policy,
           _FOLLOWED.label("followed"), _LATEST.c.t, _LATEST.c.state, _LATEST.c.key, _LATEST.c.steps,
           _none(Seat.id), _none(Seat.name), _none(Seat.email), _none(Seat.mail_pref),
           _none(Seat.message_pref), _none(SeatSchedule.controller), _none(SeatSchedule.absences),
           _none(Submission.accepted), Game.revision, Game.links_skipped)
    .select_from(Game).outerjoin(_LATEST, true()).where(Game.id == bindparam("game_id")),
    select(Seat.seat_index, _none(Game.ruleset), _none(Game.status), _none(Game.current_round),
           _none(Game.chain_length), _none(Game.sealed_tip), _none(Game.sealed_marks), _none(Game.salt),
           _none(Game.options), _none(Game.deadline_policy), _none(Boolean()), _none(Step.t),
           _none(Step.state), _none(Step.key), _none(Integer()), Seat.id, Seat.name, Seat.email,
           Seat.mail_pref, Seat.message_pref, SeatSchedule.controller, SeatSchedule.absences,
           _LATEST_ACCEPTED, _none(Game.revision), _none(Game.links_skipped))
    .select_from(Seat).outerjoin(SeatSchedule, SeatSchedule.seat_id == Seat.id)
    .where(Seat.game_id == bindparam("game_id")),
).order_by(literal_column("pos"))

# The game as ORM objects with its seats, for record_step's path (any round but the usual one).
_GAME_WITH_SEATS = select(Game).options(joinedload(Game.seats)).where(Game.id == bindparam("game_id"))


def _read_round(session: Session, rnd: Claimed) -> tuple[
        GameColumns, bool, LatestStep | None, int, list[SeatColumns]]:
    """The game's columns, whether anyone follows it, its latest step (None: it has none),
    its step count and its seats, in one statement."""
    rows = session.connection().execute(_ROUND_COLUMNS, {"game_id": rnd.game_id, "round_id": rnd.id}).all()
    if not rows or rows[0][0] != -1:
        raise InvariantError(f"round {rnd.number} of game {rnd.game_id} has no game")
    g = rows[0]
    game = GameColumns(rnd.game_id, g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8], g[9], g[23],
                       int(g[24] or 0))
    latest = LatestStep(g[11], g[12], g[13]) if g[11] is not None else None
    seats = [SeatColumns(r[15], r[16], r[17], r[18], r[19], r[20] if r[20] is not None else "human",
                         r[21] or [], r[22] or "") for r in rows[1:]]
    return game, bool(g[10]), latest, int(g[14] or 0), seats


def _store_usual(session: Session, game: GameColumns, seats: list[SeatColumns], rnd: Claimed,
                 result: StepResult, s_t: bytes, profile: str) -> bool:
    """record_step and the audit row for the usual round, in one statement of SQLAlchemy
    Core: the game goes on and the next round waits for people only (no bot moves in it,
    so nothing closes it at once); the caller knows no one follows the game by mail. False (nothing done)
    for any other round: record_step's ORM path handles it."""
    t, number = result.t, rnd.number
    if result.outcome is not None or t + 1 > steps_limit(game) or not result.expected:
        return False
    expected = [s for s in seats if s.name in result.expected]
    controllers = [s.controller for s in expected]
    if "bot" in controllers or "human" not in controllers:
        return False
    now = clock.now()
    absences = [a for s in expected if s.controller == "human" for a in parse_absences(s.absences)]
    step_values = {"game_id": game.id, "t": t, "inputs": result.inputs,
                   "inputs_digest": inputs_digest(result.inputs, profile).hex(),
                   "key": s_t.hex(), "link": step_link(game, t) if game.links_skipped else None,
                   "state": result.state, "state_hash": result.state_hash,
                   "events": result.events, "rolls": result.rolls, "created_at": now}
    rows: list[tuple[Table, dict[str, Any]]] = [(table_of(Step), step_values)]
    for seat in seats:  # the results mail of every seat that wants it (enqueue's rules)
        values = outbox_values("results", {"round": t - 1, "step": t}, game.id, seat.id, seat.email,
                               seat_wants("results", seat))
        if values is not None:
            rows.append((table_of(Outbox), {**values, "created_at": now}))
    rows.append(audit_row(game.id, "service", "resolved", {"round": number, "step": t}, now))
    rows.append((table_of(Round), {
        "game_id": game.id, "number": t, "status": "open", "expected": list(result.expected),
        "opened_at": now, "closes_at": round_deadline(parse_policy(game.deadline_policy), now, absences)}))
    ids = insert_together(session.connection(), rows, (table_of(Game), game.id, {"current_round": t}))
    loaded = session.identity_map.get(identity_key(Game, game.id))
    if loaded is not None:  # a Game this session holds stays as stored
        set_committed_value(loaded, "current_round", t)
    for outbox_id in ids[1:-2]:
        deliver_id_after_commit(session, outbox_id)
    return True
