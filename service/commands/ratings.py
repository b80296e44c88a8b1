"""`dicepost ratings`: every rating folded again from the stored records, beside what is
stored (service.ratings); `--store` writes the rebuild in place of the stored ratings."""

from __future__ import annotations

import click

from service import ratings
from service.catalog import rulesets_json
from service.commands import sealed_app
from service.db import session_scope


@click.command("ratings", help="Rebuild every rating from the stored records and compare it with "
                               "the stored ratings (exit 1 when they differ); --store writes it.")
@click.option("--ruleset", default=None, help="Only this ruleset.")
@click.option("--store", is_flag=True, help="Store the rebuilt ratings and verdicts.")
@click.option("--games", "show_games", is_flag=True, help="List each finished game's verdict too.")
def command(ruleset: str | None, store: bool, show_games: bool) -> int:
    known = [r["id"] for r in rulesets_json()]
    if ruleset is not None and ruleset not in known:
        raise click.BadParameter(f"there is no ruleset {ruleset!r}; choose one of {', '.join(known)}",
                                 param_hint="--ruleset")
    app = sealed_app()
    with app.app_context(), session_scope() as session, session.begin():
        before = ratings.stored(session, ruleset)
        if store:
            tables = ratings.rebuild(session, ruleset)
            judged = ratings.recompute(session, ruleset)[1] if show_games else []
        else:
            tables, judged = ratings.recompute(session, ruleset)
        if show_games:
            for j in judged:
                click.echo(f"{j.finished_at.isoformat()} {j.game_id} {j.ruleset}: "
                           + ("rated" if j.reason is None else f"not rated, {j.reason}"))
        differ = 0
        for name in sorted(set(tables) | set(before)):
            table, kept = tables.get(name, {}), before.get(name, {})
            click.echo(f"{name}: {len(table)} rated players")
            for address, r in sorted(table.items(), key=lambda item: (-item[1].shown, item[0])):
                same = kept.get(address) == r
                differ += not same
                click.echo(f"  {r.shown:8.3f}  mu {r.mu:.6f} sigma {r.sigma:.6f}  {r.games} games  {address}"
                           + ("" if same else "  (stored: "
                              + (f"{kept[address].shown:.3f})" if address in kept else "none)")))
            for address in sorted(set(kept) - set(table)):
                differ += 1
                click.echo(f"  stored only: {address}")
    if store:
        click.echo(f"stored the rebuilt ratings ({differ} differed from what was stored)")
        return 0
    click.echo("the stored ratings equal the rebuild" if not differ
               else f"{differ} stored ratings differ from the rebuild (dicepost ratings --store writes it)")
    return 1 if differ else 0
