"""Service bench: a stack on loopback, G games × P players at full speed, then at half of it.

The half-speed phase offers half the rounds/s the full-speed phase reached. The p99
latency from the last order to a visible round is judged in both (bench.targets: ≤ 100 ms
at full speed, ≤ 30 ms at half speed, with the seats' mail sent by the mail worker). CPU seconds
by role (web, worker, this stack's PostgreSQL backends) show what saturates first.
"""

from __future__ import annotations

from contextlib import ExitStack
from typing import Any

from bench import procs
from bench.client import Api
from bench.load import Load, LoadSpec
from bench.machine import load as loadavg
from bench.stack import FullSizes, Stack, embedded_stack, full_stack
from bench.watch import Watcher, mail_counts


def phase(stack: Stack, spec: LoadSpec, label: str) -> dict[str, Any]:
    api = Api(stack.port)
    watcher = Watcher(stack.db_url)
    before, mail_before = stack.cpu(), mail_counts(stack.db_url)
    try:
        result = Load(api, watcher, spec).run(label)
    finally:
        watcher.close()
    after, mail_after = stack.cpu(), mail_counts(stack.db_url)
    sent = mail_after.get("sent", 0) - mail_before.get("sent", 0)
    result["mail"] = {"sent": sent, "sent_per_s": sent / result["seconds"], "at_end": mail_after}
    if "mail" in after:
        result["cpu_ms_per_mail"] = 1000 * (after["mail"] - before.get("mail", 0.0)) / max(sent, 1)
    rounds = max(result["rounds"], 1)
    result["cpu_seconds"] = {role: after.get(role, 0.0) - before.get(role, 0.0) for role in after}
    result["cpu_ms_per_round"] = {role: 1000 * v / rounds for role, v in result["cpu_seconds"].items()}
    result["load_after"] = loadavg()
    stack.check_alive()
    return result


def bench_stack(stack: Stack, spec: LoadSpec, name: str) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": stack.kind, "load_before": loadavg(), "client_rss_mb": None}
    full = phase(stack, spec, f"{name} full speed")
    out["full_speed"] = full
    half_rate = full["rounds_per_s"] / 2
    if half_rate > 0:
        half = LoadSpec(spec.games, spec.players, spec.seconds, spec.ruleset, spec.options, half_rate,
                        spec.emails)
        out["half_speed"] = phase(stack, half, f"{name} half speed")
    out["memory"] = stack.memory()
    out["client_rss_mb"] = procs.peak_rss_mb(_self_pid())
    return out


def _self_pid() -> int:
    import os

    return os.getpid()


def run_full(spec: LoadSpec, sizes: FullSizes) -> dict[str, Any]:
    with ExitStack() as exits:
        stack = full_stack(exits, sizes)
        result = bench_stack(stack, spec, "full stack")
    result["sizes"] = sizes.__dict__
    return result


def run_embedded(spec: LoadSpec) -> dict[str, Any]:
    with ExitStack() as exits:
        stack = embedded_stack(exits)
        return bench_stack(stack, spec, "embedded")
