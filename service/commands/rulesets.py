"""`dicepost rulesets`: the registered rule systems and their options."""

from __future__ import annotations

import argparse
import json

from service.catalog import rulesets_json


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("rulesets", help="list the rulesets and their options")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    data = rulesets_json()
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    for r in data:
        print(f"{r['id']}: {r['title']} ({r['min_players']}-{r['max_players']} players)")
        print(f"    {r['summary']}")
        for o in r["options"]:
            print(f"    --option {o['name']}={json.dumps(o['default'])}  {o['doc']}")
    return 0
