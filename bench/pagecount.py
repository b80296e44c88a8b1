"""The game page, a round page and the record of a long game, call by call:
`python -m bench.pagecount`.

One universal game of 2 × N units is played `--rounds` rounds in-process (moves only, as
`bench.history` plays it) into a PostgreSQL database kept by name
(`dicepost_bench_keep_pages_<units>_<rounds>`, played once and reused, so two trees can be
measured on the same game; `--fresh` plays it again). Then each page (`GET /games/<id>`,
`GET /games/<id>/rounds/<last>`, `GET /api/games/<id>/record`) is asked `--warm` times
(the per-process caches filled, as for every viewer after the first) and `--calls` times
measured: the least CPU of a call (this process: the view, the templates, SQLAlchemy and
psycopg, Werkzeug's test client), its SQL statements and the answer's bytes.

- `--callgrind` runs itself under `valgrind --tool=callgrind` and prints the instructions
  per call of each page (the measured calls only, between two marks; the game is played
  first without valgrind if it is not kept yet).
- `--profile N` prints cProfile's N functions of most cumulative time, per page.
- `--save DIR` writes each page's body to DIR (compare two trees' pages byte for byte).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.mailcount import Marks, under_callgrind
from bench.pgdb import ADMIN_URL, url_of

PAGES = ("game", "round", "record")


KEPT = "dicepost_bench_keep_pages"


@contextmanager
def kept_database(units: int, rounds: int, fresh: bool, prefix: str = KEPT) -> Iterator[tuple[str, bool]]:
    """(url, new): the database kept for this size and length, created when missing."""
    import psycopg

    name = f"{prefix}_{units}_{rounds}"
    with psycopg.connect(ADMIN_URL, autocommit=True) as conn:
        if fresh:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        new = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is None
        if new:
            conn.execute(f'CREATE DATABASE "{name}"')
    yield url_of(name), new


def play(app: Any, units: int, rounds: int) -> None:
    """A universal game of 2 × units played `rounds` rounds with moves only."""
    from bench.endpoints import Meter, catch_sends
    from bench.forces import unit_size
    from bench.history import TestClientApi, moves_round, new_game
    from bench.progress import Progress

    size = unit_size("universal", units)
    if size.forces is None:
        sys.exit(f"universal cannot field 2 × {units}: {size.refused}")
    ready, mail = catch_sends()
    client = app.test_client()
    api = TestClientApi(client, Meter())
    gid, tokens = new_game(api, size, size.forces, f"pages {units}")
    rng = random.Random(units)
    bar = Progress(f"pagecount: universal 2×{units}", rounds)
    for _ in range(rounds):
        if not moves_round(app, api, gid, tokens, rng, ready, mail):
            break
        bar.advance()
    bar.close(f"{rounds} rounds")


def paths(app: Any) -> dict[str, str]:
    from sqlalchemy import text

    from service.db import engine_of

    with engine_of(app).connect() as conn:
        gid, current, status = conn.execute(text("SELECT id, current_round, status FROM games "
                                                  "ORDER BY created_at LIMIT 1")).one()
    last = current - 1 if status == "active" else current
    return {"game": f"/games/{gid}", "round": f"/games/{gid}/rounds/{last}",
            "record": f"/api/games/{gid}/record"}


def measure(app: Any, args: argparse.Namespace, marks: Marks, save: Path | None, units: int) -> None:
    from sqlalchemy import event

    from service.db import engine_of

    statements = [0]

    def on_statement(*_args: Any) -> None:
        statements[0] += 1

    event.listen(engine_of(app), "before_cursor_execute", on_statement)
    client = app.test_client()
    found = paths(app)
    pages = [p for p in PAGES if p in args.pages]
    for page in pages:
        for _ in range(args.warm):
            resp = client.get(found[page])
            if resp.status_code != 200:
                raise RuntimeError(f"GET {found[page]}: {resp.status_code} {resp.data[:300]!r}")
        if save is not None:
            (save / f"{page}-{units}.html").write_bytes(resp.data)
    marks.start()
    for page in pages:
        best, before = float("inf"), statements[0]
        profile = cProfile.Profile(time.process_time)
        for _ in range(args.calls):
            start = time.process_time()
            with marks.counted():
                if args.profile:
                    profile.enable()
                resp = client.get(found[page])
                if args.profile:
                    profile.disable()
            best = min(best, time.process_time() - start)
        marks.dump(f"{page}-{units}")
        print(f"2x{units} {page}: {1000 * best:.2f} ms least CPU of {args.calls}, "
              f"{(statements[0] - before) / args.calls:.1f} statements, {len(resp.data)} bytes", flush=True)
        if args.profile:
            pstats.Stats(profile, stream=sys.stdout).sort_stats("cumulative").print_stats(args.profile)


def inside(args: argparse.Namespace) -> None:
    from service import tasks

    send = tasks.send
    try:
        _inside(args)
    finally:
        tasks.send = send  # the doorbell as it was (a test process goes on with it)


def _inside(args: argparse.Namespace) -> None:
    from bench.endpoints import catch_sends
    from service import create_app
    from service.db import engine_of
    from service.migrate import upgrade

    save = Path(args.save) if args.save else None
    if save is not None:
        save.mkdir(parents=True, exist_ok=True)
    catch_sends()
    with tempfile.TemporaryDirectory() as tmp:
        marks = Marks.load(Path(tmp))
        for units in args.units:
            with kept_database(units, args.rounds, args.fresh, args.prefix) as (url, new):
                app = create_app({"DATABASE_URL": url, "REDIS_URL": None, "SECRET_KEY": "bench",
                                  "BASE_URL": "http://127.0.0.1", "GAMES_PER_CLIENT": "off",
                                  "CONFIRMED_DOMAINS": ("example.com",)})
                if new:
                    upgrade(engine_of(app))
                    play(app, units, args.rounds)
                if not args.play_only:
                    measure(app, args, marks, save, units)
                engine_of(app).dispose()


def numbers(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split(","))


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m bench.pagecount", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--units", type=numbers, default=(4, 16, 64), help="units per side, comma-separated")
    p.add_argument("--rounds", type=int, default=100)
    p.add_argument("--calls", type=int, default=20, help="measured calls of each page")
    p.add_argument("--warm", type=int, default=3, help="calls of each page before the measured ones")
    p.add_argument("--pages", type=lambda s: tuple(s.split(",")), default=PAGES,
                   help="which of game,round,record")
    p.add_argument("--fresh", action="store_true", help="play the kept games again")
    p.add_argument("--play-only", action="store_true", help="play (or keep) the games, measure nothing")
    p.add_argument("--callgrind", action="store_true", help="count instructions under valgrind")
    p.add_argument("--profile", type=int, default=0, help="cProfile's top N functions, per page")
    p.add_argument("--save", help="write each page's body to this directory")
    p.add_argument("--prefix", default=KEPT, help="the kept databases' names: PREFIX_<units>_<rounds>")
    args = p.parse_args(argv)
    if not args.callgrind:
        inside(args)
        return
    sizes = ["--rounds", str(args.rounds), "--units", ",".join(map(str, args.units)), "--prefix", args.prefix]
    play_first = [sys.executable, "-m", "bench.pagecount", "--play-only", *sizes]
    play_first += ["--fresh"] if args.fresh else []
    subprocess.run(play_first, check=True)
    _stdout, totals = under_callgrind("bench.pagecount", [*sizes, "--calls", str(args.calls), "--warm",
                                                          str(args.warm), "--pages", ",".join(args.pages)])
    for label, total in totals.items():
        page, _, units = label.partition("-")
        print(f"2x{units} {page}: {total / args.calls / 1e6:.2f} M instructions a call (callgrind)")


if __name__ == "__main__":
    main()
