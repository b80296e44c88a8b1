"""`dicepost rulesets`: the registered rule systems and their options."""

from __future__ import annotations

import json

import click

from service.catalog import rulesets_json


def player_count(low: int, high: int) -> str:
    """'2 players' or '2 to 4 players'."""
    return f"{low} players" if low == high else f"{low} to {high} players"


@click.command("rulesets", help="List the rulesets and their options.")
@click.option("--json", "as_json", is_flag=True, help="print JSON")
def command(as_json: bool) -> int:
    data = rulesets_json()
    if as_json:
        click.echo(json.dumps(data, indent=2))
        return 0
    for r in data:
        click.echo(f"{r['id']}: {r['title']} ({player_count(r['min_players'], r['max_players'])})")
        click.echo(f"    {r['summary']}")
        click.echo(f"    rules revision {r['revision']} (new games play it; older games keep theirs)")
        for o in r["options"]:
            click.echo(f"    --option {o['name']}={json.dumps(o['default'])}  {o['doc']}")
    return 0
