"""A player's history from the stored games of their address, their reliability, and their
public profile under a handle they choose (docs/players.md).

A player is an address (lower-cased), as *Your games* groups seats. The history counts
the resolved rounds each of their seats was expected in, from the round they took the
seat (a take-over's earlier rounds were another player's):

- on time: their own orders (web, mail or API) before the round's deadline;
- late: their own orders, in a round whose deadline the missed-turn policy extended
  because they had none;
- standing: none of their own, their standing orders played;
- missed: nothing of theirs (the units held, or the bot played them).

Reliability = (on time + ½ · (late + standing)) / rounds, in whole percent, once a player
has RELIABLE_AFTER rounds; before that they are "new" (None), not unreliable.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from service import limit_lock
from service.errors import Conflict, Invalid
from service.models import AuditLog, Game, PlayerProfile, RatedGame, Round, Seat, Submission
from service.ratings import Rating, ratings_of

RELIABLE_AFTER = 5  # rounds before a reliability is shown: fewer say too little
OWN_SOURCES = ("web", "api", "mail")
HANDLE_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{2,31}")
# Handles that would pass for the service, its pages or the table's roles.
RESERVED_HANDLES = frozenset({
    "gm", "thegm", "gamemaster", "host", "system", "admin", "administrator", "root", "all",
    "everyone", "dicepost", "server", "nobody", "anonymous", "bot", "moderator", "support",
    "staff", "me", "new", "api", "lobby", "players", "rules", "verify", "signin", "signout"})


def reliability_of(on_time: int, late: int, standing: int, missed: int) -> int | None:
    """Whole percent, or None ("new") before RELIABLE_AFTER rounds."""
    rounds = on_time + late + standing + missed
    if rounds < RELIABLE_AFTER:
        return None
    return round(100 * (on_time + 0.5 * (late + standing)) / rounds)


@dataclass(frozen=True)
class History:
    games: int  # seats joined
    finished: int
    running: int  # joined seats of games waiting to start or under way
    on_time: int
    late: int
    standing: int
    missed: int

    @property
    def rounds(self) -> int:
        return self.on_time + self.late + self.standing + self.missed

    @property
    def reliability(self) -> int | None:
        return reliability_of(self.on_time, self.late, self.standing, self.missed)

    @property
    def reliability_text(self) -> str:
        r = self.reliability
        return "new" if r is None else f"{r}%"


def _first_rounds(session: Session, seats: Sequence[Seat]) -> dict[int, int]:
    """seat id -> the first round its present player played (a take-over: the round taken)."""
    by_key = {(s.game_id, s.name): s.id for s in seats}
    first: dict[int, int] = {}
    for game_id, detail in session.execute(
            select(AuditLog.game_id, AuditLog.detail).where(
                AuditLog.game_id.in_({s.game_id for s in seats}), AuditLog.action == "seat_claimed")
            .order_by(AuditLog.id)):
        seat_id = by_key.get((game_id, str((detail or {}).get("seat"))))
        if seat_id is not None:
            first[seat_id] = int((detail or {}).get("from_round") or 0)
    return first


def history(session: Session, address: str) -> History:
    """The address's history (within the caller's transaction)."""
    address = address.lower()
    seats = list(session.scalars(select(Seat).where(func.lower(Seat.email) == address,
                                                    Seat.joined_at.is_not(None))))
    statuses = dict(session.execute(select(Game.id, Game.status).where(
        Game.id.in_({s.game_id for s in seats}))).all()) if seats else {}
    counts = {"on_time": 0, "late": 0, "standing": 0, "missed": 0}
    if seats:
        first = _first_rounds(session, seats)
        seat_by_game_name = {(s.game_id, s.name): s for s in seats}
        rounds = session.execute(select(Round.id, Round.game_id, Round.number, Round.expected).where(
            Round.game_id.in_(statuses), Round.status == "resolved")).all()
        sources: dict[tuple[int, int], set[str]] = {}
        for round_id, seat_id, source in session.execute(
                select(Submission.round_id, Submission.seat_id, Submission.source).distinct()
                .where(Submission.seat_id.in_([s.id for s in seats]))):
            sources.setdefault((round_id, seat_id), set()).add(source)
        late: set[tuple[str, int, str]] = set()
        for game_id, detail in session.execute(select(AuditLog.game_id, AuditLog.detail).where(
                AuditLog.game_id.in_(statuses), AuditLog.action == "deadline_extended")):
            for name in (detail or {}).get("missing") or ():
                late.add((game_id, int((detail or {}).get("round") or 0), name))
        for round_id, game_id, number, expected in rounds:
            for name in expected or ():
                seat = seat_by_game_name.get((game_id, name))
                if seat is None or number < first.get(seat.id, 0):
                    continue
                got = sources.get((round_id, seat.id), set())
                if got & set(OWN_SOURCES):
                    counts["late" if (game_id, number, name) in late else "on_time"] += 1
                elif "standing" in got:
                    counts["standing"] += 1
                else:
                    counts["missed"] += 1
    values = [statuses.get(s.game_id) for s in seats]
    return History(games=len(seats), finished=values.count("finished"),
                   running=sum(v in ("waiting", "active") for v in values), **counts)


def running_games(session: Session, address: str, besides: str | None = None) -> int:
    """Games the address has joined that wait to start or are under way (`besides`: one not counted)."""
    query = (select(func.count(func.distinct(Seat.game_id))).join(Game, Game.id == Seat.game_id)
             .where(func.lower(Seat.email) == address.lower(), Seat.joined_at.is_not(None),
                    Game.status.in_(("waiting", "active"))))
    if besides is not None:
        query = query.where(Game.id != besides)
    return int(session.scalar(query) or 0)


# Profiles ------------------------------------------------------------------------------


def profile_of(session: Session, address: str) -> PlayerProfile | None:
    return session.get(PlayerProfile, address.lower())


def checked_handle(text: Any) -> str:
    if not isinstance(text, str) or not HANDLE_RE.fullmatch(text.strip()):
        raise Invalid("handle: 3 to 32 letters, digits, '-' or '_', starting with a letter or digit",
                      "handle")
    handle = text.strip()
    if re.sub(r"[_-]", "", handle).lower() in RESERVED_HANDLES:
        raise Invalid(f"handle: {handle!r} is reserved; choose another", "handle")
    return handle


def set_profile(session: Session, address: str, handle_text: Any, public: bool) -> PlayerProfile:
    """Choose (or change) the address's handle and whether its page is shown (the caller's
    transaction). Handles are unique without regard to case."""
    handle = checked_handle(handle_text)
    address = address.lower()
    limit_lock.hold(session, "handles", handle.lower())
    taken = session.scalar(select(PlayerProfile.address).where(
        func.lower(PlayerProfile.handle) == handle.lower(), PlayerProfile.address != address))
    if taken is not None:
        raise Conflict(f"handle: {handle!r} is taken; choose another", "handle")
    row = session.get(PlayerProfile, address)
    if row is None:
        row = PlayerProfile(address=address, handle=handle, public=public)
        session.add(row)
    else:
        row.handle, row.public = handle, public
    session.flush()
    return row


@dataclass(frozen=True)
class FinishedGame:
    id: str
    title: str
    ruleset: str
    seat: str
    result: str  # won / lost / draw
    finished_at: datetime | None
    rated: bool


@dataclass(frozen=True)
class Profile:
    handle: str
    since: datetime
    history: History
    ratings: dict[str, Rating]
    games: list[FinishedGame]


def public_profile(session: Session, handle: str) -> Profile | None:
    """What the public page of `handle` shows (None: no such public profile): never the address."""
    row = session.scalar(select(PlayerProfile).where(func.lower(PlayerProfile.handle) == handle.lower(),
                                                     PlayerProfile.public.is_(True)))
    if row is None:
        return None
    games = []
    for seat, game, rated in session.execute(
            select(Seat, Game, RatedGame).join(Game, Game.id == Seat.game_id)
            .outerjoin(RatedGame, RatedGame.game_id == Game.id)
            .where(func.lower(Seat.email) == row.address, Game.public.is_(True), Game.status == "finished")):
        winners = (game.outcome or {}).get("winners") or []
        result = "draw" if not winners else "won" if seat.name in winners else "lost"
        games.append(FinishedGame(game.id, game.title, game.ruleset, seat.name, result,
                                  rated.finished_at if rated else None,
                                  rated is not None and rated.status == "rated"))
    games.sort(key=lambda g: g.finished_at.timestamp() if g.finished_at else 0.0, reverse=True)
    return Profile(row.handle, row.created_at, history(session, row.address),
                   ratings_of(session, row.address), games)
