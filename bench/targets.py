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
        out += latency_targets(full)
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


LATENCY_MS = {"full_speed": 100, "half_speed": 30}


def latency_targets(full: dict[str, Any]) -> list[tuple[str, str, bool]]:
    """p99 last order → round resolved and visible, at full and at half speed, with what mail did."""
    out = []
    for phase, limit in LATENCY_MS.items():
        p = full.get(phase)
        if not p or not p.get("latency_ms"):
            continue
        p99, mail = p["latency_ms"]["p99"], p.get("mail") or {}
        with_mail = (f"mail on: {mail.get('sent_per_s', 0):,.1f} sent/s" if mail.get("sent")
                     else "no mail sent: seats without addresses or no mail worker")
        out.append((f"p99 last order → round resolved and visible ≤ {limit} ms at "
                    f"{phase.replace('_', ' ')} (full stack with mail)",
                    f"{p99:,.0f} ms at {p['rounds_per_s']:,.1f} rounds/s ({with_mail})",
                    p99 <= limit and bool(mail.get("sent"))))
    return out


FLAT_RATIO = 1.25  # "flat": the dearest size's CPU per submission within this of the cheapest's
SCALE_GAMES = (60, 6000)
PAGE_MS = 10
PAGE_ROUNDS = 100
UNITS = (4, 16, 64)


def _server_ms(cpu_ms: dict[str, float]) -> float:
    return cpu_ms.get("web", 0.0) + cpu_ms.get("postgres", 0.0)


def scale_targets(results: dict[str, Any]) -> list[tuple[str, str, bool]]:
    """CPU per submission against the number of active games, and memory at the largest (bench.scale)."""
    sc = results.get("scale")
    if not sc or not sc.get("runs"):
        return []
    ms = [(r["games"], _server_ms(r["cpu_ms_per_ok"])) for r in sc["runs"]]
    lo, hi = min(v for _, v in ms), max(v for _, v in ms)
    spread = hi / lo if lo > 0 else float("inf")
    counts = [g for g, _ in ms]
    out = [(f"CPU per submission flat from {SCALE_GAMES[0]:,} to {SCALE_GAMES[1]:,} active games "
            f"(dearest ≤ {FLAT_RATIO}× cheapest)",
            "; ".join(f"{g:,} games {v:.2f} ms" for g, v in ms) + f" (web + PostgreSQL): {spread:.2f}×",
            min(counts) <= SCALE_GAMES[0] and max(counts) >= SCALE_GAMES[1] and spread <= FLAT_RATIO)]
    memory = [m for m in sc.get("memory", []) if m["role"] == "web" or m["role"].startswith("worker")]
    if memory:
        peak = max(memory, key=lambda m: m["peak_rss_mb"])
        active = sc.get("active_games", max(counts))
        out.append((f"≤ {MB_LIMIT} MB per web or worker process at {SCALE_GAMES[1]:,} active games",
                    f"largest {peak['peak_rss_mb']:.0f} MB ({peak['role']}) at {active:,} active games",
                    peak["peak_rss_mb"] <= MB_LIMIT and active >= SCALE_GAMES[1]))
    return out


def linear(entry: dict[str, Any]) -> bool:
    """The record's statements do not grow with rounds and its cost per round does not rise
    between marks (the last slope at most 1.5× the first, with 0.2 ms of slack for noise)."""
    marks, slopes = entry["marks"], entry["slopes"]
    same = len({m["record"]["statements"] for m in marks}) == 1
    if not slopes:
        return same
    return same and slopes[-1]["ms_per_round"] <= 1.5 * max(slopes[0]["ms_per_round"], 0.0) + 0.2


def history_targets(results: dict[str, Any]) -> list[tuple[str, str, bool]]:
    """The game page, a round page and the record as the history grows, per size (bench.history)."""
    out = []
    for e in results.get("history", []):
        size = e["size"]
        if "refused" in e:
            others = "; ".join(f"{rid}: {why}" for rid, why in e["others_refuse"].items())
            out.append((f"pages and the record at {size}", f"cannot field it: universal {e['refused']}"
                        + (f"; {others}" if others else ""), False))
            continue
        if not e["marks"]:
            continue
        last = e["marks"][-1]
        first = e["marks"][0]
        for page in ("game page", "round page"):
            out.append((f"{page} ≤ {PAGE_MS} ms at {PAGE_ROUNDS} rounds of history, {size}",
                        f"{last[page]['cpu_ms']:.1f} ms CPU, {last[page]['statements']} statements at "
                        f"{last['rounds']} rounds ({first[page]['cpu_ms']:.1f} ms at {first['rounds']})",
                        last["rounds"] >= PAGE_ROUNDS and last[page]["cpu_ms"] <= PAGE_MS))
        slopes = ", ".join(f"{s['ms_per_round']:.2f} ms ({s['from']}→{s['to']})" for s in e["slopes"])
        statements = sorted({m["record"]["statements"] for m in e["marks"]})
        out.append((f"the record linear in rounds, {size}",
                    f"per round of history: {slopes or '-'}; statements {statements}; "
                    f"{last['record']['cpu_ms']:.1f} ms at {last['rounds']} rounds",
                    last["rounds"] >= PAGE_ROUNDS and linear(e)))
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
    return (peer_targets(results) + engine_targets(results) + service_targets(results)
            + scale_targets(results) + history_targets(results))
