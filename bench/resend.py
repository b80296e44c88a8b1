"""One submission's CPU, in-process: `python -m bench.resend`.

G two-player universal games on a private PostgreSQL database (or SQLite with
`--sqlite`), seat 1 of each has sent its orders once; then `--warm` and `--puts` PUTs of
seat 1's same orders again, spread over the games (what the capacity run's submissions
are), through Flask's test client. Prints the CPU and the SQL statements per measured PUT.

- `--fresh` makes every text new (a comment line appended), so nothing kept for a text
  sent before applies.
- `--redis URL` publishes the confirmation mail's task to that Redis (queues and keys
  under a prefix of this run, deleted at the end) as the web process does in full mode;
  without it the publish is left out (bench.endpoints.catch_sends).
- `--callgrind` switches callgrind's instrumentation on for the measured PUTs only; run
  as `valgrind --tool=callgrind --instr-atstart=no python -m bench.resend --callgrind`
  and read the instructions from callgrind's summary (`Collected`), divided by `--puts`.
- `--profile N` prints cProfile's N functions of most cumulative time.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import random
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Any

from bench.endpoints import Meter, catch_sends, metered_app
from bench.pgdb import private_database
from bench.profile import TestApi, prepare_games
from service.tasks import mail_bell


def full_mode_app(url: str, redis_url: str, meter: Meter) -> Any:
    """metered_app with a broker: the service's tasks go to Redis under this run's prefix."""
    from sqlalchemy import event

    from service import create_app
    from service.config import celery_config
    from service.db import engine_of
    from service.migrate import upgrade

    prefix = f"bench-resend-{os.getpid()}-"
    config: dict[str, Any] = {"DATABASE_URL": url, "REDIS_URL": redis_url, "REDIS_PREFIX": prefix,
                              "QUEUE_PREFIX": prefix, "SECRET_KEY": "bench", "BASE_URL": "http://127.0.0.1",
                              "GAMES_PER_CLIENT": "off", "CONFIRMED_DOMAINS": ("example.com",)}
    config["CELERY"] = celery_config(redis_url, prefix, prefix, 60)
    app = create_app(config)
    upgrade(engine_of(app))
    event.listen(engine_of(app), "before_cursor_execute", meter.on_statement)
    return app


def run(url: str, args: argparse.Namespace) -> None:
    from service.db import engine_of

    meter = Meter()
    app = full_mode_app(url, args.redis, meter) if args.redis else metered_app(url, meter)
    client = app.test_client()
    api = TestApi(client)
    rng = random.Random(1)
    games = prepare_games(client, api, args.games, rng)
    prepared = [(gid, tokens[0], body) for gid, tokens, _n, body in games]

    def put(i: int, name: str) -> None:
        gid, token, body = prepared[i % args.games]
        if args.fresh:
            body = {**body, "orders": body["orders"] + f"\n# {name} {i}"}
        r = meter.time(name, client.put, f"/api/games/{gid}/orders", json=body,
                       headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200, r.get_json()

    for i in range(args.warm):
        put(i, "warm")
    profile = cProfile.Profile(time.process_time)
    control = shutil.which("callgrind_control") or "callgrind_control"
    if args.callgrind:
        subprocess.run([control, "-i", "on", str(os.getpid())], check=True, capture_output=True)
    if args.profile:
        profile.enable()
    for i in range(args.puts):
        put(i, "PUT")
    bell = mail_bell(app)
    if bell is not None:  # the mail still waiting for its window is published inside the measurement
        meter.time("PUT", bell.flush)
    profile.disable()
    if args.callgrind:
        subprocess.run([control, "-i", "off", str(os.getpid())], check=True, capture_output=True)
    print(f"PUT orders: {1000 * meter.cpu['PUT'] / args.puts:.2f} ms CPU a call, "
          f"{meter.statements['PUT'] / args.puts:.2f} statements")
    if args.profile:
        pstats.Stats(profile, stream=sys.stdout).sort_stats("cumulative").print_stats(args.profile)
    engine_of(app).dispose()
    if args.redis:
        import redis

        broker = redis.Redis.from_url(args.redis)
        keys = list(broker.scan_iter(f"bench-resend-{os.getpid()}-*"))
        if keys:
            broker.delete(*keys)


def main() -> None:
    p = argparse.ArgumentParser(prog="python -m bench.resend", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", type=int, default=10)
    p.add_argument("--puts", type=int, default=200, help="measured PUTs")
    p.add_argument("--warm", type=int, default=30, help="PUTs before the measured ones")
    p.add_argument("--fresh", action="store_true", help="a new text every PUT")
    p.add_argument("--redis", default="", help="publish the tasks to this Redis URL")
    p.add_argument("--sqlite", action="store_true", help="on SQLite (the embedded default)")
    p.add_argument("--callgrind", action="store_true", help="instrument only the measured PUTs")
    p.add_argument("--profile", type=int, default=0, help="cProfile's top N functions")
    args = p.parse_args()
    if not args.redis:
        catch_sends()
    if args.sqlite:
        with tempfile.TemporaryDirectory() as folder:
            run(f"sqlite:///{folder}/resend.sqlite3", args)
    else:
        with private_database("resend") as url:
            run(url, args)


if __name__ == "__main__":
    main()
