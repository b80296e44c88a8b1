"""The task queue's own floor: how many trivial tasks N Celery worker processes run a second.

Same Celery settings as dicepost's workers (service.config.celery_config: late acks,
prefetch 1, Redis broker with a key prefix), same process model (`-c 1` prefork), and
each task does the least a resolution could: one INSERT through SQLAlchemy Core in one
transaction on PostgreSQL. The queue is filled before the workers start; the rate is
taken from the tasks' own commit times (first to last), so start-up is not in it.
A resolution cannot be cheaper than this task: the ratio says how far the "200 rounds
resolved a second with 2 workers" target is from what Celery itself does here.

This module is also the workers' Celery app (`celery -A bench.taskfloor worker`).
"""

from __future__ import annotations

import os
import secrets
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from celery import Celery

from bench import procs
from bench.pgdb import private_database
from bench.stack import BIN, Stack, backend_pids, wait_log
from service.config import celery_config

QUEUE_ENV, DB_ENV, REDIS_ENV, PREFIX_ENV = ("BENCH_TASKFLOOR_QUEUE", "BENCH_TASKFLOOR_DB",
                                            "BENCH_TASKFLOOR_REDIS", "BENCH_TASKFLOOR_PREFIX")


def make_app(queue: str, redis_url: str, prefix: str) -> Celery:
    conf = celery_config(redis_url, "", prefix, 60)
    conf.update(task_default_queue=queue, task_routes={}, beat_schedule={})
    app = Celery("taskfloor")
    app.config_from_object(conf)
    return app


# The workers' app: `run` passes the queue, broker and key prefix in their environment.
app = make_app(os.environ.get(QUEUE_ENV, "taskfloor"), os.environ.get(REDIS_ENV, "redis://127.0.0.1:6379/11"),
               os.environ.get(PREFIX_ENV, ""))
_engine: Any = None


@app.task(name="bench.taskfloor.write_one", ignore_result=True)
def write_one(k: int) -> None:
    """One INSERT in one transaction: the least a task that records its work can do."""
    global _engine
    from sqlalchemy import create_engine, text

    if _engine is None:
        _engine = create_engine(os.environ[DB_ENV].replace("postgresql://", "postgresql+psycopg://", 1))
    with _engine.begin() as conn:
        conn.execute(text("INSERT INTO taskfloor (k, at) VALUES (:k, clock_timestamp())"), {"k": k})


def run(redis_url: str, workers: int, tasks: int) -> dict[str, Any]:
    """Fill a private queue with `tasks` tasks, start `workers` processes, time the tasks."""
    import psycopg

    prefix = f"bench-taskfloor-{secrets.token_hex(4)}:"
    queue = f"{prefix}q"
    with ExitStack() as exits:
        db_url = exits.enter_context(private_database("taskfloor"))
        with psycopg.connect(db_url, autocommit=True) as conn:
            conn.execute("CREATE TABLE taskfloor (k integer NOT NULL, at timestamptz NOT NULL)")
        env = {**os.environ, QUEUE_ENV: queue, DB_ENV: db_url, REDIS_ENV: redis_url, PREFIX_ENV: prefix}
        sender = make_app(queue, redis_url, prefix)  # the workers' queue and key prefix
        for k in range(tasks):
            sender.send_task("bench.taskfloor.write_one", (k,), queue=queue)
        workdir = Path(exits.enter_context(tempfile.TemporaryDirectory(prefix="dicepost-taskfloor-")))
        stack = Stack("taskfloor", 0, env, workdir, db_url)
        exits.callback(stack.stop)
        started = [stack.start(f"worker {i + 1}", [str(BIN / "celery"), "-A", "bench.taskfloor", "worker",
                                                    "-c", "1", "-Q", queue, "-l", "INFO",
                                                    "--without-gossip", "--without-mingle",
                                                    "--without-heartbeat", "-n", f"taskfloor{i}@%h"])
                   for i in range(workers)]
        for proc in started:
            wait_log(stack, proc, b"ready.")
        deadline = time.monotonic() + 120
        with psycopg.connect(db_url, autocommit=True) as conn:
            while True:
                done, first, last = conn.execute(
                    "SELECT count(*), min(at), max(at) FROM taskfloor").fetchone() or (0, None, None)
                if done >= tasks or time.monotonic() > deadline:
                    break
                time.sleep(0.2)
        cpu = sum(procs.cpu_seconds(pid) for p in stack.procs for pid in procs.tree(p.popen.pid))
        cpu += sum(procs.cpu_seconds(pid) for pid in backend_pids(db_url.rsplit("/", 1)[1]))
        seconds = (last - first).total_seconds() if done > 1 and first and last else 0.0
        return {"workers": workers, "tasks": tasks, "done": int(done), "seconds": seconds,
                "tasks_per_s": (done - 1) / seconds if seconds > 0 else 0.0,
                "cpu_seconds_with_startup": cpu,
                "command": f"{workers} × celery worker -c 1 (dicepost's Celery settings), "
                           f"{tasks} tasks, each one INSERT in one transaction"}
