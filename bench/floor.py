"""The machine's floor, measured in the same run: what PostgreSQL and Redis alone can do here.

- pgbench: transactions/s of a single-row UPDATE (pgbench_accounts by random aid, scale 1),
  `clients` connections, in a private database.
- redis-benchmark: PING round trips/s with `clients` connections, and the mean round trip
  of a single client (no pipelining): the least any Celery doorbell can cost.
"""

from __future__ import annotations

import csv
import io
import re
import shutil
import subprocess
import tempfile
from typing import Any
from urllib.parse import urlparse

from bench.machine import load
from bench.pgdb import private_database
from bench.progress import Progress

UPDATE_SCRIPT = """\\set aid random(1, 100000 * :scale)
\\set delta random(-5000, 5000)
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
"""
REDIS = ("127.0.0.1", "6379")


def _pg_args(url: str) -> list[str]:
    u = urlparse(url)
    return ["-h", u.hostname or "127.0.0.1", "-p", str(u.port or 5432), "-U", u.username or "postgres",
            u.path.lstrip("/")]


def pgbench(seconds: int, clients: int) -> dict[str, Any]:
    with private_database("floor") as url, tempfile.NamedTemporaryFile("w", suffix=".sql") as script:
        script.write(UPDATE_SCRIPT)
        script.flush()
        subprocess.run(["pgbench", "-i", "-q", "-s", "1", *_pg_args(url)], check=True,
                       capture_output=True, text=True)
        loadavg = load()
        out = subprocess.run(["pgbench", "-n", "-f", script.name, "-c", str(clients), "-j", "2",
                              "-T", str(seconds), *_pg_args(url)],
                             check=True, capture_output=True, text=True).stdout
    tps = re.search(r"tps = ([\d.]+) \(without initial connection time\)", out)
    latency = re.search(r"latency average = ([\d.]+) ms", out)
    if tps is None:
        raise RuntimeError(f"cannot read pgbench's output:\n{out}")
    return {"tps": float(tps.group(1)), "latency_ms": float(latency.group(1)) if latency else None,
            "clients": clients, "seconds": seconds, "load": loadavg,
            "command": f"pgbench -n -f update.sql -c {clients} -j 2 -T {seconds} (scale 1)"}


def _redis_ping(requests: int, clients: int) -> dict[str, float]:
    out = subprocess.run(["redis-benchmark", "-h", REDIS[0], "-p", REDIS[1], "-t", "ping",
                          "-n", str(requests), "-c", str(clients), "--csv"],
                         check=True, capture_output=True, text=True).stdout
    rows = {r["test"]: r for r in csv.DictReader(io.StringIO(out))}
    row = rows.get("PING_MBULK") or next(iter(rows.values()))
    return {"rps": float(row["rps"]), "avg_ms": float(row["avg_latency_ms"]),
            "p99_ms": float(row["p99_latency_ms"])}


def redis_bench(requests: int, clients: int) -> dict[str, Any]:
    loadavg = load()
    many = _redis_ping(requests, clients)
    one = _redis_ping(max(requests // 5, 1000), 1)
    return {"rps": many["rps"], "clients": clients, "rtt_ms": one["avg_ms"], "single_rps": one["rps"],
            "load": loadavg,
            "command": f"redis-benchmark -t ping -n {requests} -c {clients} --csv (and -c 1)"}


def run(pg_seconds: int, clients: int) -> dict[str, Any]:
    missing = [tool for tool in ("pgbench", "redis-benchmark") if shutil.which(tool) is None]
    if missing:
        raise SystemExit(f"{' and '.join(missing)} not found: the floor needs them (Debian: apt-get install "
                         "postgresql-client redis-tools), or leave it out with --only engine --only full ...")
    bar = Progress("floor (pgbench, redis)", 2)
    pg = pgbench(pg_seconds, clients)
    bar.advance(note=f"pgbench {pg['tps']:.0f} tps")
    rd = redis_bench(100_000, clients)
    bar.close(f"redis {rd['rps']:.0f} rps")
    return {"pgbench": pg, "redis": rd}
