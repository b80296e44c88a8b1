"""The `dicepost` command: one argparse sub-command per module in service/commands/.

To add a command, write service/commands/<name>.py with `register(subparsers)` (which
sets `func=<callable(args) -> int>` on its parser) and add one line to COMMANDS.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence

COMMANDS = [
    "service.commands.serve",
    "service.commands.run",
    "service.commands.worker",
    "service.commands.beat",
    "service.commands.db",
    "service.commands.rulesets",
    "service.commands.new_game",
    "service.commands.demo",
    "service.commands.sweep",
    "service.commands.verify",
    "service.commands.mail_ingest",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="dicepost", description=(
        "Play-by-email and web host for skirmish games with verifiable dice. Embedded default "
        "(SQLite, in-process tasks) unless DATABASE_URL and REDIS_URL are set."))
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("alembic").setLevel(logging.WARNING)
    args = build_parser().parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
