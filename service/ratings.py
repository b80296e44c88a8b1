"""Ratings per ruleset, folded from finished games' records with OpenSkill's Plackett-Luce
model (docs/players.md, "Ratings").

A game's end writes its `rated_games` row (pending) in the same transaction
(service.progress.finish_game) and rings `worker.tasks.rate_games` after COMMIT; the
sweeper rings again while a row waits. The worker (`update`) judges each pending game and
folds the rated ones into the stored ratings in the ratings' order (finish time, then game
id). `dicepost ratings` (`rebuild`) folds every finished game again from nothing. Both go
through `fold`, the only code that changes a rating, so the two give the same numbers: a
pending game that sorts before one already folded (two games finishing at once, a lost
doorbell) makes `update` rebuild its ruleset instead of folding out of order.

A game is rated when (`verdict`): it ended by its rules (not by the GM), every seat was
played from start to end by the address that joined it (no seat opened, taken over or
removed), every seat has an address and no address holds two seats, and its record
verifies (engine.verify: every roll and every step replayed).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from openskill.models import PlackettLuce
from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from engine.verify import verify
from service import limit_lock
from service.models import AuditLog, Game, PlayerRating, RatedGame, Seat
from service.views import game_record

MODEL = PlackettLuce()  # mu 25, sigma 25/3: the library's defaults, as its papers tune them
# Entries that mean a seat changed hands or the game did not end by its rules.
UNRATED_ACTIONS = {"seat_opened": "a seat was opened for a replacement",
                   "seat_claimed": "a seat was taken over by another player",
                   "gm_replace": "the game master replaced a player",
                   "gm_remove": "the game master removed a player",
                   "gm_end_draw": "the game master ended it"}


@dataclass(frozen=True)
class Rating:
    mu: float
    sigma: float
    games: int

    @property
    def shown(self) -> float:
        """The number shown and filtered on: mu - 3 sigma (OpenSkill's ordinal), which starts
        at 0 and rises as games make the estimate both higher and surer."""
        return self.mu - 3 * self.sigma


NEW = Rating(MODEL.mu, MODEL.sigma, 0)


@dataclass(frozen=True)
class Judged:
    """A finished game as the ratings read it: its order key, and its places or why not."""

    game_id: str
    ruleset: str
    finished_at: datetime
    places: tuple[tuple[str, int], ...]  # (address, rank: 1 for a winner, 2 for the rest)
    reason: str | None  # None: rated

    @property
    def key(self) -> tuple[datetime, str]:
        return self.finished_at, self.game_id


Table = dict[str, Rating]  # address -> rating, one ruleset


def fold(table: Table, games: Iterable[Judged]) -> Table:
    """The ratings after `games`, in the order given; the one place a rating changes."""
    out = dict(table)
    for game in games:
        if game.reason is not None:
            continue
        addresses = [a for a, _ in game.places]
        before = [out.get(a, NEW) for a in addresses]
        teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma, name=a)]
                 for a, r in zip(addresses, before, strict=True)]
        after = MODEL.rate(teams, ranks=[float(rank) for _, rank in game.places])
        for address, old, (new,) in zip(addresses, before, after, strict=True):
            out[address] = Rating(float(new.mu), float(new.sigma), old.games + 1)
    return out


def verdict(session: Session, game: Game) -> tuple[tuple[tuple[str, int], ...], str | None]:
    """(places, None) for a rated game, ((), reason) for one that is not."""
    if game.status != "finished" or not game.outcome:
        return (), "it has not finished"
    actions = set(session.scalars(select(AuditLog.action).where(
        AuditLog.game_id == game.id, AuditLog.action.in_(list(UNRATED_ACTIONS)))))
    for action, reason in UNRATED_ACTIONS.items():
        if action in actions:
            return (), reason
    seats = list(game.seats)
    addresses = [(s.email or "").lower() for s in seats]
    if len(seats) < 2:
        return (), "it had one seat"
    if "" in addresses:
        return (), "a seat has no address"
    if len(set(addresses)) != len(addresses):
        return (), "one address played two seats"
    checked = verify(game_record(session, game))
    if not checked.ok:
        first = checked.difference
        return (), f"its record does not verify ({first.place})" if first else "its record does not verify"
    winners = set(game.outcome.get("winners") or [])
    return tuple((a, 1 if s.name in winners else 2) for s, a in zip(seats, addresses, strict=True)), None


def judge(session: Session, game: Game, finished_at: datetime) -> Judged:
    places, reason = verdict(session, game)
    return Judged(game.id, game.ruleset, finished_at, places, reason)


def finished_at(session: Session, game: Game) -> datetime:
    """When the game ended: its rated_games row, else its audit log's end entry."""
    row = session.get(RatedGame, game.id)
    if row is not None:
        return row.finished_at
    at = session.scalar(select(func.max(AuditLog.at)).where(
        AuditLog.game_id == game.id, AuditLog.action.in_(("finished", "gm_end_draw"))))
    return at if at is not None else game.created_at


def recompute(session: Session, ruleset: str | None = None) -> tuple[dict[str, Table], list[Judged]]:
    """Every ruleset's (or one's) ratings from the records alone, and each finished game's
    verdict in the ratings' order: what `dicepost ratings` shows and `rebuild` stores."""
    query = select(Game).where(Game.status == "finished")
    if ruleset is not None:
        query = query.where(Game.ruleset == ruleset)
    judged = sorted((judge(session, g, finished_at(session, g)) for g in session.scalars(query)),
                    key=lambda j: j.key)
    tables: dict[str, Table] = {}
    for name in sorted({j.ruleset for j in judged}):
        tables[name] = fold({}, (j for j in judged if j.ruleset == name))
    return tables, judged


def stored(session: Session, ruleset: str | None = None) -> dict[str, Table]:
    query = select(PlayerRating)
    if ruleset is not None:
        query = query.where(PlayerRating.ruleset == ruleset)
    out: dict[str, Table] = {}
    for row in session.scalars(query):
        out.setdefault(row.ruleset, {})[row.address] = Rating(row.mu, row.sigma, row.games)
    return out


def rebuild(session: Session, ruleset: str | None = None) -> dict[str, Table]:
    """Store `recompute`'s ratings and verdicts in place of what was stored (the caller's
    transaction)."""
    tables, judged = recompute(session, ruleset)
    _store_verdicts(session, judged)
    gone = delete(PlayerRating)
    session.execute(gone if ruleset is None else gone.where(PlayerRating.ruleset == ruleset))
    for name, table in tables.items():
        _store_table(session, name, table)
    return tables


def update(session: Session) -> int:
    """The worker's pass (idempotent): judge the pending games and fold the rated ones into
    the stored ratings; the number of games judged. The caller's transaction."""
    limit_lock.hold(session, "ratings", "all")  # one pass at a time; the pending rows read under it
    pending = session.execute(select(RatedGame, Game).join(Game, Game.id == RatedGame.game_id)
                              .where(RatedGame.status == "pending")).all()
    by_ruleset: dict[str, list[tuple[RatedGame, Game]]] = {}
    for row, game in pending:
        by_ruleset.setdefault(game.ruleset, []).append((row, game))
    for name, rows in sorted(by_ruleset.items()):
        judged = sorted((judge(session, game, row.finished_at) for row, game in rows), key=lambda j: j.key)
        done = session.execute(select(RatedGame.finished_at, RatedGame.game_id)
                               .join(Game, Game.id == RatedGame.game_id)
                               .where(Game.ruleset == name, RatedGame.status != "pending")).all()
        newest = max(((at, gid) for at, gid in done), default=None)
        if newest is not None and judged[0].key < newest:
            rebuild(session, name)  # one arrived out of order: fold the ruleset again from nothing
            continue
        _store_verdicts(session, judged)
        table = stored(session, name).get(name, {})
        after = fold(table, judged)
        _store_table(session, name, {a: r for a, r in after.items() if table.get(a) != r})
    return len(pending)


def _store_verdicts(session: Session, judged: Sequence[Judged]) -> None:
    for j in judged:
        row = session.get(RatedGame, j.game_id)
        if row is None:
            row = RatedGame(game_id=j.game_id, finished_at=j.finished_at)
            session.add(row)
        row.status, row.reason = ("rated", None) if j.reason is None else ("unrated", j.reason[:300])


def _store_table(session: Session, ruleset: str, table: Table) -> None:
    for address, rating in table.items():
        row = session.get(PlayerRating, (address, ruleset))
        if row is None:
            session.add(PlayerRating(address=address, ruleset=ruleset, mu=rating.mu, sigma=rating.sigma,
                                     games=rating.games))
        else:
            row.mu, row.sigma, row.games = rating.mu, rating.sigma, rating.games
    session.flush()


def pending_games(session: Session) -> int:
    return int(session.scalar(select(func.count()).select_from(RatedGame)
                              .where(RatedGame.status == "pending")) or 0)


def rating_of(session: Session, address: str, ruleset: str) -> float | None:
    """The player's shown rating in the ruleset (mu - 3 sigma), None before their first
    rated game there. For seating and entry rules; reads within the caller's transaction."""
    row = session.get(PlayerRating, (address.lower(), ruleset))
    return None if row is None else Rating(row.mu, row.sigma, row.games).shown


def ratings_of(session: Session, address: str) -> dict[str, Rating]:
    """Every ruleset the player is rated in: ruleset -> rating."""
    return {row.ruleset: Rating(row.mu, row.sigma, row.games) for row in session.scalars(
        select(PlayerRating).where(PlayerRating.address == address.lower()).order_by(PlayerRating.ruleset))}


def shown_by_seat(session: Session, games: Sequence[Game]) -> dict[tuple[str, str], float]:
    """(game id, seat name) -> the seat's player's shown rating in its game's ruleset, for
    the seats that have one (the lobby)."""
    ids = [g.id for g in games]
    if not ids:
        return {}
    rows = session.execute(
        select(Seat.game_id, Seat.name, PlayerRating.mu, PlayerRating.sigma, PlayerRating.games)
        .join(Game, Game.id == Seat.game_id)
        .join(PlayerRating, (PlayerRating.address == func.lower(Seat.email))
              & (PlayerRating.ruleset == Game.ruleset))
        .where(Seat.game_id.in_(ids), Seat.joined_at.is_not(None))).all()
    return {(gid, name): Rating(mu, sigma, n).shown for gid, name, mu, sigma, n in rows}
