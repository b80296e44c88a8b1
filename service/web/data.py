"""What the game and round pages show, gathered in one read transaction."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, load_only

from engine import Board
from engine.dice import chain_link_ok
from service.fairdice import game_profile
from service.integrity import damaged
from service.models import Game, Round, Seat, Step
from service.views import board_of, current_round, get_game, latest_step, step_of_round, submitted_names


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
    board: Board | None
    step: Step | None  # the latest step (the board shows its state)
    keys: list[KeyCheck]
    resolved_rounds: list[int]


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


def game_page(session: Session, game_id: str) -> GamePage:
    with session.begin():
        game = get_game(session, game_id)
        # The board needs the latest step whole; the key checks only each step's t and key.
        # Loading every step whole made the page grow with the rounds (each state, events and
        # rolls); raiseload: reading any other column of an older step is an error, not a query.
        latest = latest_step(session, game_id)
        steps = list(session.scalars(select(Step).where(Step.game_id == game_id).order_by(Step.t)
                                     .options(load_only(Step.t, Step.key, raiseload=True))))
        rnd = current_round(session, game)
        return GamePage(game=game, seats=list(game.seats), round=rnd,
                        submitted=submitted_names(session, game, rnd),
                        board=board_of(game, latest), step=latest, keys=key_checks(game, steps),
                        resolved_rounds=[s.t - 1 for s in steps if s.t > 1])


@dataclass
class RoundPage:
    game: Game
    number: int
    step: Step
    board: Board | None  # after the round
    before: Board | None  # as the round found it: the previous step's state, without its marks
    key: KeyCheck
    orders: dict[str, Any]


def round_page(session: Session, game_id: str, number: int) -> RoundPage:

    with session.begin():
        game = get_game(session, game_id)
        step = step_of_round(session, game_id, number)
        previous = session.scalars(select(Step).where(Step.game_id == game_id,
                                                      Step.t == step.t - 1)).first()
        if previous is None:
            raise damaged(game_id, f"step {step.t - 1} is missing")
        check = key_checks(game, [previous, step])[1]
        before = board_of(game, previous)
        # The previous step's marks are the round before this one's: they do not belong here.
        return RoundPage(game=game, number=number, step=step, board=board_of(game, step),
                         before=replace(before, marks=[]) if before else None,
                         key=check, orders=dict(step.inputs))
