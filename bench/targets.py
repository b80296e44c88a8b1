"""The performance targets (docs/performance.md), each judged from a run's results:
(target, measured, met)."""

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


def submission_target(results: dict[str, Any]) -> tuple[str, str, bool] | None:
    """Judged on the capacity run's submissions/s; without one, on the latency phase (bounded by games)."""
    tps = results.get("floor", {}).get("pgbench", {}).get("tps")
    if not tps:
        return None
    name = "order submissions ≥ 30% of pgbench single-row updates/s"
    cap = results.get("capacity")
    if cap:
        sub = cap["submission"]
        put = results["floor"].get("web", {}).get("update", {}).get("ok_per_s")
        floor = f"; web floor PUT /update {put:,.0f}/s = {put / tps:.1%}" if put else ""
        return (name, f"{sub['ok_per_s']:,.1f}/s = {sub['ok_per_s'] / tps:.1%} of {tps:,.0f} (capacity, "
                      f"{sub['tool']}, {sub['clients']} connections{floor})", sub["ok_per_s"] / tps >= 0.30)
    full = results.get("full")
    if full:
        rate = full["full_speed"]["submissions_per_s"]
        return (name, f"{rate:,.1f}/s = {rate / tps:.1%} of {tps:,.0f} (latency phase: bounded by its "
                      "games, not a capacity figure; run --only capacity)", rate / tps >= 0.30)
    return None


def resolution_target(results: dict[str, Any]) -> tuple[str, str, bool] | None:
    """Judged on the capacity run's rounds/s; without one, on the latency phase (bounded by its games)."""
    cap, full = results.get("capacity"), results.get("full")
    if cap:
        res = cap["resolution"]
        tasks = results.get("floor", {}).get("tasks")
        floor = (f"; Celery floor {tasks['tasks_per_s']:,.0f} trivial tasks/s with {tasks['workers']} workers"
                 if tasks else "")
        return (f"≥ 200 rounds resolved/s with 2 worker processes (run with {res['workers']})",
                f"{res['rounds_per_s']:,.1f}/s ({res['resolved']:,} ready rounds, capacity{floor})",
                res["rounds_per_s"] >= 200)
    if full:
        rate = full["full_speed"]["rounds_per_s"]
        return (f"≥ 200 rounds resolved/s with 2 worker processes (run with {full['sizes']['workers']})",
                f"{rate:,.1f}/s (latency phase: bounded by its games; run --only capacity)", rate >= 200)
    return None


def service_targets(results: dict[str, Any]) -> list[tuple[str, str, bool]]:
    out = [t for t in (submission_target(results), resolution_target(results)) if t]
    full = results.get("full")
    if full:
        half = full.get("half_speed")
        if half and half.get("latency_ms"):
            p99 = half["latency_ms"]["p99"]
            out.append(("p99 last order → round visible ≤ 100 ms at half the maximum throughput",
                        f"{p99:,.0f} ms at {half['rounds_per_s']:,.1f} rounds/s", p99 <= 100))
    stacks = [results[k] for k in ("full", "embedded") if results.get(k)]
    cap = results.get("capacity")
    if stacks or cap:
        errors = sum(s[p]["errors"] for s in stacks for p in ("full_speed", "half_speed") if p in s)
        if cap:
            errors += cap["submission"]["errors"] + cap["resolution"]["errors"]
        out.append(("zero errors", f"{errors}", errors == 0))
        memory = [m for s in [*stacks, *([cap] if cap else [])] for m in s["memory"]]
        if memory:
            peak = max(memory, key=lambda m: m["peak_rss_mb"])
            out.append(("a web or worker process ≤ 150 MB resident",
                        f"largest {peak['peak_rss_mb']:.0f} MB ({peak['role']}, {peak['process']})",
                        peak["peak_rss_mb"] <= MB_LIMIT))
    return out


CPU_PER_SUBMISSION_MS = 1.5
ROUNDS_PER_S = 500
EMBEDDED_PER_S = 300


def peer_targets(results: dict[str, Any]) -> list[tuple[str, str, bool]]:
    """The targets judged against boardgame.io in the same run (bench.peer)."""
    peer = results.get("peer")
    if not peer or "skipped" in peer:
        return []
    out = []
    for run in peer["runs"]:
        c, bg, dp = run["clients"], run["peer"], run["dicepost"]
        out.append((f"submissions/s ≥ boardgame.io FlatFile's moves/s, {c} at once",
                    f"{dp['ok_per_s']:,.0f} vs {bg['moves_per_s']:,.0f} "
                    f"({dp['ok_per_s'] / max(bg['moves_per_s'], 1e-9):.2f}×; stretch 1.5×)",
                    dp["ok_per_s"] >= bg["moves_per_s"]))
        out.append((f"p99 answer time ≤ boardgame.io's p99 move latency, {c} at once",
                    f"{dp['p99_ms']:,.0f} ms vs {bg['p99_ms']:,.0f} ms", dp["p99_ms"] <= bg["p99_ms"]))
    for run in peer["runs"]:
        cpu = run["dicepost"]["cpu_ms_per_ok"]
        ms = cpu.get("web", 0.0) + cpu.get("postgres", 0.0)
        out.append((f"CPU per submission (web + PostgreSQL) ≤ {CPU_PER_SUBMISSION_MS} ms, "
                    f"{run['clients']} at once",
                    f"{ms:.2f} ms", ms <= CPU_PER_SUBMISSION_MS))
    emb = peer.get("embedded")
    if emb:
        out.append((f"the embedded default ≥ {EMBEDDED_PER_S} submissions/s ({emb['clients']} at once)",
                    f"{emb['ok_per_s']:,.0f}/s", emb["ok_per_s"] >= EMBEDDED_PER_S))
    res = peer.get("resolution")
    if res:
        out.append((f"≥ {ROUNDS_PER_S} rounds resolved/s with 2 worker processes (run with {res['workers']})",
                    f"{res['rounds_per_s']:,.0f}/s", res["rounds_per_s"] >= ROUNDS_PER_S))
    return out


def all_targets(results: dict[str, Any]) -> list[tuple[str, str, bool]]:
    return peer_targets(results) + engine_targets(results) + service_targets(results)
