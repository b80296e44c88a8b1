"""Balance reports: seeded bot tournaments between a ruleset's entrants.

An entrant is what a player brings, as the ruleset names them (`Ruleset.entrants`: its
distinct default forces unless it names others, such as a hero card each or a few
one-type armies). Every pairing of two entrants plays `games` two-player games,
the seats swapped every other game, with the greedy bots (engine.selfplay). A game that
reaches the round cap counts as a draw. Win rates carry a 95% Wilson score interval,
which stays inside 0..1 and is honest at the small counts a report can afford.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from engine.registry import find_ruleset
from engine.selfplay import play

Z95 = 1.959964  # the normal quantile of a two-sided 95% interval
SEATS = ("east", "west")  # player names in every game


def wilson(wins: int, games: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of wins / games ((0, 1) for no games)."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    denominator = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denominator
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def entrants(ruleset_id: str) -> dict[str, dict[str, Any]]:
    """Entrant name → the force it brings (the ruleset's own `entrants`)."""
    ruleset = find_ruleset(ruleset_id)
    return ruleset.entrants(ruleset.options({}))


@dataclass
class Tally:
    games: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0

    def add(self, result: str) -> None:
        self.games += 1
        if result == "win":
            self.wins += 1
        elif result == "loss":
            self.losses += 1
        else:
            self.draws += 1

    @property
    def rate(self) -> float:
        return self.wins / self.games if self.games else 0.0


@dataclass
class Report:
    ruleset: str
    seed: str
    games_per_pairing: int
    max_rounds: int
    entrants: list[str]
    totals: dict[str, Tally] = field(default_factory=dict)
    # (a, b) with a before b in entrant order → a's tally against b
    pairings: dict[tuple[str, str], Tally] = field(default_factory=dict)
    rounds: list[int] = field(default_factory=list)  # rounds each finished game took
    unfinished: int = 0

    @property
    def games(self) -> int:
        return sum(t.games for t in self.pairings.values())

    def worst_pairing_rate(self) -> float:
        """The highest share of its games any entrant won in any one pairing."""
        rates = []
        for t in self.pairings.values():
            if t.games:
                rates += [t.wins / t.games, t.losses / t.games]
        return max(rates, default=0.0)

    def text(self) -> str:
        lines = [f"balance of {self.ruleset}: {len(self.entrants)} entrants, "
                 f"{len(self.pairings)} pairings x {self.games_per_pairing} games = {self.games} "
                 f"games (seats swapped every other game), seed {self.seed!r}, greedy bots, "
                 f"cap {self.max_rounds} rounds (a draw)", "",
                 f"{'entrant':<16} {'games':>5} {'wins':>5} {'losses':>6} {'draws':>5} "
                 f"{'win rate':>8}  95% CI (Wilson)"]
        for name in self.entrants:
            t = self.totals[name]
            low, high = wilson(t.wins, t.games)
            lines.append(f"{name:<16} {t.games:>5} {t.wins:>5} {t.losses:>6} {t.draws:>5} "
                         f"{t.rate:>8.0%}  {low:.0%} to {high:.0%}")
        lines += ["", "pairings (first entrant's record):"]
        for (a, b), t in self.pairings.items():
            low, high = wilson(t.wins, t.games)
            lines.append(f"  {a} vs {b}: {t.wins}-{t.losses}-{t.draws} (win-loss-draw), "
                         f"{t.rate:.0%}, 95% CI {low:.0%} to {high:.0%}")
        if self.rounds:
            lines += ["", f"rounds to finish: mean {statistics.mean(self.rounds):.1f}, median "
                          f"{statistics.median(self.rounds):g}, min {min(self.rounds)}, max "
                          f"{max(self.rounds)} ({len(self.rounds)} finished, {self.unfinished} "
                          f"reached the cap)"]
        else:
            lines += ["", f"rounds to finish: no game finished ({self.unfinished} reached the cap)"]
        return "\n".join(lines)


def tournament(ruleset_id: str, games: int = 10, seed: str = "balance", max_rounds: int = 200,
               only: Sequence[str] | None = None,
               forces: Mapping[str, Mapping[str, Any]] | None = None) -> Report:
    """Every pairing of the entrants plays `games` games, seats swapped every other game."""
    if games < 1:
        raise ValueError("games must be at least 1")
    pool = dict(forces or entrants(ruleset_id))
    if only:
        unknown = [n for n in only if n not in pool]
        if unknown:
            raise ValueError(f"not an entrant of {ruleset_id}: {', '.join(unknown)} "
                             f"(entrants: {', '.join(pool)})")
        pool = {n: pool[n] for n in only}
    if len(pool) < 2:
        raise ValueError(f"{ruleset_id} needs at least two entrants for a tournament")
    names = list(pool)
    report = Report(ruleset_id, seed, games, max_rounds, names,
                    {n: Tally() for n in names})
    for a, b in combinations(names, 2):
        pair = report.pairings[(a, b)] = Tally()
        for k in range(games):
            first, second = (a, b) if k % 2 == 0 else (b, a)
            seated = dict(zip(SEATS, (first, second), strict=True))
            game = play(ruleset_id, f"{seed}/{a}/{b}/{k}", players=SEATS,
                        forces={p: pool[n] for p, n in seated.items()}, max_rounds=max_rounds)
            outcome = game.final.outcome
            winners = [seated[p] for p in (outcome or {}).get("winners", [])]
            if outcome is None:
                report.unfinished += 1
            else:
                report.rounds.append(game.final.round - 1)
            result = "win" if winners == [a] else "loss" if winners == [b] else "draw"
            pair.add(result)
            report.totals[a].add(result)
            report.totals[b].add({"win": "loss", "loss": "win"}.get(result, "draw"))
    return report
