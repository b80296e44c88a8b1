"""Every figure of a run with its ratio to the floor, and where each target stands (text or Markdown)."""

from __future__ import annotations

from typing import Any

from bench.stack import SERVICE_APP, server_text
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
    return (f"date: {f['date']}\ncommand: {f['command']}\ntree: {f.get('tree', '?')}\n"
            f"nproc: {f['nproc']} ({f['cpu']})\n"
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


def _cpu_text(cpu_ms: dict[str, float]) -> str:
    return ", ".join(f"{k} {v:.2f}" if v < 1 else f"{k} {v:.1f}" for k, v in cpu_ms.items())


def _others(run: dict[str, Any], nproc: Any) -> str:
    """How many cores other work on the shared machine kept busy during a run."""
    m = run.get("machine")
    return f"{m['others_cores']:.2f} of {nproc}" if m else "-"


def _share(value: float, of: float | None) -> str:
    return f"{value / of:.1%}" if of else "-"


def _answers(run: dict[str, Any]) -> str:
    """Errors, with the answers that were not 2xx by status."""
    bad = {s: k for s, k in run["statuses"].items() if not s.startswith("2")}
    parts = [f"{k} × {s}" for s, k in bad.items()]
    if run["socket_errors"]:
        parts.append(f"{run['socket_errors']} socket errors")
    return f"{run['errors']}" + (f" ({', '.join(parts)})" if parts else "")


OTHERS = "cores busy with other work"
WEB_FLOOR_RUNS = (("ping", "GET /ping (a short JSON)"), ("update", "PUT /update (one single-row UPDATE)"))


def web_floor_text(floor: dict[str, Any], nproc: Any, md: bool) -> str:
    web, tps = floor["web"], floor.get("pgbench", {}).get("tps")
    rows = []
    for key, what in WEB_FLOOR_RUNS:
        r = web[key]
        rows.append([what, f"{r['ok_per_s']:,.0f}", _share(r["ok_per_s"], tps),
                     f"{r['p50_ms']:,.1f} / {r['p99_ms']:,.1f}", _answers(r), _cpu_text(r["cpu_ms_per_ok"]),
                     str(r["pg_connections_opened"]), _others(r, nproc), r["load_after"]])
    return (f"bench/floorapp.py under {web['server']}, loaded by {web['tool']} with "
            f"{web['ping']['clients']} connections for {web['ping']['seconds']:.0f} s each:\n\n"
            + table(["request", "requests/s", "of pgbench", "answer ms p50 / p99", "errors",
                     "CPU ms per request", "PG connections opened", OTHERS, "load after"], rows, md))


def _submission_row(sub: dict[str, Any], tps: float | None, floor_put: float | None, nproc: Any) -> list[str]:
    return [f"{sub['games']}×{sub['players']} (1 seat sends)", f"{sub['tool']}, {sub['clients']} connections",
            f"{sub['ok_per_s']:,.1f}", _share(sub["ok_per_s"], tps), _share(sub["ok_per_s"], floor_put),
            f"{sub['p50_ms']:,.0f} / {sub['p99_ms']:,.0f}", _answers(sub), _cpu_text(sub["cpu_ms_per_ok"]),
            f"{sub['stored']:,}", str(sub["pg_connections_opened"]), _others(sub, nproc), sub["load_after"]]


def _resolution_row(res: dict[str, Any], tps: float | None, nproc: Any) -> list[str]:
    cpu = {k: v for k, v in res["cpu_ms_per_round"].items() if k != "web"}
    split = res.get("worker_split_ms_per_round")
    cpu_text = _cpu_text(cpu)
    if split:
        cpu_text += f" (worker: Celery consumer {split['consumer']:.1f}, pool {split['pool']:.1f})"
    first_last, task_ms = res.get("first_to_last_per_s"), res["log"]["task_ms_p50"]
    return [f"{res['workers']} × `dicepost worker -c {res['concurrency']}`",
            f"{res['resolved']:,} of {res['rounds']:,}",
            f"{res['rounds_per_s']:,.1f} in {res['seconds']:.1f} s",
            f"{first_last:,.1f}" if first_last else "-", _share(res["rounds_per_s"], tps), cpu_text,
            f"{task_ms:,.0f}" if task_ms is not None else "-", str(res["errors"]), f"{res['mail_queued']:,}",
            _others(res, nproc), res["load_after"]]


def task_floor_text(floor: dict[str, Any], md: bool) -> str:
    t, tps = floor["tasks"], floor.get("pgbench", {}).get("tps")
    return ("bench/taskfloor.py: dicepost's Celery settings and process model, each task one INSERT in "
            "one transaction; the queue filled first, the rate from the tasks' own commit times:\n\n"
            + table(["floor", "tasks/s", "of pgbench", "tasks done", "command"],
                    [["Celery tasks with the workers of the capacity run", f"{t['tasks_per_s']:,.0f}",
                      _share(t["tasks_per_s"], tps), f"{t['done']:,} of {t['tasks']:,}", t["command"]]], md))


def capacity_text(results: dict[str, Any], md: bool) -> str:
    cap, floor, nproc = results["capacity"], results.get("floor", {}), results["machine"]["nproc"]
    tps = floor.get("pgbench", {}).get("tps")
    floor_put = floor.get("web", {}).get("update", {}).get("ok_per_s")
    submissions = table(["submissions: games×players", "client", "submissions/s", "of pgbench",
                         "of web floor PUT /update", "answer ms p50 / p99", "errors", "CPU ms per submission",
                         "versions stored", "PG connections opened", OTHERS, "load after"],
                        [_submission_row(cap["submission"], tps, floor_put, nproc)], md)
    resolution = table(["resolution: workers", "rounds resolved",
                        "rounds/s (doorbells released → all resolved)", "rounds/s first → last commit",
                        "of pgbench", "CPU ms per round",
                        "task ms p50 (in the worker)", "errors", "mail left queued", OTHERS, "load after"],
                       [_resolution_row(cap["resolution"], tps, nproc)], md)
    sub, res, sizes = cap["submission"], cap["resolution"], cap["sizes"]
    server = server_text(SERVICE_APP, sizes["web_workers"], sizes["web_threads"])
    about = (f"{sub['games']:,} games of {sub['players']} seats on a stack of their own ({server}; "
             f"no mail worker: mail waits in its own queue), prepared over HTTP in {cap['prepare_s']:.0f} s. "
             "Submissions: seat 1 of every "
             f"game replaced its orders for {sub['seconds']:.0f} s, the other seats sent none (the rounds "
             f"stayed open). Resolution: the other seats then sent theirs, so {res['rounds']:,} doorbells "
             f"waited in the resolve queue while {res['workers']} workers started "
             f"({res['worker_boot_s']:.1f} s, not counted) and resolved {res['warm_rounds']} warm-up rounds; "
             "then they were released. CPU: the stack's processes, its PostgreSQL backends (sampled every "
             "0.1 s), the whole Redis server, the load generator; the last columns but one: what other work "
             "on the machine used meanwhile.")
    return f"{about}\n\n{submissions}\n\n{resolution}"


def scale_text(results: dict[str, Any], md: bool) -> str:
    sc, nproc = results["scale"], results["machine"]["nproc"]
    rows = []
    for r in sc["runs"]:
        rows.append([f"{r['games']:,}", f"{r['active_games']:,}", f"{r['cloned_s']:.1f}",
                     f"{r['tool']}, {r['clients']} connections", f"{r['ok_per_s']:,.1f}",
                     f"{r['p50_ms']:,.0f} / {r['p99_ms']:,.0f}", _answers(r),
                     f"{_server_ms(r['cpu_ms_per_ok']):.2f}", _cpu_text(r["cpu_ms_per_ok"]),
                     _others(r, nproc), r["load_after"]])
    rows_per_game = ", ".join(f"{k} {v}" for k, v in sc["rows_per_game"].items())
    about = (f"One two-player universal game created and joined over HTTP, then cloned in SQL "
             f"(bench.bulk; rows per game: {rows_per_game}) up to each count; seat 1 of every game "
             f"replaced its orders for {sc['spec']['seconds']:.0f} s, spread over all the games in turn.")
    parts = [about, table(["active games", "in the database", "cloning s", "client", "submissions/s",
                           "answer ms p50 / p99", "errors", "CPU ms per submission (web + PostgreSQL)",
                           "CPU ms per submission by role", OTHERS, "load after"], rows, md)]
    res = sc.get("resolution")
    if res:
        visited = (f"the orders of {sc['visited']:,} games read once ({sc['visit_s']:.0f} s)"
                   if sc.get("visited") else "no game's orders read")
        parts.append(f"Then {visited}"
                     + f", and {res['resolved']:,} of {res['rounds']:,} rounds resolved by {res['workers']} "
                     f"workers ({res['rounds_per_s']:,.1f}/s, {res['errors']} errors) at "
                     f"{sc['active_games']:,} active games. Memory:")
    mem = [[m["role"], str(m["pid"]), m["process"], f"{m['peak_rss_mb']:.0f}"] for m in sc.get("memory", [])]
    parts.append(table(["role", "pid", "process", "peak RSS MB"], mem, md))
    return "\n\n".join(parts)


def history_text(results: dict[str, Any], md: bool) -> str:
    rows, ops = [], []
    for e in results["history"]:
        if "refused" in e:
            others = "; ".join(f"{rid}: {why}" for rid, why in e["others_refuse"].items())
            rows.append([e["size"], "-", f"cannot field: universal {e['refused']}"
                         + (f"; {others}" if others else ""), "", "", ""])
            continue
        for m in e["marks"]:
            rows.append([e["size"], str(m["rounds"]),
                         *(f"{m[k]['cpu_ms']:.1f} / {m[k]['statements']} / {m[k]['bytes']:,}"
                           for k in ("game page", "round page", "record")),
                         ""])
        if e["slopes"]:
            rows[-1][-1] = ", ".join(f"{s['ms_per_round']:.2f} ms, {s['bytes_per_round']:,.0f} B "
                                     f"({s['from']}→{s['to']})" for s in e["slopes"])
        op = e["operations"]
        ops.append([e["size"], *(f"{op[k]['cpu_ms']:.1f} / {op[k]['statements']:.1f}" if k in op else "-"
                                 for k in ("GET orders", "PUT orders", "resolve"))])
    about = ("In-process (Flask's test client), one universal game per size played with moves only; "
             "at each mark each page asked repeatedly, the least CPU counted (the view, templates, "
             "SQLAlchemy, psycopg and the test client; not PostgreSQL's CPU). "
             "Cells: CPU ms / SQL statements / bytes.")
    return (about + "\n\n" + table(["size", "rounds", "game page", "round page", "record",
                                      "record per round of history"], rows, md)
            + "\n\n" + table(["size", "GET orders ms / statements", "PUT orders ms / statements",
                                "resolve ms / statements"], ops, md))


def _server_ms(cpu_ms: dict[str, float]) -> float:
    """A request's server CPU: the web processes and their PostgreSQL backends."""
    return cpu_ms.get("web", 0.0) + cpu_ms.get("postgres", 0.0)


def _ratio(ours: float | None, theirs: float | None) -> str:
    return f"{ours / theirs:.2f}×" if ours is not None and theirs else "-"


def peer_rows(peer: dict[str, Any]) -> list[list[str]]:
    rows = []
    for run in peer["runs"]:
        c, bg, dp, fl = run["clients"], run["peer"], run["dicepost"], run["floor"]
        bg_cpu, dp_cpu, fl_cpu = (bg["server_cpu_ms_per_move"], _server_ms(dp["cpu_ms_per_ok"]),
                                  _server_ms(fl["cpu_ms_per_ok"]))
        rows += [
            [f"turns accepted per second, {c} at once", f"{bg['moves_per_s']:,.0f} moves/s",
             f"{dp['ok_per_s']:,.0f} submissions/s", _ratio(dp["ok_per_s"], bg["moves_per_s"]),
             f"{fl['ok_per_s']:,.0f}/s"],
            [f"answer ms p50 / p99, {c} at once", f"{bg['p50_ms']:,.0f} / {bg['p99_ms']:,.0f}",
             f"{dp['p50_ms']:,.0f} / {dp['p99_ms']:,.0f}", _ratio(dp["p99_ms"], bg["p99_ms"]) + " (p99)",
             f"{fl['p50_ms']:,.0f} / {fl['p99_ms']:,.0f}"],
            [f"server CPU ms per turn, {c} at once", f"{bg_cpu:.2f}" if bg_cpu is not None else "-",
             f"{dp_cpu:.2f} (web {dp['cpu_ms_per_ok'].get('web', 0):.2f} + PostgreSQL "
             f"{dp['cpu_ms_per_ok'].get('postgres', 0):.2f})", _ratio(dp_cpu, bg_cpu), f"{fl_cpu:.2f}"],
            [f"errors, {c} at once", f"{bg['errors']}" + (" (timed out)" if bg["timed_out"] else ""),
             _answers(dp), "", _answers(fl)],
            [f"{OTHERS}, {c} at once",
             f"{bg['others_cores']:.2f}" if bg.get("others_cores") is not None else "-",
             f"{dp['machine']['others_cores']:.2f}" if dp.get("machine") else "-", "",
             f"{fl['machine']['others_cores']:.2f}" if fl.get("machine") else "-"],
        ]
    emb = peer.get("embedded")
    if emb:
        rows.append([f"embedded default (dicepost serve, SQLite), {emb['clients']} at once", "",
                     f"{emb['ok_per_s']:,.0f} submissions/s, {emb['p50_ms']:,.0f} / {emb['p99_ms']:,.0f} ms, "
                     f"web CPU {emb['cpu_ms_per_ok'].get('web', 0):.2f} ms, errors {_answers(emb)}", "", ""])
    if peer.get("embedded_failed"):
        rows.append(["embedded default (dicepost serve, SQLite)", "", f"failed: {peer['embedded_failed']}",
                     "", ""])
    res = peer.get("resolution")
    if res:
        worker = res["cpu_ms_per_round"].get("worker", 0.0)
        rows.append([f"rounds resolved per second, {res['workers']} workers", "(resolves inline)",
                     f"{res['rounds_per_s']:,.0f}/s, {worker:.1f} ms worker CPU a round", "", ""])
    mem = peer.get("memory") or []
    if mem:
        web = max((m for m in mem if m["role"] == "web"), key=lambda m: m["peak_rss_mb"], default=None)
        bg_mb = max((r["peer"]["server_peak_rss_mb"] or 0 for r in peer["runs"]), default=0)
        if web:
            rows.append(["peak memory of a server process", f"{bg_mb:,.0f} MB",
                         f"{web['peak_rss_mb']:,.0f} MB (web)", "", ""])
    return rows


def peer_text(results: dict[str, Any], md: bool) -> str:
    peer = results["peer"]
    if "skipped" in peer:
        return f"skipped: {peer['skipped']}"
    if peer.get("embedded_only"):
        return ("Only the embedded default (--peer-embedded-only): `dicepost serve` on SQLite, seat 1 of "
                f"each game replacing its orders ({peer['tool']}).\n\n"
                + table(["figure", "boardgame.io", "dicepost", "dicepost ÷ boardgame.io",
                         "the floor of our stack"], peer_rows(peer), md))
    spec, v = peer["spec"], peer["versions"]
    about = (f"boardgame.io {v['boardgame.io']} ({spec['storage']} storage, node {v['node']}, harness from "
             f"{peer['where']}), {spec['games']} matches × {spec['turns']} turns, bare socket.io clients; "
             "then dicepost's capacity submissions (seat 1 of 600 games replacing its orders, "
             f"{peer['tool']}) and "
             "the floor (a Flask app doing one single-row UPDATE under the same web server) at the same "
             "concurrency, in the same run. Server CPU: the peer's server less a setup-only run; dicepost's "
             "and the floor's web processes and PostgreSQL backends.")
    return about + "\n\n" + table(["figure", "boardgame.io", "dicepost", "dicepost ÷ boardgame.io",
                                     "the floor of our stack"], peer_rows(peer), md)


def targets_text(results: dict[str, Any], md: bool) -> str:
    rows = [[t, m, "met" if ok else "NOT met"] for t, m, ok in all_targets(results)]
    return table(["target", "measured", "status"], rows, md)


def render(results: dict[str, Any], md: bool = False) -> str:
    parts = [facts_text(results["machine"])]
    head = (lambda s: f"### {s}") if md else (lambda s: f"== {s}")
    if results.get("peer"):
        parts += [head("Side by side with boardgame.io (same machine, same run)"), peer_text(results, md)]
    if results.get("floor"):
        parts += [head("Floor"), floor_text(results["floor"], md)]
    if results.get("engine"):
        parts += [head("Engine (one core; CPU time, wall in brackets)"), engine_text(results["engine"], md)]
    if results.get("floor", {}).get("web"):
        parts += [head("Web floor (Flask + granian + SQLAlchemy alone)"),
                  web_floor_text(results["floor"], results["machine"]["nproc"], md)]
    if results.get("floor", {}).get("tasks"):
        parts += [head("Task floor (Celery + Redis + one INSERT alone)"),
                  task_floor_text(results["floor"], md)]
    if results.get("full") or results.get("embedded"):
        parts += [head("Service"), service_text(results, md)]
    if results.get("capacity"):
        parts += [head("Capacity (full stack)"), capacity_text(results, md)]
    if results.get("scale"):
        parts += [head("Scale: submissions against active games, memory at the largest count"),
                  scale_text(results, md)]
    if results.get("history"):
        parts += [head("History: pages and the record as rounds accumulate, by army size"),
                  history_text(results, md)]
    parts += [head("Targets"), targets_text(results, md)]
    return "\n\n".join(parts) + "\n"
