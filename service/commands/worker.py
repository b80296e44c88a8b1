"""`dicepost worker`: a Celery worker on the `resolve` and `mail` queues (full mode)."""

from __future__ import annotations

import os
import sys

import click

from service.commands import Refused, make_app, require_seal
from service.supervise import is_child, supervise


@click.command("worker", help="Run a Celery worker (needs REDIS_URL).")
@click.option("--queues", "-Q", default="", help="comma-separated queues (default: both)")
@click.option("--concurrency", "-c", type=click.IntRange(min=1), default=2, show_default=True)
@click.option("--loglevel", default="INFO", show_default=True)
def command(queues: str, concurrency: int, loglevel: str) -> int:
    app = make_app()
    if app.config["EMBEDDED"]:
        raise Refused(
            "dicepost worker needs REDIS_URL (embedded mode runs tasks in-process)")
    require_seal(app)
    if not is_child():  # this process watches; a child of it runs the worker
        return supervise(sys.orig_argv)
    celery = app.extensions["celery"]
    # Celery's start() returns the worker's exit status (worker_main drops it, so a worker
    # that stopped on an unrecoverable error would exit 0 and look to a supervisor as if it
    # had been asked to stop).
    status = celery.start(["worker", "-Q", queues or ",".join(app.config["QUEUES"].values()),
                           "-c", str(concurrency), "--loglevel", loglevel, "--without-gossip",
                           "--without-mingle", "-n", f"dicepost-{os.getpid()}@%h"])
    return int(status or 0)
