"""Tournaments: a director's rounds of games, seated together by a committed draw.

The director creates a tournament (ruleset and options, rounds, seats a table, the entrants
in a published order, seating by random draw or by rating, the SHA-256 commitment of a seed
only they know, and the options: anonymous, no pauses, no rollbacks, no absences). Seating
reveals the seed: its commitment is checked, the draw (engine.tournament) gives every
table of every round, and each table's game is created through service.games.create_game,
its seats named p1, p2, ... and its invitations mailed to the entrants. The tables are kept
in `tournament_games`, each seat with its entrant.

- anonymous: seat names are all anyone sees; the tournament's pages, CSV and bundle name
  entrants "Entrant N" until every game has ended. A game never shows an address (the
  seats' names are p1, p2, ...), so its pages, mails, API and record are the same.
- no pauses: the GM's pause is refused in its games; no rollbacks: its games are created
  with `no_rollback`; no absences: their deadline policy has `absence_limit` P0D, so days
  away never move their deadlines (service.absence tells the table all the same).
- Seating by rating: the entrants ordered by `service.ratings.rating_of` in the ruleset,
  best first (unrated last, then by the lot), published with the draw as `bands`.
- The bundle (`bundle`): everything `dicepost verify --tournament` checks in one go, with
  every game's record.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from engine.tournament import FORMAT, Standing, commitment, draw, lot_key, standings
from service import games
from service.errors import Conflict, Forbidden, Invalid, NotFound
from service.inputs import normal_address
from service.models import Game, Tournament, TournamentGame
from service.ratings import rating_of
from service.rollback_chain import NO_ROLLBACK_OPTION
from service.schedule.policy import checked_policy
from service.tokens import new_game_id, new_token, token_hash
from service.views import game_record

SEATINGS = ("random", "rating")
MAX_ROUNDS = 20
MAX_ENTRANTS = 256
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_ENTRANT = re.compile(r"^\s*(?:(?P<name>[^<>]*?)\s*<(?P<angle>[^<>]+)>|(?P<bare>\S+))\s*$")


@dataclass(frozen=True)
class Created:
    id: str
    director_token: str


def parse_entrants(text: str) -> list[dict[str, str]]:
    """One entrant a line: `Name <address>` or an address alone; Invalid naming the line."""
    out: list[dict[str, str]] = []
    seen: set[str] = set()
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        found = _ENTRANT.match(line)
        if found is None:
            raise Invalid(f"entrants line {number}: write 'Name <address>' or an address, "
                          f"got {line.strip()!r}", "entrants")
        address = normal_address(found["angle"] or found["bare"], f"entrants line {number}")
        if address in seen:
            raise Invalid(f"entrants line {number}: {address} is entered twice", "entrants")
        seen.add(address)
        name = (found["name"] or "").strip()[:80] or f"Entrant {len(out) + 1}"
        out.append({"name": name, "email": address})
    return out


def create(session: Session, *, title: str, ruleset: str, options: dict[str, Any], rounds: Any, size: Any,
           seating: str, seed_commitment: str, entrants: Sequence[dict[str, str]], anonymous: bool,
           no_pause: bool, no_rollback: bool, no_absence: bool,
           deadline_policy: dict[str, Any] | None) -> Created:
    """Check everything, store the tournament; its id and the director's token (shown once)."""
    rules = games.ruleset_or_invalid(ruleset)
    title = title.strip() or f"{rules.info.title} tournament"
    if len(title) > 160:
        raise Invalid("title: at most 160 characters", "title")
    games.check_options(rules, options)
    if not isinstance(rounds, int) or not 1 <= rounds <= MAX_ROUNDS:
        raise Invalid(f"rounds: a whole number from 1 to {MAX_ROUNDS}", "rounds")
    if not isinstance(size, int) or size < 2:
        raise Invalid("size: the seats of a table, 2 or more", "size")
    if seating not in SEATINGS:
        raise Invalid(f"seating: one of {', '.join(SEATINGS)}", "seating")
    if not _HEX64.match(seed_commitment):
        raise Invalid("commitment: the SHA-256 of your seed, 64 lowercase hex digits "
                      "(for instance: printf %s 'my seed' | sha256sum)", "commitment")
    if not entrants or len(entrants) % size or len(entrants) > MAX_ENTRANTS:
        raise Invalid(f"entrants: {len(entrants)} entrants do not fill tables of {size} "
                      f"(at most {MAX_ENTRANTS})", "entrants")
    policy = dict(deadline_policy or {"kind": "duration", "duration": "PT48H"})
    if no_absence:
        policy["absence_limit"] = "P0D"
    policy = checked_policy(policy)
    token = new_token()
    with session.begin():
        tid = new_game_id()
        while session.get(Tournament, tid) is not None:
            tid = new_game_id()
        session.add(Tournament(
            id=tid, title=title, ruleset=rules.info.id, options=dict(options), rounds=rounds, size=size,
            seating=seating, commitment=seed_commitment, entrants=list(entrants), anonymous=anonymous,
            no_pause=no_pause, no_rollback=no_rollback, no_absence=no_absence, deadline_policy=policy,
            director_token_hash=token_hash(token), status="entry"))
    return Created(tid, token)


def get(session: Session, tid: str) -> Tournament:
    row = session.get(Tournament, tid)
    if row is None:
        raise NotFound(f"no tournament {tid!r}")
    return row


def seat(session: Session, tid: str, token: str | None, seed: str,
         join_url: Callable[[str, str], str] | None = None) -> list[tuple[str, str]]:
    """Reveal the seed, draw, create and seat every game: [(game id, GM token)], the tokens
    shown once to the director."""
    with session.begin():
        t = get(session, tid)
        if token is None or token_hash(token) != t.director_token_hash:
            raise Forbidden("only the tournament's director may seat it (their link)")
        if t.status != "entry":
            raise Conflict("the tournament is seated already", "seed")
        if commitment(seed) != t.commitment:
            raise Invalid(f"seed: its SHA-256 is {commitment(seed)}, not the commitment {t.commitment} "
                          "published at creation", "seed")
        bands = _bands(session, t, seed) if t.seating == "rating" else None
        tables = draw(seed, t.id, len(t.entrants), t.rounds, t.size, bands)
        spec = (t.title, t.ruleset, dict(t.options), t.no_rollback, t.deadline_policy, list(t.entrants))
    title, ruleset, options, no_rollback, policy, entrants = spec
    made: list[tuple[int, int, dict[str, int], games.CreatedGame]] = []
    for r, round_tables in enumerate(tables, start=1):
        for n, table in enumerate(round_tables, start=1):
            seats = {f"p{j + 1}": e for j, e in enumerate(table)}
            created = games.create_game(
                session, ruleset, f"{title}: round {r}, table {n}",
                [games.SeatSpec(name, entrants[e]["email"]) for name, e in seats.items()],
                {**options, NO_ROLLBACK_OPTION: no_rollback}, True, join_url, deadline_policy=policy)
            made.append((r, n, seats, created))
    with session.begin():
        t = get(session, tid)
        t.seed, t.bands, t.status = seed, bands, "seated"
        for r, n, seats, created in made:
            session.add(TournamentGame(game_id=created.id, tournament_id=t.id, round=r, table=n, seats=seats))
    return [(c.id, c.gm_token) for _r, _n, _s, c in made]


def _bands(session: Session, t: Tournament, seed: str) -> list[int]:
    """The entrants best rated first; the unrated after them; ties by the lot."""
    rated = [(rating_of(session, e["email"], t.ruleset), i) for i, e in enumerate(t.entrants)]
    return [i for _r, i in sorted(rated, key=lambda p: (p[0] is None, -(p[0] or 0.0),
                                                         lot_key(t.id, seed, 0, p[1])))]


def tables_of(session: Session, tid: str) -> list[tuple[TournamentGame, Game]]:
    return [(tg, g) for tg, g in session.execute(
        select(TournamentGame, Game).join(Game, Game.id == TournamentGame.game_id)
        .where(TournamentGame.tournament_id == tid).order_by(TournamentGame.round, TournamentGame.table))]


def ended(rows: Sequence[tuple[TournamentGame, Game]]) -> bool:
    return bool(rows) and all(g.status == "finished" for _tg, g in rows)


def names(t: Tournament, rows: Sequence[tuple[TournamentGame, Game]]) -> list[str]:
    """What the entrants are called in public: their names, or "Entrant N" while an
    anonymous tournament goes on. Never their addresses."""
    if t.anonymous and not ended(rows):
        return [f"Entrant {i + 1}" for i in range(len(t.entrants))]
    return [str(e.get("name") or f"Entrant {i + 1}") for i, e in enumerate(t.entrants)]


def table(session: Session, tid: str) -> list[Standing]:
    t = get(session, tid)
    rows = tables_of(session, tid)
    return standings(t.seed or "", t.id, len(t.entrants),
                     [({k: int(v) for k, v in tg.seats.items()},
                       g.outcome if g.status == "finished" else None) for tg, g in rows])


def is_no_pause(session: Session, game_id: str) -> bool:
    """Whether the game is a table of a tournament whose director forbade pauses."""
    return bool(session.scalar(
        select(Tournament.no_pause).join(TournamentGame, TournamentGame.tournament_id == Tournament.id)
        .where(TournamentGame.game_id == game_id)))


def bundle(session: Session, tid: str) -> dict[str, Any]:
    """What `dicepost verify --tournament` reads: the commitment and seed, the draw's inputs,
    every table with its seats' entrants, every game's public record, and the standings."""
    t = get(session, tid)
    rows = tables_of(session, tid)
    shown = names(t, rows)
    rounds: list[list[dict[str, Any]]] = [[] for _ in range(t.rounds)] if rows else []
    records: dict[str, Any] = {}
    for tg, g in rows:
        rounds[tg.round - 1].append({"game_id": g.id, "seats": {k: int(v) for k, v in tg.seats.items()}})
        records[g.id] = game_record(session, g)
    return {"format": FORMAT, "id": t.id, "title": t.title, "ruleset": t.ruleset, "commitment": t.commitment,
            "seed": t.seed, "seating": t.seating, "bands": t.bands, "entrants": len(t.entrants),
            "names": shown, "size": t.size, "rounds": rounds, "records": records,
            "options": {"anonymous": t.anonymous, "no_pause": t.no_pause, "no_rollback": t.no_rollback,
                        "no_absence": t.no_absence},
            "standings": [{**s.to_json(), "name": shown[s.entrant]} for s in table(session, tid)]}
