"""`dicepost sweep`: re-ring lost work once (what beat and the embedded thread do periodically)."""

from __future__ import annotations

import argparse
import json

from service import create_app
from service.sweeper import sweep_and_ring


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("sweep", help="re-send lost work once: ready rounds, pending mail")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    app = create_app()
    with app.app_context():
        print(json.dumps(sweep_and_ring()))
    return 0
