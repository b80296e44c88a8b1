"""What the game and round pages show, gathered in one read transaction (the caller's, when
it has one open: the pages render in it too, so their other reads share it)."""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from markupsafe import Markup
from sqlalchemy import Integer, String, and_, bindparam, select
from sqlalchemy.orm import Session, defer, load_only
from sqlalchemy.orm.attributes import set_committed_value

from engine.dice import chain_link_ok
from service import statecache
from service.errors import NotFound
from service.fairdice import game_profile
from service.integrity import damaged
from service.lobby import takeable
from service.models import Game, Round, Seat, SeatSchedule, Step, Submission
from service.rollback_chain import record_rollbacks, revealed_link
from service.views import get_game
from service.web.parts import NO_PART, board_part, step_part

RECENT = 5  # the latest key checks and rounds the game page lists; the rounds page has them all
# A step's JSON that the pages draw their parts from once per step (web/parts.py loads it then),
# and that grows with the army: left out of the pages' reads of a step.
UNDRAWN = (defer(Step.state), defer(Step.events), defer(Step.rolls))


@dataclass
class KeyCheck:
    t: int
    key: str
    previous: str
    ok: bool
    link: int = 0  # the chain link S_l (0: t; a step resolved after a rollback takes the next one)
    superseded: str = ""  # the rollback that superseded the step, in words ("": it stands)


@dataclass
class GamePage:
    game: Game
    seats: list[Seat]
    round: Round | None
    submitted: set[str]
    board: Markup  # the latest step's grid, drawn (web/parts.py)
    step: Step | None  # the latest step
    step_html: Markup  # its events and roll log, drawn
    keys: list[KeyCheck]  # every step's, oldest first
    open_seats: list[str]  # the seats a visitor may take
    controllers: dict[str, str | None]  # seat name -> who plays it (human, bot, open, removed)

    @property
    def recent_keys(self) -> list[KeyCheck]:
        return self.keys[-RECENT:]

    @property
    def failing(self) -> list[KeyCheck]:
        return [k for k in self.keys if not k.ok]

    @property
    def resolved_rounds(self) -> list[int]:
        return [k.t - 1 for k in self.keys if k.t > 1]

    @property
    def recent_rounds(self) -> list[int]:
        return self.resolved_rounds[-RECENT:]


def _reading(session: Session) -> AbstractContextManager[object]:
    return nullcontext() if session.in_transaction() else session.begin()


def key_checks(game: Game, steps: list[Step], rolled: list[dict[str, Any]] | None = None) -> list[KeyCheck]:
    """Each revealed S_l with the check H(S_l) = S_{l-1} (S_0 is the commitment), in the
    order the links were revealed: with `rolled` (the record's rollbacks), the superseded
    steps too."""
    items = [(s.link or s.t, s.t, s.key, "") for s in steps]
    for rb in rolled or []:
        words = f"superseded: rolled back by {rb['by']} at {rb['at']} (reason: {rb['reason']})"
        items += [(int(s.get("link", s["t"])), int(s["t"]), str(s["key"]), words) for s in rb["steps"]]
    out = []
    previous = game.commitment
    for link, t, key, words in sorted(items):
        out.append(KeyCheck(t, key, previous, chain_link_ok(bytes.fromhex(key), bytes.fromhex(previous),
                                                            game_profile(game)), link, words))
        previous = key
    return out


def chain_checks(session: Session, game: Game, latest: Step | None) -> list[KeyCheck]:
    """Every step's key check up to the latest step, once per process and latest step (steps
    are only ever appended). Only each step's t and key are read: loading every step whole
    made the page grow with the rounds; raiseload makes reading another column an error."""
    if latest is None:
        return []

    def check() -> list[KeyCheck]:
        steps = session.scalars(select(Step).where(Step.game_id == game.id, Step.t <= latest.t)
                                .order_by(Step.t).options(load_only(Step.t, Step.key, Step.link,
                                                                    raiseload=True)))
        rolled = record_rollbacks(session, game.id) if game.links_skipped else None
        return key_checks(game, list(steps), rolled)

    return list(statecache.cached_by("page", (game.id, latest.id, latest.key, game.links_skipped, "keys"),
                                     check))


@dataclass
class GameHead:
    """A game with its seats, each seat's controller, the current round and who has moved in it."""

    game: Game
    round: Round | None
    controllers: dict[int, str | None]  # seat id -> its schedule's controller
    submitted: set[str]  # names of the seats whose latest version of the round is orders


@lru_cache(maxsize=1)
def _head_statement() -> Any:
    # Built once per process. A seat's latest version of the round counts (an empty one is
    # a withdrawal), as in service.submissions.latest_submissions.
    latest = (select(Submission.accepted)
              .where(Submission.round_id == Round.id, Submission.seat_id == Seat.id)
              .order_by(Submission.version.desc()).limit(1).scalar_subquery())
    return (select(Game, Seat, Round, SeatSchedule.controller, latest.label("latest"))
            .outerjoin(Seat, Seat.game_id == Game.id)
            .outerjoin(Round, and_(Round.game_id == Game.id, Round.number == Game.current_round,
                                   Game.current_round >= 1))
            .outerjoin(SeatSchedule, SeatSchedule.seat_id == Seat.id)
            .order_by(Seat.seat_index)
            .options(defer(Seat.force)))  # a seat's force (its army) is not on the page


def game_head(session: Session, game_id: str) -> GameHead | None:
    """The game, its seats (kept as `game.seats`), their controllers, the current round and
    who has moved in it, in one statement; None when there is no such game."""
    rows = session.execute(_head_statement().where(Game.id == game_id)).all()
    if not rows:
        return None
    game, rnd = rows[0].Game, rows[0].Round
    seats = [r.Seat for r in rows if r.Seat is not None]
    set_committed_value(game, "seats", seats)
    return GameHead(game, rnd, {r.Seat.id: r.controller for r in rows if r.Seat is not None},
                    {r.Seat.name for r in rows if r.Seat is not None and r.latest} if rnd else set())


@lru_cache(maxsize=1)
def _steps_statements() -> tuple[Any, Any, Any]:
    # Built once per process (building one costs about as much as running it): a game's
    # latest step, its step t with and without the step's inputs, each without what the
    # pages draw their parts from.
    game_id, t = bindparam("game_id", type_=String), bindparam("t", type_=Integer)
    latest = (select(Step).where(Step.game_id == game_id).order_by(Step.t.desc()).limit(1)
              .options(*UNDRAWN, defer(Step.inputs)))
    numbered = select(Step).where(Step.game_id == game_id, Step.t == t).options(*UNDRAWN)
    return latest, numbered, numbered.options(defer(Step.inputs))


def _latest_undrawn(session: Session, game_id: str) -> Step | None:
    return session.scalars(_steps_statements()[0], {"game_id": game_id}).first()


def _step_undrawn(session: Session, game_id: str, t: int, inputs: bool = True) -> Step | None:
    return session.scalars(_steps_statements()[1 if inputs else 2], {"game_id": game_id, "t": t}).first()


def game_page(session: Session, game_id: str, head: GameHead | None = None) -> GamePage:
    """head: game_head's answer when the caller read it already (in this transaction)."""
    with _reading(session):
        head = head or game_head(session, game_id)
        if head is None:
            raise NotFound(f"no game {game_id!r}")
        game = head.game
        latest = _latest_undrawn(session, game_id)
        return GamePage(game=game, seats=list(game.seats), round=head.round, submitted=head.submitted,
                        board=board_part(game, latest, f"the grid of {game.title}", "grid-pan"),
                        step=latest, step_html=step_part(game, latest) if latest else NO_PART,
                        keys=chain_checks(session, game, latest),
                        open_seats=takeable(game, [(s, head.controllers.get(s.id)) for s in game.seats]),
                        controllers={s.name: head.controllers.get(s.id) for s in game.seats})


def rounds_page(session: Session, game_id: str, game: Game | None = None) -> tuple[Game, list[KeyCheck]]:
    """Every round's link and every step's key check (game: when the caller read it already,
    in this transaction)."""
    with _reading(session):
        game = game or get_game(session, game_id)
        return game, chain_checks(session, game, _latest_undrawn(session, game_id))


@dataclass
class RoundPage:
    game: Game
    number: int
    step: Step
    board: Markup  # the grid after the round, drawn
    before: Markup  # as the round found it: the previous step's state, without its marks
    step_html: Markup  # the round's events and roll log, drawn
    key: KeyCheck
    orders: dict[str, Any]


def round_page(session: Session, game_id: str, number: int, game: Game | None = None) -> RoundPage:
    """game: when the caller read it already (in this transaction)."""
    with _reading(session):
        game = game or get_game(session, game_id)
        step = _step_undrawn(session, game_id, number + 1)
        if step is None:
            raise NotFound(f"round {number} of game {game_id!r} is not resolved")
        previous = _step_undrawn(session, game_id, step.t - 1, inputs=False)
        if previous is None:
            raise damaged(game_id, f"step {step.t - 1} is missing")
        if step.link:  # resolved after a rollback: its link follows a superseded step's
            before_key = revealed_link(session, game_id, step.link - 1) or game.commitment
            check = KeyCheck(step.t, step.key, before_key, chain_link_ok(
                bytes.fromhex(step.key), bytes.fromhex(before_key), game_profile(game)), step.link)
        else:
            check = key_checks(game, [previous, step])[1]
        # The previous step's marks are the round before this one's: they do not belong here.
        before = board_part(game, previous, f"the grid before round {number}", "grid-before-pan",
                            f"before round {number}", f"Where each piece stood before round {number}",
                            marks=False)
        after = board_part(game, step, f"the grid after round {number}", "grid-after-pan",
                           f"after round {number}")
        return RoundPage(game=game, number=number, step=step, board=after, before=before,
                         step_html=step_part(game, step), key=check, orders=dict(step.inputs))
