"""Issue 10's targets, each judged from a run's results: (target, measured, met)."""

from __future__ import annotations

from typing import Any

MB_LIMIT = 150
STATE_LIMIT = 64 * 1024


def _engine_rows(results: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in results.get("engine", []) if "rounds" in r]


def engine_targets(results: dict[str, Any]) -> list[tuple[str, str, bool]]:
    rows = _engine_rows(results)
    out = []
    for r in rows:
        if r["ruleset"] == "universal" and r["size"] == "2×8 units":
            out.append(("universal 2×8 units ≥ 1,000 rounds/s on one core",
                        f"{r['rounds_per_cpu_s']:,.0f} per CPU-second ({r['rounds_per_s']:,.0f}/s wall)",
                        r["rounds_per_cpu_s"] >= 1000))
    largest: dict[str, dict[str, Any]] = {}
    for r in rows:
        largest[r["ruleset"]] = r  # sizes are listed smallest first
    for rid, r in largest.items():
        out.append((f"{rid} ≥ 200 rounds/s at its largest size ({r['size']})",
                    f"{r['rounds_per_cpu_s']:,.0f} per CPU-second ({r['rounds_per_s']:,.0f}/s wall)",
                    r["rounds_per_cpu_s"] >= 200))
    if rows:
        biggest = max(rows, key=lambda r: r["state_bytes_max"])
        out.append(("a game's state ≤ 64 KB of JSON",
                    f"largest {biggest['state_bytes_max']:,} bytes ({biggest['ruleset']} {biggest['size']})",
                    biggest["state_bytes_max"] <= STATE_LIMIT))
    return out


def service_targets(results: dict[str, Any]) -> list[tuple[str, str, bool]]:
    out = []
    full = results.get("full")
    tps = results.get("floor", {}).get("pgbench", {}).get("tps")
    if full:
        fs = full["full_speed"]
        if tps:
            ratio = fs["submissions_per_s"] / tps
            out.append(("order submissions ≥ 30% of pgbench single-row updates/s",
                        f"{fs['submissions_per_s']:,.1f}/s = {ratio:.1%} of {tps:,.0f}", ratio >= 0.30))
        workers = full.get("sizes", {}).get("workers")
        out.append((f"≥ 200 rounds resolved/s with 2 worker processes (run with {workers})",
                    f"{fs['rounds_per_s']:,.1f}/s", fs["rounds_per_s"] >= 200))
        half = full.get("half_speed")
        if half and half.get("latency_ms"):
            p99 = half["latency_ms"]["p99"]
            out.append(("p99 last order → round visible ≤ 100 ms at half the maximum throughput",
                        f"{p99:,.0f} ms at {half['rounds_per_s']:,.1f} rounds/s", p99 <= 100))
    stacks = [results[k] for k in ("full", "embedded") if results.get(k)]
    if stacks:
        errors = sum(s[p]["errors"] for s in stacks for p in ("full_speed", "half_speed") if p in s)
        out.append(("zero errors", f"{errors}", errors == 0))
        peak = max((m for s in stacks for m in s["memory"]), key=lambda m: m["peak_rss_mb"])
        out.append(("a web or worker process ≤ 150 MB resident",
                    f"largest {peak['peak_rss_mb']:.0f} MB ({peak['role']}, {peak['process']})",
                    peak["peak_rss_mb"] <= MB_LIMIT))
    return out


def all_targets(results: dict[str, Any]) -> list[tuple[str, str, bool]]:
    return engine_targets(results) + service_targets(results)
