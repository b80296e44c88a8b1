"""A signed-in player's games: every seat played with their address, what each waits for,
and the games the address runs as their GM."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from service import urls
from service.models import Game, Seat
from service.timekeeping.wording import deadline_text
from service.tokens import gm_token_of
from service.views import current_round, submitted_names
from service.zones import address_zone


@dataclass(frozen=True)
class SeatLine:
    seat_id: int
    seat: str
    game_id: str
    title: str
    ruleset: str
    status: str  # waiting / active / finished
    round: int | None
    waits_for_you: bool  # the open round expects this seat and has no orders from it
    submitted: bool
    closes_at: datetime | None
    closes: str  # in the player's zone with UTC beside (service.timekeeping.wording)
    paused: bool
    joined: bool
    mail_pref: str
    message_pref: str
    outcome: str


def _outcome(game: Game) -> str:
    if not game.outcome:
        return ""
    winners = game.outcome.get("winners") or []
    return ("won by " + ", ".join(winners)) if winners else "a draw"


def seats_of(session: Session, email: str) -> list[SeatLine]:
    """Newest games first; games that wait for this player's orders come first of all."""
    seats = session.scalars(select(Seat).join(Game).where(func.lower(Seat.email) == email)
                            .order_by(Game.created_at.desc(), Seat.seat_index)).all()
    lines = []
    zone = address_zone(session, email)
    for seat in seats:
        game = seat.game
        rnd = current_round(session, game) if game.status == "active" else None
        expected = rnd is not None and rnd.status == "open" and seat.name in rnd.expected
        done = rnd is not None and seat.name in submitted_names(session, game, rnd)
        lines.append(SeatLine(
            seat_id=seat.id, seat=seat.name, game_id=game.id, title=game.title, ruleset=game.ruleset,
            status=game.status, round=rnd.number if rnd else None, waits_for_you=expected and not done,
            submitted=done, closes_at=rnd.closes_at if rnd else None,
            closes=deadline_text(game, rnd.closes_at, zone, year=False) if rnd and rnd.closes_at else "",
            paused=game.paused_at is not None, joined=seat.joined_at is not None, mail_pref=seat.mail_pref,
            message_pref=seat.message_pref, outcome=_outcome(game)))
    return sorted(lines, key=lambda line: not line.waits_for_you)


@dataclass(frozen=True)
class RunLine:
    """A game the signed-in address runs as its GM, with the GM page's link."""

    game_id: str
    title: str
    ruleset: str
    status: str
    round: int | None
    gm_url: str


def games_run(session: Session, email: str, secret_key: str | bytes) -> list[RunLine]:
    """The games created with this GM address, newest first, each with its GM link made
    again from the game's salt (service.tokens.gm_token_of)."""
    rows = session.scalars(select(Game).where(Game.gm_email == email, Game.gm_salt.is_not(None))
                           .order_by(Game.created_at.desc())).all()
    return [RunLine(g.id, g.title, g.ruleset, g.status, g.current_round if g.status == "active" else None,
                    urls.absolute("gm.page", game_id=g.id,
                                  token=gm_token_of(secret_key, g.id, g.gm_salt or "")))
            for g in rows]
