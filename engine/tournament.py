"""Tournaments: the seating draw a director commits to, and the standings (pure).

The director picks a secret seed (any text) and gives only its commitment,
`commitment(seed)` = SHA-256 of its UTF-8 bytes (hex), when the tournament is created; the
tournament's id is drawn by the host after that, and the draw mixes it in, so a seed cannot
be chosen beforehand for a draw it gives. At seating the director reveals the seed; anyone
can then check the commitment and recompute every table with `draw`.

`draw`: for each round r (1, 2, ...) every entrant (0-based index in the published list)
gets the key H("dicepost-tournament", id, seed, r, i); entrants sorted by key fill tables
of `size` in turn. Seating by rating (`bands`: the entrants from best rated to least,
published at seating) spreads them: with T tables, band b holds places b*T .. b*T+T-1 of
the list, each band is ordered by the same keys, and table t gets the t-th entrant of each
band, so every table has one player of each strength.

`standings`: a game won by k seats gives each winner 1/k point, a draw gives each seat
1/seats, a loss 0; an unfinished game gives nothing yet. Ties are broken by (1) Buchholz,
the sum of the points of every opponent met (once per game), (2) games won, (3) the lot:
the key H("dicepost-tournament", id, seed, 0, i), lowest first.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

FORMAT = "dicepost-tournament/1"


def commitment(seed: str) -> str:
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()


def lot_key(tournament_id: str, seed: str, r: int, i: int) -> bytes:
    text = "\x00".join(("dicepost-tournament", tournament_id, seed, str(r), str(i)))
    return hashlib.sha256(text.encode("utf-8")).digest()


def draw(seed: str, tournament_id: str, entrants: int, rounds: int, size: int,
         bands: Sequence[int] | None = None) -> list[list[list[int]]]:
    """round -> table -> the entrants' indexes in seat order."""
    if size < 2 or entrants % size or entrants < size:
        raise ValueError(f"{entrants} entrants do not fill tables of {size}")
    tables = entrants // size
    out: list[list[list[int]]] = []
    for r in range(1, rounds + 1):
        def by_key(i: int, r: int = r) -> bytes:
            return lot_key(tournament_id, seed, r, i)
        if bands is None:
            order = sorted(range(entrants), key=by_key)
            out.append([order[t * size:(t + 1) * size] for t in range(tables)])
        else:
            groups = [sorted(bands[b * tables:(b + 1) * tables], key=by_key) for b in range(size)]
            out.append([[groups[b][t] for b in range(size)] for t in range(tables)])
    return out


@dataclass(frozen=True)
class Standing:
    entrant: int
    points: Fraction
    buchholz: Fraction
    wins: int
    played: int

    def to_json(self) -> dict[str, Any]:
        return {"entrant": self.entrant, "points": str(self.points), "buchholz": str(self.buchholz),
                "wins": self.wins, "played": self.played}


def standings(seed: str, tournament_id: str, entrants: int,
              games: Sequence[tuple[Mapping[str, int], Mapping[str, Any] | None]]) -> list[Standing]:
    """games: (seat -> entrant, the game's outcome or None); best first."""
    points = [Fraction(0)] * entrants
    wins = [0] * entrants
    played = [0] * entrants
    met: list[list[int]] = [[] for _ in range(entrants)]
    for seats, outcome in games:
        if outcome is None:
            continue
        winners = [w for w in outcome.get("winners") or [] if w in seats]
        for seat, e in seats.items():
            played[e] += 1
            met[e] += [o for s, o in seats.items() if s != seat]
            if not winners:
                points[e] += Fraction(1, len(seats))
            elif seat in winners:
                points[e] += Fraction(1, len(winners))
                wins[e] += 1
    rows = [Standing(e, points[e], sum((points[o] for o in met[e]), Fraction(0)), wins[e], played[e])
            for e in range(entrants)]
    return sorted(rows, key=lambda s: (-s.points, -s.buchholz, -s.wins,
                                       lot_key(tournament_id, seed, 0, s.entrant)))


def check_bundle(bundle: Mapping[str, Any]) -> list[str]:
    """What differs in a tournament bundle (empty: it holds): the seed against its
    commitment, every table against the draw, every game's players against its table.
    The games' records are checked by the caller (engine.verify), one by one; a game not
    started yet (no steps) has no players to compare."""
    problems: list[str] = []
    if bundle.get("format") != FORMAT:
        return [f"format: expected {FORMAT}, got {bundle.get('format')!r}"]
    seed = bundle.get("seed")
    if not isinstance(seed, str):
        return ["seed: not revealed yet (the tournament is not seated)"]
    if commitment(seed) != bundle.get("commitment"):
        problems.append(f"seed: its SHA-256 {commitment(seed)} is not the commitment "
                        f"{bundle.get('commitment')}")
    try:
        tables = draw(seed, str(bundle["id"]), int(bundle["entrants"]), len(bundle["rounds"]),
                      int(bundle["size"]), bundle.get("bands"))
    except (KeyError, TypeError, ValueError) as exc:
        return [*problems, f"the draw cannot be recomputed: {exc}"]
    for r, (games, drawn) in enumerate(zip(bundle["rounds"], tables, strict=False), start=1):
        if len(games) != len(drawn):
            problems.append(f"round {r}: {len(games)} games, the draw makes {len(drawn)} tables")
            continue
        for t, (game, want) in enumerate(zip(games, drawn, strict=True), start=1):
            seats = game.get("seats") or {}
            if list(seats.values()) != want:
                problems.append(f"round {r} table {t} ({game.get('game_id')}): entrants "
                                f"{list(seats.values())}, the draw seats {want}")
            record = (bundle.get("records") or {}).get(game.get("game_id"))
            if record is None:
                problems.append(f"round {r} table {t}: no record of game {game.get('game_id')}")
            elif record.get("steps") and record.get("players") != list(seats):
                problems.append(f"round {r} table {t}: the record's players {record.get('players')} are not "
                                f"the table's seats {list(seats)}")
    return problems
