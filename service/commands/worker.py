"""`dicepost worker`: a Celery worker on the `resolve` and `mail` queues (full mode)."""

from __future__ import annotations

import argparse
import os

from service import create_app


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("worker", help="run a Celery worker (needs REDIS_URL)")
    parser.add_argument("--queues", "-Q", default="", help="comma-separated queues (default: both)")
    parser.add_argument("--concurrency", "-c", type=int, default=2)
    parser.add_argument("--loglevel", default="INFO")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    app = create_app()
    if app.config["EMBEDDED"]:
        print("dicepost worker needs REDIS_URL (embedded mode runs tasks in-process)")
        return 2
    queues = args.queues or ",".join(app.config["QUEUES"].values())
    celery = app.extensions["celery"]
    # Celery's start() returns the worker's exit status (worker_main drops it, so a worker
    # that stopped on an unrecoverable error would exit 0 and look to a supervisor as if it
    # had been asked to stop).
    status = celery.start(["worker", "-Q", queues, "-c", str(args.concurrency), "--loglevel",
                           args.loglevel, "--without-gossip", "--without-mingle", "-n",
                           f"dicepost-{os.getpid()}@%h"])
    return int(status or 0)
