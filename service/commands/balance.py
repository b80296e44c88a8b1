"""`dicepost balance --ruleset R [--games N] [--seed S]`: a seeded bot tournament.

Every pairing of the ruleset's entrants (heroes: the hero cards; universal: a mixed army
and one army per unit type; the others: their default forces) plays N two-player games,
seats swapped every other game; prints each entrant's win rate with a 95% Wilson
interval, every pairing's record and the rounds games took. The tournament is
`engine.balance` (pure); this module only parses the options and prints.
"""

from __future__ import annotations

import click

from engine.balance import entrants, tournament
from engine.registry import UnknownRuleset, find_ruleset


@click.command("balance", help="Play a seeded bot tournament and print win rates.")
@click.option("--ruleset", "ruleset_id", required=True, help="the ruleset id")
@click.option("--games", default=10, show_default=True, type=click.IntRange(1, 10_000),
              help="games per pairing (seats swapped every other game)")
@click.option("--seed", default="balance", show_default=True, help="names the games: same seed, same report")
@click.option("--max-rounds", default=200, show_default=True, type=click.IntRange(1, 10_000),
              help="a game still going after this many rounds is a draw")
@click.option("--only", multiple=True, help="play only these entrants (repeat the option)")
def command(ruleset_id: str, games: int, seed: str, max_rounds: int, only: tuple[str, ...]) -> int:
    try:
        find_ruleset(ruleset_id)
    except UnknownRuleset as exc:
        raise click.BadParameter(str(exc), param_hint="--ruleset") from None
    pool = entrants(ruleset_id)
    unknown = [n for n in only if n not in pool]
    if unknown:
        raise click.BadParameter(f"not an entrant of {ruleset_id}: {', '.join(unknown)} "
                                 f"(entrants: {', '.join(pool)})", param_hint="--only")
    report = tournament(ruleset_id, games=games, seed=seed, max_rounds=max_rounds,
                        only=list(only) or None)
    click.echo(report.text())
    return 0
