"""Every figure of a run with its ratio to the floor, and where each target stands (text or Markdown)."""

from __future__ import annotations

from typing import Any

from bench.targets import all_targets


def table(headers: list[str], rows: list[list[str]], markdown: bool) -> str:
    if markdown:
        lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        return "\n".join(lines)
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    return "\n".join([fmt.format(*headers), fmt.format(*("-" * w for w in widths))]
                     + [fmt.format(*r) for r in rows])


def facts_text(f: dict[str, Any]) -> str:
    versions = ", ".join(f"{k} {v}" for k, v in f["versions"].items())
    return (f"date: {f['date']}\ncommand: {f['command']}\nnproc: {f['nproc']} ({f['cpu']})\n"
            f"load average at start: {f['load_at_start']}\nversions: {versions}")


def floor_text(floor: dict[str, Any], md: bool) -> str:
    pg, rd = floor["pgbench"], floor["redis"]
    return table(["floor", "figure", "load (1/5/15 min)", "command"], [
        ["pgbench single-row UPDATE", f"{pg['tps']:,.0f} tps, {pg['latency_ms']} ms mean", pg["load"],
         pg["command"]],
        ["redis-benchmark PING", f"{rd['rps']:,.0f} round trips/s ({rd['clients']} clients); "
         f"{rd['rtt_ms']} ms one client", rd["load"], rd["command"]],
    ], md)


def engine_text(rows: list[dict[str, Any]], md: bool) -> str:
    out = []
    for r in rows:
        if "refused" in r:
            out.append([r["ruleset"], r["size"], "cannot field: " + r["refused"], "", "", "", "", "", ""])
            continue
        out.append([r["ruleset"], r["size"], f"{r['rounds']}",
                    f"{r['rounds_per_cpu_s']:,.0f} ({r['rounds_per_s']:,.0f})",
                    f"{r['rolls_per_s']:,.0f}", f"{r['cpu_us_per_round']:,.0f} ({r['us_per_round']:,.0f})",
                    f"{r['dice_cpu_us_per_round']:,.0f}",
                    f"{1 / r['dice_share']:,.1f}×" if r["dice_share"] else "-",
                    f"{r['state_bytes_max']:,} ({r['state_bytes_median']:,})"])
    return table(["ruleset", "size", "rounds", "rounds/CPU-s (wall)", "rolls/s wall", "µs/round CPU (wall)",
                  "dice floor µs/round", "round ÷ dice floor", "state JSON bytes max (median)"], out, md)


def _phase_row(name: str, p: dict[str, Any], floor: dict[str, Any]) -> list[str]:
    tps = floor.get("pgbench", {}).get("tps")
    rtt = floor.get("redis", {}).get("rtt_ms")
    lat = p.get("latency_ms") or {}
    ratio = (lambda v: f" ({v / tps:.1%} of pgbench)") if tps else (lambda v: "")
    lat_ratio = f" = {lat['p99'] / rtt:,.0f}× a Redis round trip" if rtt and lat else ""
    cpu = ", ".join(f"{k} {v:.1f}" for k, v in p["cpu_ms_per_round"].items())
    mail = p.get("mail") or {}
    backlog = sum(n for s, n in mail.get("at_end", {}).items() if s in ("pending", "sending"))
    mail_text = f"{mail.get('sent_per_s', 0):,.1f} (backlog {backlog})" if mail else "-"
    if "cpu_ms_per_mail" in p:
        mail_text += f", {p['cpu_ms_per_mail']:.1f} ms CPU each"
    return [name, f"{p['games']}×{p['players']}",
            f"{p['submissions_per_s']:,.1f}{ratio(p['submissions_per_s'])}",
            f"{p['rounds_per_s']:,.1f}{ratio(p['rounds_per_s'])}",
            " / ".join(f"{lat.get(q, 0):,.0f}" for q in ("p50", "p95", "p99")) + lat_ratio if lat else "-",
            f"{p['errors']}", f"{p['refused']}", cpu, mail_text, p["load_after"]]


def service_text(results: dict[str, Any], md: bool) -> str:
    rows, mem = [], []
    floor = results.get("floor", {})
    for key in ("full", "embedded"):
        s = results.get(key)
        if not s:
            continue
        for phase in ("full_speed", "half_speed"):
            if phase in s:
                rows.append(_phase_row(f"{key}, {phase.replace('_', ' ')}", s[phase], floor))
        for m in s["memory"]:
            mem.append([key, m["role"], str(m["pid"]), m["process"], f"{m['peak_rss_mb']:.0f}"])
        mem.append([key, "load generator (this process)", "", "python -m bench", f"{s['client_rss_mb']:.0f}"])
    return (table(["stack, phase", "games×players", "orders/s", "rounds/s", "latency ms p50/p95/p99",
                   "errors", "refused (422)", "CPU ms per round", "mail sent/s", "load after"], rows, md)
            + "\n\n" + table(["stack", "role", "pid", "process", "peak RSS MB"], mem, md))


def targets_text(results: dict[str, Any], md: bool) -> str:
    rows = [[t, m, "met" if ok else "NOT met"] for t, m, ok in all_targets(results)]
    return table(["target", "measured", "status"], rows, md)


def render(results: dict[str, Any], md: bool = False) -> str:
    parts = [facts_text(results["machine"])]
    head = (lambda s: f"### {s}") if md else (lambda s: f"== {s}")
    if results.get("floor"):
        parts += [head("Floor"), floor_text(results["floor"], md)]
    if results.get("engine"):
        parts += [head("Engine (one core; CPU time, wall in brackets)"), engine_text(results["engine"], md)]
    if results.get("full") or results.get("embedded"):
        parts += [head("Service"), service_text(results, md)]
    parts += [head("Targets"), targets_text(results, md)]
    return "\n\n".join(parts) + "\n"
