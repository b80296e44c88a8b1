"""One round's resolution, in-process: `python -m bench.resolve`.

G two-player universal games on a private PostgreSQL database, both seats' orders sent
(as the capacity run prepares them, bench.profile.prepare_games): G ready rounds. They are
resolved one a transaction as a worker's task resolves its own round
(`service.resolution.resolve_round`), after the process's in-memory chain marks are
dropped (`--seen` keeps them): in the capacity run every game is new to the worker that
resolves it. Prints the CPU and SQL statements per round, and the CPU of its parts measured
around them: the engine (`run_round`: the orders checked and the round resolved) and the
dice key (`step_dice`: S_t and K_t); the rest is the service's (claim, reads, writes, COMMIT).

- `--callgrind` switches callgrind's instrumentation on for the measured rounds only; run
  as `valgrind --tool=callgrind --instr-atstart=no python -m bench.resolve --callgrind`
  and read the instructions from callgrind's summary (`Collected`), divided by `--games`.
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
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from bench.endpoints import Meter, catch_sends, metered_app
from bench.load import send_orders
from bench.pgdb import private_database
from bench.profile import TestApi, prepare_games


def timed(parts: defaultdict[str, float], name: str, call: Callable[..., Any]) -> Callable[..., Any]:
    """call, its CPU time added to parts[name]."""
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return call(*args, **kwargs)
        finally:
            parts[name] += time.process_time() - start
    return wrapper


def run(url: str, args: argparse.Namespace) -> None:
    from service import caches, resolution
    from service.db import engine_of, session_scope

    ready, _mail = catch_sends()
    meter = Meter()
    app = metered_app(url, meter)
    client = app.test_client()
    api = TestApi(client)
    rng = random.Random(1)
    prepared = prepare_games(client, api, args.games, rng)
    for gid, tokens, number, _body in prepared:
        send_orders(api, gid, tokens[1], number, rng)
    rounds = list(ready)
    if not args.seen:
        caches.clear_all()
    parts: defaultdict[str, float] = defaultdict(float)
    if not args.callgrind:  # the wrappers' own cost stays out of the instruction count
        for name, part in (("run_round", "engine"), ("step_dice", "dice key")):
            setattr(resolution, name, timed(parts, part, getattr(resolution, name)))
    profile = cProfile.Profile(time.process_time)
    control = shutil.which("callgrind_control") or "callgrind_control"
    with app.app_context():
        if args.callgrind:
            subprocess.run([control, "-i", "on", str(os.getpid())], check=True, capture_output=True)
        for gid, number in rounds:
            with session_scope() as session:
                if args.profile:
                    profile.enable()
                assert meter.time("resolve", resolution.resolve_round, session, gid, number)
                profile.disable()
        if args.callgrind:
            subprocess.run([control, "-i", "off", str(os.getpid())], check=True, capture_output=True)
    n = len(rounds)
    total = 1000 * meter.cpu["resolve"] / n
    print(f"resolve: {total:.2f} ms CPU a round, {meter.statements['resolve'] / n:.1f} statements, "
          f"{n} rounds ({'marks kept' if args.seen else 'games new to the process'})")
    if parts:
        inner = {k: 1000 * v / n for k, v in parts.items()}
        for name, ms in inner.items():
            print(f"  {name}: {ms:.2f} ms")
        print(f"  the rest (claim, reads, writes, COMMIT): {total - sum(inner.values()):.2f} ms")
    if args.profile:
        pstats.Stats(profile, stream=sys.stdout).sort_stats("cumulative").print_stats(args.profile)
    engine_of(app).dispose()


def main() -> None:
    p = argparse.ArgumentParser(prog="python -m bench.resolve", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", type=int, default=100, help="ready rounds resolved, one a game")
    p.add_argument("--seen", action="store_true", help="keep the chain marks the games' creation left")
    p.add_argument("--callgrind", action="store_true", help="instrument only the measured rounds")
    p.add_argument("--profile", type=int, default=0, help="cProfile's top N functions")
    args = p.parse_args()
    with private_database("resolve") as url:
        run(url, args)


if __name__ == "__main__":
    main()
