"""`python -m bench` (`make bench`): side by side with boardgame.io, floor, engine, full stack, embedded
default, capacity, scale (active games, memory) and history (pages and the record by rounds) in one go.

Every size is a flag; docs/performance.md ("How to run") says what each part takes. Results print
as text (and optionally as JSON and as Markdown for docs/performance.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

PARTS = ("peer", "floor", "engine", "full", "embedded", "capacity", "scale", "history")


def numbers(text: str) -> tuple[int, ...]:
    """A comma-separated list of whole numbers ("60,600,6000")."""
    try:
        return tuple(int(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a comma-separated list of whole numbers: {text!r}") from None


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    p.add_argument("--only", action="append", choices=PARTS, help="run only these parts (repeatable)")
    p.add_argument("--rulesets", help="engine: comma-separated ruleset ids (default: all)")
    p.add_argument("--engine-rounds", type=int, default=200, help="engine: rounds per size (at least)")
    p.add_argument("--engine-repeat", type=int, default=3, help="engine: timed passes, the best counts")
    p.add_argument("--games", type=int, default=20, help="service: games played at once (G)")
    p.add_argument("--players", type=int, default=2, help="service: players per game (P)")
    p.add_argument("--seconds", type=float, default=20, help="service: length of each phase")
    p.add_argument("--web-workers", type=int, default=2, help="full stack: web server processes")
    p.add_argument("--web-threads", type=int, default=8, help="full stack: threads per web server process")
    p.add_argument("--workers", type=int, default=2, help="full stack: `dicepost worker` processes")
    p.add_argument("--concurrency", type=int, default=1, help="full stack: --concurrency of each worker")
    p.add_argument("--redis-db", type=int, default=11, help="full stack: Redis database number")
    p.add_argument("--mail-workers", type=int, default=1,
                   help="full stack: workers on the mail queue only (0: every worker takes both queues)")
    p.add_argument("--no-email", action="store_true", help="service: seats without addresses (no mail)")
    p.add_argument("--pg-seconds", type=int, default=10, help="floor: pgbench duration")
    p.add_argument("--clients", type=int, default=8, help="floor: pgbench and redis-benchmark clients")
    p.add_argument("--client", choices=("auto", "wrk", "python"), default="auto",
                   help="web floor and capacity: the load generator (auto: wrk when on the PATH)")
    p.add_argument("--web-floor-seconds", type=float, default=8,
                   help="floor: each run against the trivial Flask app (GET /ping, PUT /update)")
    p.add_argument("--task-floor-tasks", type=int, default=2000,
                   help="floor: trivial Celery tasks (one INSERT each) for --workers workers (0: skip)")
    p.add_argument("--capacity-rounds", type=int, default=600,
                   help="capacity: games prepared, each with one round made ready for the workers (R)")
    p.add_argument("--capacity-seconds", type=float, default=15,
                   help="capacity: length of the submission run")
    p.add_argument("--capacity-clients", type=int, default=16,
                   help="web floor and capacity: concurrent connections of the load generator")
    p.add_argument("--capacity-timeout", type=float, default=180,
                   help="capacity: at most this long for the R rounds to be resolved")
    p.add_argument("--peer", metavar="DIR",
                   help="peer: the boardgame.io harness's folder (default: $DICEPOST_PEER_DIR, else "
                        "bench.peer.DEFAULT_DIR, a peers folder beside the checkout); skipped when absent")
    p.add_argument("--peer-games", type=int, default=200, help="peer: matches played")
    p.add_argument("--peer-turns", type=int, default=50, help="peer: turns per match")
    p.add_argument("--peer-clients", default="200,16",
                   help="peer: comma-separated concurrencies, each run by the peer and by dicepost")
    p.add_argument("--peer-embedded-games", type=int, default=200,
                   help="peer: games of the embedded default's submissions run (0: none)")
    p.add_argument("--peer-embedded-only", action="store_true",
                   help="peer: only the embedded default's submissions run (no peer, no full stack)")
    p.add_argument("--scale-games", type=numbers, default=(60, 600, 6000),
                   help="scale: active games at each submission run (games cloned in SQL, bench.bulk)")
    p.add_argument("--scale-seconds", type=float, default=8, help="scale: length of each submission run")
    p.add_argument("--scale-resolve", type=int, default=200,
                   help="scale: rounds two workers resolve at the largest count before memory is read")
    p.add_argument("--scale-visit", type=int, default=2500,
                   help="scale: games whose orders are read once before memory is read (past the "
                        "legal-orders cache's 2,048 entries; 6000: every game, minutes; 0: none)")
    p.add_argument("--history-rounds", type=numbers, default=(10, 50, 100),
                   help="history: resolved rounds at which the pages and the record are measured")
    p.add_argument("--history-units", type=numbers, default=(4, 16, 64),
                   help="history: units per side of each universal game (a size it cannot field is reported)")
    p.add_argument("--history-repeat", type=int, default=5,
                   help="history: calls of each page at each mark, the least CPU counts")
    p.add_argument("--json", type=Path, help="also write the results as JSON here")
    p.add_argument("--markdown", type=Path, help="also write the report as Markdown here")
    return p.parse_args(argv)


def run(args: argparse.Namespace) -> dict[str, Any]:
    from bench import capacity, machine
    from bench.stack import FullSizes

    parts = args.only or list(PARTS)
    results: dict[str, Any] = {"machine": machine.facts()}
    sizes = FullSizes(args.web_workers, args.web_threads, args.workers, args.concurrency, args.redis_db,
                      args.mail_workers)
    capacity_spec = capacity.CapacitySpec(
        rounds=args.capacity_rounds, seconds=args.capacity_seconds, clients=args.capacity_clients,
        tool=args.client, players=args.players, emails=not args.no_email, timeout=args.capacity_timeout,
        floor_seconds=args.web_floor_seconds)
    if "peer" in parts:
        from bench import peer

        peer_spec = peer.PeerSpec(games=args.peer_games, turns=args.peer_turns,
                                  concurrencies=tuple(int(c) for c in args.peer_clients.split(",")),
                                  embedded_games=args.peer_embedded_games,
                                  embedded_only=args.peer_embedded_only)
        results["peer"] = peer.run(sizes, capacity_spec, args.peer, peer_spec)
    if "floor" in parts:
        from bench import floor

        results["floor"] = floor.run(args.pg_seconds, args.clients)
        results["floor"]["web"] = capacity.web_floor(sizes, capacity_spec)
        if args.task_floor_tasks > 0:
            from bench import taskfloor

            results["floor"]["tasks"] = taskfloor.run(f"redis://127.0.0.1:6379/{args.redis_db}", args.workers,
                                                      args.task_floor_tasks)
    if "engine" in parts:
        from bench import engine

        rulesets = args.rulesets.split(",") if args.rulesets else None
        results["engine"] = engine.run(rulesets, args.engine_rounds, args.engine_repeat)
    if "full" in parts or "embedded" in parts:
        from bench import service
        from bench.load import LoadSpec

        spec = LoadSpec(args.games, args.players, args.seconds, emails=not args.no_email)
        if "full" in parts:
            results["full"] = service.run_full(spec, sizes)
        if "embedded" in parts:
            results["embedded"] = service.run_embedded(spec)
    if "capacity" in parts:
        results["capacity"] = capacity.run(sizes, capacity_spec)
    if "scale" in parts:
        from bench import scale

        results["scale"] = scale.run(sizes, scale.ScaleSpec(
            games=args.scale_games, seconds=args.scale_seconds, clients=args.capacity_clients,
            resolve=args.scale_resolve, visit=args.scale_visit, tool=args.client))
    if "history" in parts:
        from bench import history

        results["history"] = history.run(history.HistorySpec(
            marks=args.history_rounds, units=args.history_units, repeat=args.history_repeat))
    return results


def main(argv: list[str] | None = None) -> int:
    from bench.report import render

    args = parse(argv)
    results = run(args)
    print(render(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, default=str))
    if args.markdown:
        args.markdown.write_text(render(results, md=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
