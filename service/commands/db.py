"""`dicepost db upgrade`: apply the packaged migrations to DATABASE_URL (or the SQLite file)."""

from __future__ import annotations

import argparse

from service import create_app
from service.db import engine_of
from service.migrate import current, upgrade


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("db", help="database migrations")
    dbsub = parser.add_subparsers(dest="db_command", metavar="ACTION", required=True)
    up = dbsub.add_parser("upgrade", help="apply every migration (idempotent)")
    up.add_argument("revision", nargs="?", default="head")
    up.set_defaults(func=run_upgrade)
    cur = dbsub.add_parser("current", help="print the applied revision")
    cur.set_defaults(func=run_current)


def run_upgrade(args: argparse.Namespace) -> int:
    app = create_app()
    upgrade(engine_of(app), args.revision)
    print(f"database at {current(engine_of(app))}: {engine_of(app).url.render_as_string()}")
    return 0


def run_current(args: argparse.Namespace) -> int:
    print(current(engine_of(create_app())) or "empty")
    return 0
