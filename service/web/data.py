"""What the game and round pages show, gathered in one read transaction (the caller's, when
it has one open: the pages render in it too, so their other reads share it)."""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup
from sqlalchemy import select
from sqlalchemy.orm import Session, defer, load_only

from engine.dice import chain_link_ok
from service import statecache
from service.fairdice import game_profile
from service.integrity import damaged
from service.models import Game, Round, Seat, Step
from service.views import current_round, get_game, latest_step, step_of_round, submitted_names
from service.web.parts import board_part, step_part

RECENT = 5  # the latest key checks and rounds the game page lists; the rounds page has them all


@dataclass
class KeyCheck:
    t: int
    key: str
    previous: str
    ok: bool


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


def key_checks(game: Game, steps: list[Step]) -> list[KeyCheck]:
    """Each revealed S_t with the check H(S_t) = S_{t-1} (S_0 is the commitment)."""
    out = []
    previous = game.commitment
    for s in steps:
        out.append(KeyCheck(s.t, s.key, previous, chain_link_ok(bytes.fromhex(s.key),
                                                                bytes.fromhex(previous),
                                                                game_profile(game))))
        previous = s.key
    return out


def chain_checks(session: Session, game: Game, latest: Step | None) -> list[KeyCheck]:
    """Every step's key check up to the latest step, once per process and latest step (steps
    are only ever appended). Only each step's t and key are read: loading every step whole
    made the page grow with the rounds; raiseload makes reading another column an error."""
    if latest is None:
        return []

    def check() -> list[KeyCheck]:
        steps = session.scalars(select(Step).where(Step.game_id == game.id, Step.t <= latest.t)
                                .order_by(Step.t).options(load_only(Step.t, Step.key, raiseload=True)))
        return key_checks(game, list(steps))

    return list(statecache.cached_by("page", (game.id, latest.id, latest.key, "keys"), check))


def game_page(session: Session, game_id: str) -> GamePage:
    with _reading(session):
        game = get_game(session, game_id)
        latest = latest_step(session, game_id)
        rnd = current_round(session, game)
        return GamePage(game=game, seats=list(game.seats), round=rnd,
                        submitted=submitted_names(session, game, rnd),
                        board=board_part(game, latest, f"the grid of {game.title}", "grid-pan"),
                        step=latest, step_html=step_part(game, latest) if latest else Markup(""),
                        keys=chain_checks(session, game, latest))


def rounds_page(session: Session, game_id: str) -> tuple[Game, list[KeyCheck]]:
    """Every round's link and every step's key check."""
    with _reading(session):
        game = get_game(session, game_id)
        return game, chain_checks(session, game, latest_step(session, game_id))


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


def round_page(session: Session, game_id: str, number: int) -> RoundPage:
    with _reading(session):
        game = get_game(session, game_id)
        step = step_of_round(session, game_id, number)
        # The previous step's state is read only if its grid is not drawn yet (deferred).
        previous = session.scalars(select(Step).where(Step.game_id == game_id, Step.t == step.t - 1)
                                   .options(defer(Step.state), defer(Step.events), defer(Step.rolls),
                                            defer(Step.inputs))).first()
        if previous is None:
            raise damaged(game_id, f"step {step.t - 1} is missing")
        check = key_checks(game, [previous, step])[1]
        # The previous step's marks are the round before this one's: they do not belong here.
        before = board_part(game, previous, f"the grid before round {number}", "grid-before-pan",
                            f"before round {number}", f"Where each piece stood before round {number}",
                            marks=False)
        after = board_part(game, step, f"the grid after round {number}", "grid-after-pan",
                           f"after round {number}")
        return RoundPage(game=game, number=number, step=step, board=after, before=before,
                         step_html=step_part(game, step), key=check, orders=dict(step.inputs))
