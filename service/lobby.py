"""The lobby: the public games by what a visitor looks for (an open seat, a game to follow,
a finished game to read, one ruleset), and a visitor taking an open seat.

An open seat is one nobody plays while the game goes on: the GM opened it for a
replacement (replace without an address) or the missed-turn policy did (`open`). A seat
the GM opened for a named address waits for that person's invitation and is not offered.
Only a public game's open seats are offered to visitors; in a private game the GM hands
out the seat's invitation. Seats taken per client address are limited like games created
(SEATS_PER_CLIENT, DICEPOST_SEATS_PER_CLIENT, default "10 per hour").
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import ColumnElement, func, select
from sqlalchemy.orm import Session

from service.entry import check_entry, rules_by_game, rules_of
from service.errors import Conflict, NotFound
from service.models import Game, Seat, SeatSchedule
from service.ratings import shown_by_seat
from service.seats import take_seat

SHOWS = ("open", "active", "waiting", "finished", "all")
SHOW_LABELS = {"open": "open seats", "active": "active", "waiting": "waiting for players",
               "finished": "finished", "all": "all public games"}
LIMIT = 100


@dataclass(frozen=True)
class LobbyGame:
    id: str
    title: str
    ruleset: str
    status: str
    round: int
    seats: int
    open_seats: tuple[str, ...]
    created_at: datetime
    paused: bool
    ratings: tuple[tuple[str, float | None], ...] = ()  # each joined seat's player's rating in the ruleset
    entry: tuple[str, ...] = ()  # the entry rules in words (service.entry)


def _open_clause() -> ColumnElement[bool]:
    """Seats open to anyone: opened for a replacement with no address named."""
    return (SeatSchedule.controller == "open") & Seat.email.is_(None)


def lobby_games(session: Session, show: str = "all", ruleset: str | None = None,
                limit: int = LIMIT) -> list[LobbyGame]:
    """The newest public games matching the filter (`show` one of SHOWS)."""
    with session.begin():
        query = select(Game).where(Game.public.is_(True))
        if ruleset:
            query = query.where(Game.ruleset == ruleset)
        if show in ("active", "waiting", "finished"):
            query = query.where(Game.status == show)
        open_by_game: dict[str, list[str]] = {}
        for game_id, name in session.execute(
                select(Seat.game_id, Seat.name).join(SeatSchedule, SeatSchedule.seat_id == Seat.id)
                .join(Game, Game.id == Seat.game_id)
                .where(Game.public.is_(True), Game.status == "active", _open_clause())
                .order_by(Seat.seat_index)):
            open_by_game.setdefault(game_id, []).append(name)
        if show == "open":
            query = query.where(Game.id.in_(list(open_by_game)))
        games = list(session.scalars(query.order_by(Game.created_at.desc(), Game.id).limit(limit)))
        sizes = dict(session.execute(select(Seat.game_id, func.count()).where(
            Seat.game_id.in_([g.id for g in games])).group_by(Seat.game_id)).all())
        joined: dict[str, list[str]] = {}
        for game_id, name in session.execute(select(Seat.game_id, Seat.name).where(
                Seat.game_id.in_([g.id for g in games]), Seat.joined_at.is_not(None))
                .order_by(Seat.seat_index)):
            joined.setdefault(game_id, []).append(name)
        rated = shown_by_seat(session, games)
        rules = rules_by_game(session, [g.id for g in games])
        return [LobbyGame(g.id, g.title, g.ruleset, g.status, g.current_round, sizes.get(g.id, 0),
                          tuple(open_by_game.get(g.id, ())), g.created_at, g.paused_at is not None,
                          tuple((name, rated.get((g.id, name))) for name in joined.get(g.id, ())),
                          tuple(rules[g.id].words()) if g.id in rules else ())
                for g in games]


def takeable(game: Game, seats: Iterable[tuple[Seat, str | None]]) -> list[str]:
    """open_seats of seats read already, each with its schedule's controller (None: no row)."""
    if not game.public or game.status != "active":
        return []
    return [seat.name for seat, controller in seats if controller == "open" and seat.email is None]


def open_seats(session: Session, game: Game) -> list[str]:
    """The seats of `game` a visitor may take (none in a private or inactive game), in seat
    order; `takeable` answers the same of seats read already."""
    if not game.public or game.status != "active":
        return []
    return list(session.scalars(
        select(Seat.name).join(SeatSchedule, SeatSchedule.seat_id == Seat.id)
        .where(Seat.game_id == game.id, _open_clause()).order_by(Seat.seat_index)))


def take_open_seat(session: Session, game_id: str, seat_name: str,
                   address: str | None = None) -> tuple[str, str]:
    """A visitor takes an open seat of a public game: (seat name, new player token).
    `address`: the visitor's, signed in; a game with entry rules admits only a signed-in
    visitor who meets them, and the seat's mail goes to that address from then on."""
    with session.begin():
        game = session.get(Game, game_id, with_for_update=True)
        if game is None or not game.public:
            raise NotFound(f"no public game {game_id!r}")
        seat = session.scalars(select(Seat).where(Seat.game_id == game_id,
                                                  Seat.name == seat_name)).first()
        if seat is None:
            raise NotFound(f"game {game_id} has no seat {seat_name!r}")
        if seat_name not in open_seats(session, game):
            raise Conflict(f"seat {seat_name} is not open: someone plays it, or the game master "
                           "keeps it for an invited player", "seat")
        check_entry(session, game, address)
        taken = take_seat(session, game, seat)
        if address and rules_of(session, game.id).any:
            seat.email = address  # the record the rules read is this address's from now on
        return taken
