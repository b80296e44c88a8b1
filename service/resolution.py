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
from sqlalchemy.orm import Session

from engine import StepResult, round_inputs, run_round
from engine.contract import InvariantError
from engine.dice import chain_link_ok
from service import caches, clock
from service.dice_keys import step_dice, step_link
from service.fairdice import options_profile, profile_input_text
from service.faults import pause_point
from service.integrity import DamagedData, LatestStep, current_state, damaged, mark_damaged
from service.models import Follower, Game, Round, Seat, SeatSchedule, Step, Submission
from service.progress import SeatRow, record_step
from service.rollback_chain import revealed_link

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
    return Claimed(row.id, row.game_id, row.number) if row is not None else None


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
    """Resolve the round this transaction claimed: the step stored with the audit row and
    the results mails, the next round opened or the game finished (service.progress). The
    game's links skipped by rollbacks."""
    played = play_claimed(session, rnd)
    record_step(session, played.game, played.seats, played.result, played.s_t, played.profile,
                resolved=rnd.number, followed=played.followed)
    pause_point("resolve")  # tests only: kill a worker mid-resolution (service.faults)
    return played.game.links_skipped


class PlayedRound(NamedTuple):
    """A claimed round played, nothing stored yet: what service.progress.record_step stores."""

    game: GameColumns
    seats: list[SeatRow]
    followed: bool  # someone follows the game by mail
    result: StepResult
    s_t: bytes
    profile: str


def play_claimed(session: Session, rnd: Claimed) -> PlayedRound:
    """The round this transaction claimed, read in one statement, checked and played by
    its rules (DamagedData when the stored data does not allow it)."""
    game_id, number = rnd.game_id, rnd.number
    game, followed, latest, count, seats, accepted = _read_round(session, rnd)
    previous, _state = current_state(session, game, latest, count)
    if previous.t != number:  # round r follows step r
        raise damaged(game_id, f"round {number} is ready but the latest step is {previous.t}")
    profile = options_profile(game.options)
    texts = {name: profile_input_text(profile, text) for name, text in accepted.items() if text}
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
    return PlayedRound(game, seats, followed, result, s_t, profile)


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
           _FOLLOWED.label("followed"), _LATEST.c.t.label("step_t"), _LATEST.c.state.label("step_state"),
           _LATEST.c.key.label("step_key"), _LATEST.c.steps,
           _none(Seat.id).label("seat_id"), _none(Seat.name).label("name"), _none(Seat.email).label("email"),
           _none(Seat.mail_pref).label("mail_pref"), _none(Seat.message_pref).label("message_pref"),
           _none(SeatSchedule.controller).label("controller"),
           _none(SeatSchedule.absences).label("absences"), _none(Submission.accepted).label("accepted"),
           Game.revision, Game.links_skipped)
    .select_from(Game).outerjoin(_LATEST, true()).where(Game.id == bindparam("game_id")),
    select(Seat.seat_index, _none(Game.ruleset), _none(Game.status), _none(Game.current_round),
           _none(Game.chain_length), _none(Game.sealed_tip), _none(Game.sealed_marks), _none(Game.salt),
           _none(Game.options), _none(Game.deadline_policy), _none(Boolean()), _none(Step.t),
           _none(Step.state), _none(Step.key), _none(Integer()), Seat.id, Seat.name, Seat.email,
           Seat.mail_pref, Seat.message_pref, SeatSchedule.controller, SeatSchedule.absences,
           _LATEST_ACCEPTED, _none(Game.revision), _none(Game.links_skipped))
    .select_from(Seat).outerjoin(SeatSchedule, SeatSchedule.seat_id == Seat.id)
    .where(Seat.game_id == bindparam("game_id")),
).order_by(literal_column("pos"))  # a UNION's columns are named by its first SELECT


def _read_round(session: Session, rnd: Claimed) -> tuple[
        GameColumns, bool, LatestStep | None, int, list[SeatRow], dict[str, str]]:
    """The game's columns, whether anyone follows it, its latest step (None: it has none),
    its step count, its seats (a seat without a schedule row: "human", no absences) and the
    accepted text of each seat's latest version in the round ("" when it has none, or
    withdrew: an empty accepted text), in one statement."""
    rows = session.connection().execute(_ROUND_COLUMNS, {"game_id": rnd.game_id, "round_id": rnd.id}).all()
    if not rows or rows[0].pos != -1:
        raise InvariantError(f"round {rnd.number} of game {rnd.game_id} has no game")
    g = rows[0]
    game = GameColumns(rnd.game_id, g.ruleset, g.status, g.current_round, g.chain_length, g.sealed_tip,
                       g.sealed_marks, g.salt, g.options, g.deadline_policy, g.revision,
                       int(g.links_skipped or 0))
    latest = LatestStep(g.step_t, g.step_state, g.step_key) if g.step_t is not None else None
    seats = [SeatRow(r.seat_id, r.name, r.email, r.mail_pref, r.message_pref,
                     r.controller if r.controller is not None else "human", r.absences or [])
             for r in rows[1:]]
    accepted = {r.name: r.accepted or "" for r in rows[1:]}
    return game, bool(g.followed), latest, int(g.steps or 0), seats, accepted
