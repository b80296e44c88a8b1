"""`dicepost beat`: Celery beat, ringing the sweeper every DICEPOST_SWEEP_SECONDS (full mode)."""

from __future__ import annotations

import os
import tempfile

import click

from service.commands import Refused, make_app


@click.command("beat", help="Run Celery beat for the periodic sweeper (needs REDIS_URL).")
@click.option("--schedule-file", default="",
              help="where beat keeps its schedule (default: a temporary file)")
@click.option("--loglevel", default="INFO", show_default=True)
def command(schedule_file: str, loglevel: str) -> int:
    app = make_app()
    if app.config["EMBEDDED"]:
        raise Refused(
            "dicepost beat needs REDIS_URL (embedded mode sweeps in a thread of `serve`)")
    schedule = schedule_file or os.path.join(tempfile.gettempdir(), f"dicepost-beat-{os.getpid()}")
    app.extensions["celery"].start(["beat", "--loglevel", loglevel, "--schedule", schedule])
    return 0
