"""The web server and the JSON codec, chosen by measurement: `python -m bench.servers`.

gunicorn (gthread, as the stack runs it) against granian (WSGI interface, as many workers
and blocking threads), and Flask's standard-library JSON against orjson, on the web floor
(bench/floorapp.py: GET /ping, PUT /update) and on the service (capacity submissions: seat 1
of G prepared games replacing its orders). Each pairing runs `--repeat` times, alternating,
with the same client (wrk when on the PATH) and connections; figures are requests/s and
CPU ms per request by role (from /proc), so other load on the machine matters less.
"""

from __future__ import annotations

import argparse
from contextlib import ExitStack
from dataclasses import replace
from typing import Any

from bench import capacity, hammer
from bench import stack as stacks
from bench.capacity import CapacitySpec
from bench.client import Api
from bench.report import table
from bench.stack import FullSizes

SERVERS = ("gunicorn", "granian")
CODECS = ("stdlib", "orjson")


def _row(what: str, figures: dict[str, Any]) -> list[str]:
    cpu = figures["cpu_ms_per_ok"]
    return [what, f"{figures['ok_per_s']:,.0f}", f"{figures['p50_ms']:.1f} / {figures['p99_ms']:.1f}",
            f"{cpu.get('web', 0):.2f}", f"{cpu.get('postgres', 0):.2f}", str(figures["errors"])]


def floor(sizes: FullSizes, spec: CapacitySpec, tool: str, repeat: int,
          codecs: tuple[str, ...] = CODECS) -> list[list[str]]:
    rows = []
    for k in range(repeat):
        for server in SERVERS:
            for codec in codecs:
                with ExitStack() as exits:
                    stack = capacity.floor_stack(exits, replace(sizes, server=server),
                                                 {"BENCH_FLOOR_JSON": codec})
                    for method, path, body in (("GET", "/ping", None), ("PUT", "/update", "{}")):
                        figures = capacity.hammered(stack, [hammer.Request(method, path, body)], spec, tool,
                                                    spec.floor_seconds, f"{server} {codec} {method} {path}")
                        what = f"floor {method} {path}, {server}, {codec} JSON, run {k + 1}"
                        rows.append(_row(what, figures))
    return rows


def service(sizes: FullSizes, spec: CapacitySpec, tool: str, repeat: int,
            servers: tuple[str, ...] = SERVERS) -> list[list[str]]:
    """The servers up at once, each on its own database and games; their runs alternate.

    "dicepost" is `dicepost web` as the image runs it (granian, the startup checks, the access log)."""
    rows = []
    with ExitStack() as exits:
        up: list[tuple[str, stacks.Stack, capacity.Db, Any]] = []
        for server in servers:
            stack = stacks.full_stack(exits, replace(sizes, server=server), workers=False,
                                      tag=f"srv{len(up)}")
            db = capacity.Db(stack.db_url)
            exits.callback(db.close)
            up.append((server, stack, db, capacity.prepare_games(Api(stack.port), spec, spec.rounds, 0,
                                                                  f"{server}: games")))
        for k in range(repeat):
            for server, stack, db, games in up:
                figures = capacity.submission_phase(stack, db, games, spec, tool)
                rows.append(_row(f"service PUT orders, {server}, run {k + 1}", figures))
    return rows


def main() -> None:
    p = argparse.ArgumentParser(prog="python -m bench.servers", description=__doc__)
    p.add_argument("--clients", type=int, default=16)
    p.add_argument("--seconds", type=float, default=8)
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--repeat", type=int, default=2)
    p.add_argument("--only", choices=("floor", "service"))
    p.add_argument("--codecs", default=",".join(CODECS), help="floor: the JSON codecs, comma-separated")
    p.add_argument("--servers", default=",".join(SERVERS),
                   help="service: the servers, comma-separated (also: dicepost, i.e. `dicepost web`)")
    args = p.parse_args()
    spec = CapacitySpec(rounds=args.games, seconds=args.seconds, clients=args.clients,
                        floor_seconds=args.seconds)
    tool = hammer.choose_tool("auto")
    rows = []
    if args.only in (None, "floor"):
        rows += floor(FullSizes(), spec, tool, args.repeat, tuple(args.codecs.split(",")))
    if args.only in (None, "service"):
        rows += service(FullSizes(), spec, tool, args.repeat, tuple(args.servers.split(",")))
    print(table(["run", "requests/s", "answer ms p50 / p99", "web CPU ms", "PostgreSQL CPU ms", "errors"],
                rows, markdown=True))


if __name__ == "__main__":
    main()
