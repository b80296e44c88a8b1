"""Orders in: a player's orders for the open round, checked and stored (every version kept).

`submit` locks the round row first (PostgreSQL: SELECT ... FOR UPDATE; SQLite: every
transaction is BEGIN IMMEDIATE), so a submission racing the resolution
(service.resolution) is either included in it or refused with 409, never silently
dropped. In the same transaction: the audit row, the confirmation mail's outbox row and,
when every expected player is in, the round's early close.

A submission is three statements of SQLAlchemy Core and no ORM objects: the token, the
game, the round's lock and the latest step in one SELECT; after the lock (a READ COMMITTED
snapshot taken before it could miss a version another submission stored meanwhile), each
seat's latest version and controller in a second; the submission, audit and outbox rows
in a third (on PostgreSQL; one INSERT each on SQLite). When the first finds nothing to
take orders (a bad token, a closed round, a damaged step), the ORM checks say why, each
refusal its own; and only when every expected person is in does the early close load the
game to decide as `service.timekeeping.open_close` does.

Sending and being ready are apart: `ready` (True: these are my final orders; False: I may
change them, wait for me) is remembered per seat as its wait flag (the settings' `wait`,
inverted), so None keeps what the player last chose. The round closes early only when
every expected person has sent orders and is ready.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from functools import lru_cache
from typing import Any, NoReturn

from sqlalchemy import BindParameter, Connection, Executable, and_, bindparam, func, select
from sqlalchemy.orm import Session, joinedload

from engine import OrderErrors, find_ruleset
from engine.contract import InvariantError
from engine.orders import Order, OrderError, format_orders
from service import clock, statecache
from service.audit import audit_row, log_action
from service.clock import as_utc
from service.db import insert_together, table_of
from service.errors import Conflict, Invalid, NotFound, OrdersRefused
from service.fairdice import counted_orders, options_profile, options_receipt_hex, profile_input_text
from service.games import seat_by_token
from service.inputs import whole_number
from service.integrity import latest_state, load_state
from service.mail.outbox import outbox_values, wanted
from service.models import Game, Outbox, Round, Seat, SeatSchedule, Step, Submission
from service.submissions import lock_round, submission_row
from service.tasks import deliver_id_after_commit
from service.timekeeping.open_close import early_close_allowed, mark_ready
from service.timekeeping.state import seat_schedule
from service.tokens import token_hash

SOURCES = ("web", "api", "mail")  # what a player submits through (bots: service.timekeeping.open_close)


@dataclass(frozen=True)
class Accepted:
    round: int
    lines: list[str]
    version: int
    ready: bool  # the round is closed: it waits for nobody now
    receipt: str = ""  # v2: H(profile, "receipt", game, round, seat, version, text), hex
    at: str = ""  # when the version was stored (ISO 8601)
    player_ready: bool = True  # the sender is ready (not waiting): see the module's docstring
    counted: str = ""  # the text the receipt is of: the orders as they count ("" for none)
    profile: str = ""  # the game's dice profile


@dataclass(frozen=True)
class _Open:
    """What a submission needs of its seat, game, round and latest step, all checked."""

    game_id: str
    ruleset: str
    options: Mapping[str, Any] | None
    seat_id: int
    seat_name: str
    email: str | None
    mail_pref: str
    round_id: int
    number: int
    round_status: str
    expected: list[str]
    t: int
    state: Mapping[str, Any]
    revision: int  # the game's rules revision


@dataclass(frozen=True)
class _SeatNow:
    """A seat of the game as the locked round finds it."""

    id: int
    name: str
    controller: str  # human, bot, open or removed (service.timekeeping.state)
    moved: bool  # its latest version of the round is orders (not none, not a withdrawal)
    last_version: int
    waits: bool  # its player is not ready: the round waits for its deadline

    @property
    def human(self) -> bool:
        return self.controller == "human"


def _check_request(round_number: Any, text: Any) -> None:
    """The request's own shape, before anything is read: a whole round number and text."""
    if isinstance(round_number, bool) or not isinstance(round_number, int):
        raise Invalid("round must be the number of the open round", "round")
    whole_number(round_number, "round")
    if not isinstance(text, str):
        raise Invalid("orders must be text, one order a line", "orders")


def submit(session: Session, game_id: str, token: str | None, round_number: Any, text: Any,
           source: str, seat_id: int | None = None,
           then: Callable[[Session, Accepted], None] | None = None, ready: bool | None = None) -> Accepted:
    """seat_id: a seat proven another way than by its player token (a signed mail token).
    then: more writes that must commit with the orders or not at all (a mail's outcome),
    run in the submission's transaction once the orders are stored.
    ready: whether these are the player's final orders (None: as the player last said)."""
    if source not in SOURCES:
        raise InvariantError(f"not a submission source: {source}")
    _check_request(round_number, text)
    with session.begin():
        conn = session.connection()  # the transaction's one connection, looked up once
        opened = _open_at_once(conn, game_id, token, seat_id, round_number) if token or seat_id is not None \
            else None
        if opened is None:
            _refuse(session, game_id, token, seat_id, round_number)
        orders = _parsed(opened, text)
        seats = _seats_now(conn, game_id, opened.round_id)
        accepted = format_orders(orders)
        stored_at = clock.now()
        me = next(s for s in seats if s.id == opened.seat_id)
        waits = me.waits if ready is None else not ready
        if waits != me.waits or me.controller == "bot":
            _remember(session, opened, waits, back=me.controller == "bot")
            seats = [replace(s, controller="human") if s.id == me.id else s for s in seats]
        version, proof = _store(session, conn, opened, text, accepted, source, me.last_version, stored_at,
                                not waits)
        done = {s.name for s in seats if s.moved or s.id == opened.seat_id}
        waiting = {s.name for s in seats if s.waits and s.id != me.id} | ({me.name} if waits else set())
        closed = (opened.round_status == "open" and _may_close(seats, opened.expected, done, waiting)
                  and _close(session, opened, done))
        profile = options_profile(opened.options)
        result = Accepted(opened.number, [o.format() for o in orders], version,
                          closed or opened.round_status == "ready", proof, stored_at.isoformat(), not waits,
                          profile_input_text(profile, accepted), profile)
        if then is not None:
            then(session, result)
    return result


def check(session: Session, game_id: str, token: str | None, round_number: Any,
          text: Any) -> list[dict[str, Any]]:
    """The refusals sending `text` now would meet, each naming its line (empty: the set
    would be accepted whole), read exactly as `submit` reads it and storing nothing: the
    page asks before it sends, so one bad line never costs the player the rest."""
    _check_request(round_number, text)
    with session.begin():
        opened = _open_at_once(session.connection(), game_id, token, None, round_number) if token else None
        if opened is None:
            _refuse(session, game_id, token, None, round_number)
        try:
            _parsed(opened, text)
        except OrdersRefused as exc:
            return list(exc.errors)
    return []


@dataclass(frozen=True)
class Slot:
    """One list of the order form: the line chosen in it ('' for none) and the lines it offers."""

    chosen: str
    offered: Sequence[str]


@dataclass(frozen=True)
class Clash:
    """Why a list's line would be refused with the lines chosen elsewhere: the refusal the
    set with it would meet (its line numbered in that set), and whether it falls on the
    offered line itself (else on another line it would make wrong)."""

    own: bool
    error: dict[str, Any]
    lines: tuple[str, ...]  # the set the refusal numbers its lines in


MAX_TRIALS = 2000  # sets judged for one answer: a form's lists, each line in each list


def refused_choices(session: Session, game_id: str, token: str | None, round_number: Any,
                    slots: Sequence[Slot], typed: Sequence[str]) -> list[dict[str, Clash]]:
    """For each list, the lines it offers that the rules would refuse with the lines chosen
    in the other lists and typed in the box, each with the refusal: every offered set is
    read by the ruleset's own parser, exactly as Send reads it (nothing stored), so the
    form never offers a combination the rules refuse without saying why. A line offered
    alone is always legal (the contract), so a form with nothing else chosen asks nothing."""
    _check_request(round_number, "")
    with session.begin():
        opened = _open_at_once(session.connection(), game_id, token, None, round_number) if token else None
        if opened is None:
            _refuse(session, game_id, token, None, round_number)
    rules, seat = find_ruleset(opened.ruleset, opened.revision), opened.seat_name
    state = load_state(opened.game_id, opened.ruleset, opened.revision, opened.t, opened.state)

    def placed(chosen: Sequence[str]) -> tuple[list[str], list[tuple[str, int]]]:
        lines, origins = [], []
        for n, line in enumerate(chosen):
            if line.strip():
                lines.append(line)
                origins.append(("list", n))
        for n, line in enumerate(typed):
            lines.append(line)
            origins.append(("box", n))
        return lines, origins

    def refusals(lines: Sequence[str]) -> list[OrderError]:
        try:
            rules.parse_orders(state, seat, "\n".join(lines))
        except OrderErrors as exc:
            return exc.errors
        return []

    now = [s.chosen for s in slots]
    lines, origins = placed(now)
    wrong_now = {origins[e.line - 1] if e.line else ("set", e.message) for e in refusals(lines)}
    answer: list[dict[str, Clash]] = [{} for _ in slots]
    trials = 0
    for i, slot in enumerate(slots):
        others = [line for n, line in enumerate(now) if n != i] + list(typed)
        if not any(line.strip() for line in others):
            continue  # alone, every offered line is legal
        for offered in slot.offered:
            if offered == slot.chosen or trials >= MAX_TRIALS:
                continue
            trials += 1
            trial, at = placed([offered if n == i else line for n, line in enumerate(now)])
            for e in refusals(trial):
                where = at[e.line - 1] if e.line else ("set", e.message)
                if where == ("list", i) or where not in wrong_now:
                    answer[i][offered] = Clash(where == ("list", i), e.to_json(), tuple(trial))
                    break
    return answer


def _parsed(opened: _Open, text: str) -> list[Order]:
    """The ruleset's orders of the text in the step's state as they count (v3: in the rules'
    reading order, service.fairdice.counted_orders), or OrdersRefused. A pure
    function of the ruleset, the state's JSON, the seat and the text, so the same text
    sent again in the same step (a re-send, a reloaded form) is not checked again (the
    path search of every move); a refusal is not kept, each is worked out anew."""
    def parse() -> tuple[Order, ...]:
        rules = find_ruleset(opened.ruleset, opened.revision)
        state = load_state(opened.game_id, opened.ruleset, opened.revision, opened.t,
                           opened.state)  # DamagedData: 503
        try:
            orders = rules.parse_orders(state, opened.seat_name, text)
        except OrderErrors as exc:
            raise OrdersRefused([e.to_json() for e in exc.errors]) from None
        return tuple(counted_orders(profile, rules, state, opened.seat_name, orders))

    profile = options_profile(opened.options)
    key = (opened.ruleset, opened.revision, statecache.digest(opened.state), opened.seat_name, text, profile)
    return list(statecache.cached_by("parsed", key, parse))


@lru_cache(maxsize=2)
def _opening(by_seat_id: bool) -> Executable:
    """_open_at_once's statement (Core on the tables, built once: no ORM on the hot path)."""
    seat, game, rnd, step = (table_of(t) for t in (Seat, Game, Round, Step))
    game_id: BindParameter[str] = bindparam("game_id")
    me = seat.c.id == bindparam("seat_id") if by_seat_id else seat.c.player_token_hash == bindparam("hash")
    steps = select(func.count()).select_from(step).where(step.c.game_id == game_id).scalar_subquery()
    last_t = select(func.max(step.c.t)).where(step.c.game_id == game_id).scalar_subquery()
    return (select(seat.c.id, seat.c.name, seat.c.email, seat.c.mail_pref, game.c.status, game.c.ruleset,
                   game.c.options, rnd.c.id.label("round_id"), rnd.c.status.label("round_status"),
                   rnd.c.expected, step.c.t.label("step_t"), step.c.state, steps.label("steps"),
                   last_t.label("last_t"), game.c.revision, rnd.c.closes_at, game.c.paused_at)
            .join(game, game.c.id == seat.c.game_id)
            .join(rnd, and_(rnd.c.game_id == seat.c.game_id, rnd.c.number == bindparam("number")))
            .outerjoin(step, and_(step.c.game_id == seat.c.game_id, step.c.t == game.c.current_round))
            .where(seat.c.game_id == game_id, me)
            .with_for_update(of=rnd))


def _open_at_once(conn: Connection, game_id: str, token: str | None, seat_id: int | None,
                  number: int) -> _Open | None:
    """The seat, game, locked round and latest step in one statement; None unless all is
    as a submission needs it (the ORM checks then say what is not)."""
    params: dict[str, Any] = {"game_id": game_id, "number": number}
    if seat_id is not None:
        params["seat_id"] = seat_id
    else:
        params["hash"] = token_hash(token or "")
    row = conn.execute(_opening(seat_id is not None), params).first()
    if (row is None or row.status != "active" or row.round_status == "resolved"
            or past_deadline(row.closes_at, row.paused_at) or row.name not in row.expected
            or row.step_t is None or row.steps != row.step_t or row.last_t != row.step_t):
        return None
    return _Open(game_id, row.ruleset, row.options, row.id, row.name, row.email, row.mail_pref,
                 row.round_id, number, row.round_status, row.expected, row.step_t, row.state, row.revision)


def _refuse(session: Session, game_id: str, token: str | None, seat_id: int | None, number: int) -> NoReturn:
    """Why `_open_at_once` found no seat, game, round and step to take orders: each check in
    turn through the ORM, each refusal its own (404, 401, 409, 503 for damaged data)."""
    seat = seat_by_token(session, game_id, token) if seat_id is None else session.get(Seat, seat_id)
    if seat is None or seat.game_id != game_id:
        raise NotFound(f"no such seat in game {game_id!r}")
    game = seat.game
    rnd = lock_round(session, game_id, number)
    if game.status != "active" or rnd is None or rnd.status == "resolved":
        raise Conflict(f"round {number} is not open; the open round is "
                       f"{_open_round_text(game)}", "round")
    if past_deadline(rnd.closes_at, game.paused_at):
        raise Conflict(f"round {number} closed at its deadline, {_utc(rnd.closes_at)}: orders sent "
                       "after it are refused (the round is being resolved without them)", "round")
    if seat.name not in rnd.expected:
        raise Conflict(f"{seat.name} is not expected to move in round {number} "
                       f"(expected: {', '.join(rnd.expected)})", "round")
    latest_state(session, game)  # DamagedData: 503
    # The one read finds what these checks find; should they ever pass, the player hears it.
    raise Conflict(f"round {number} could not take orders just now; send them again", "round")


def past_deadline(closes_at: datetime | None, paused_at: datetime | None) -> bool:
    """The round's deadline has passed (the game not paused): it takes no more orders, even
    before the sweeper closes it (service.timekeeping.due closes rounds due by the same test)."""
    return closes_at is not None and paused_at is None and as_utc(closes_at) <= clock.now()


def _utc(at: datetime | None) -> str:
    return as_utc(at).strftime("%Y-%m-%d %H:%M UTC") if at is not None else ""


def _seats_now(conn: Connection, game_id: str, round_id: int) -> list[_SeatNow]:
    """Every seat of the game with its latest version of the round and its controller, read
    under the round's lock (nobody adds a version meanwhile)."""
    rows = conn.execute(_seats_statement(), {"game_id": game_id, "round_id": round_id})
    return [_SeatNow(r.id, r.name, r.controller or "human", bool(r.latest), int(r.last or 0), bool(r.wait))
            for r in rows]


def _remember(session: Session, opened: _Open, waits: bool, back: bool) -> None:
    """The player's choice of ready or not, kept as the seat's wait flag; `back`: the bot
    played the seat, and the player's own orders take it back (logged: the table reads it
    in its news, service.timekeeping.missed_news)."""
    seat = session.get(Seat, opened.seat_id)
    if seat is None:
        raise InvariantError(f"seat {opened.seat_id} vanished under its round's lock")
    row = seat_schedule(session, seat)
    row.wait = waits
    if back:
        row.controller, row.misses = "human", 0
        log_action(session, opened.game_id, seat.name, "seat_back",
                   {"round": opened.number, "seat": seat.name})


@lru_cache(maxsize=1)
def _seats_statement() -> Executable:
    seat, schedule, sub = (table_of(t) for t in (Seat, SeatSchedule, Submission))
    mine = and_(sub.c.round_id == bindparam("round_id"), sub.c.seat_id == seat.c.id)
    latest = select(sub.c.accepted).where(mine).order_by(sub.c.version.desc()).limit(1).scalar_subquery()
    last_version = select(func.max(sub.c.version)).where(mine).scalar_subquery()
    return (select(seat.c.id, seat.c.name, schedule.c.controller, schedule.c.wait, latest.label("latest"),
                   last_version.label("last"))
            .outerjoin(schedule, schedule.c.seat_id == seat.c.id)
            .where(seat.c.game_id == bindparam("game_id")).order_by(seat.c.seat_index))


def _store(session: Session, conn: Connection, opened: _Open, text: str, accepted: str, source: str,
           last_version: int, at: datetime, ready: bool) -> tuple[int, str]:
    """The seat's next version, its audit row and the confirmation's outbox row (when the seat
    gets one), in one statement on PostgreSQL; the version and its receipt."""
    submission = submission_row(opened.round_id, opened.seat_id, last_version, text, accepted, source, at)
    version = int(submission[1]["version"])
    proof = options_receipt_hex(opened.game_id, opened.options, opened.number, opened.seat_name, version,
                                accepted)
    rows = [submission,
            audit_row(opened.game_id, opened.seat_name, "submitted",
                      {"round": opened.number, "version": version, "source": source}, at)]
    mail = outbox_values("confirmation",
                         {"round": opened.number, "version": version, "accepted": accepted, "source": source,
                          "receipt": proof, "at": at.isoformat(), "ready": ready, "sent": text},
                         opened.game_id, opened.seat_id, opened.email,
                         wanted("confirmation", opened.mail_pref))
    if mail is not None:
        rows.append((table_of(Outbox), {**mail, "created_at": at}))
    ids = insert_together(conn, rows)
    if mail is not None:
        deliver_id_after_commit(session, ids[-1])
    return version, proof


def _may_close(seats: Sequence[_SeatNow], expected: Sequence[str], done: set[str], waiting: set[str]) -> bool:
    """Whether the early close is worth asking about: some seat is played in person and every
    expected one played in person has moved and is ready (the rest of the rules: `_close`)."""
    people = [s.name for s in seats if s.human and s.name in expected]
    return any(s.human for s in seats) and all(n in done and n not in waiting for n in people)


def _close(session: Session, opened: _Open, done: set[str]) -> bool:
    """The early close, decided and made as `service.timekeeping.open_close` does (wait
    flags, pause, quiet hours, bot seats, the missed-turn counts)."""
    game = session.get(Game, opened.game_id, options=[joinedload(Game.seats)])
    rnd = session.get(Round, opened.round_id)
    if game is None or rnd is None:
        raise InvariantError(f"round {opened.number} of game {opened.game_id} vanished under its lock")
    return early_close_allowed(session, game, rnd, done) and mark_ready(session, game, rnd, done)


def _open_round_text(game: Game) -> str:
    if game.status == "waiting":
        return "none yet (seats are still being filled)"
    if game.status == "finished":
        return "none (the game is over)"
    return str(game.current_round)
