"""`dicepost beat`: Celery beat, ringing the sweeper every DICEPOST_SWEEP_SECONDS (full mode)."""

from __future__ import annotations

import argparse
import os
import tempfile

from service import create_app


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("beat", help="run Celery beat for the periodic sweeper (needs REDIS_URL)")
    parser.add_argument("--schedule-file", default="",
                        help="where beat keeps its schedule (default: a temporary file)")
    parser.add_argument("--loglevel", default="INFO")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    app = create_app()
    if app.config["EMBEDDED"]:
        print("dicepost beat needs REDIS_URL (embedded mode sweeps in a thread of `serve`)")
        return 2
    schedule = args.schedule_file or os.path.join(tempfile.gettempdir(),
                                                  f"dicepost-beat-{os.getpid()}")
    app.extensions["celery"].start(["beat", "--loglevel", args.loglevel, "--schedule", schedule])
    return 0
