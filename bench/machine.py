"""Facts every result is printed with: date, command, nproc, load, versions."""

from __future__ import annotations

import datetime as dt
import os
import platform
import subprocess
import sys
from importlib import metadata
from typing import Any

PACKAGES = ("flask", "sqlalchemy", "celery", "granian", "psycopg", "redis")


def load() -> str:
    """The 1, 5 and 15 minute load averages, as `uptime` shows them."""
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def busy_seconds() -> float:
    """CPU seconds the machine's cores have been busy since boot (/proc/stat: all but idle and iowait)."""
    user, nice, system, _idle, _iowait, irq, softirq, steal = _stat()
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def steal_seconds() -> float:
    """CPU seconds the hypervisor gave to others while this machine's cores wanted to run."""
    return _stat()[7] / os.sysconf("SC_CLK_TCK")


def _stat() -> list[int]:
    with open("/proc/stat") as f:
        return [int(v) for v in f.readline().split()[1:9]]


def _tool_version(cmd: list[str]) -> str:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return "missing"
    return (out.stdout or out.stderr).strip().splitlines()[0] if (out.stdout or out.stderr) else "?"


def facts() -> dict[str, Any]:
    versions = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "missing"
    versions["pgbench"] = _tool_version(["pgbench", "--version"])
    versions["redis-benchmark"] = _tool_version(["redis-benchmark", "--version"])
    versions["wrk"] = _tool_version(["wrk", "--version"]).split(" [")[0]
    return {
        "tree": tree(),
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "command": " ".join([os.path.basename(sys.executable), "-m", "bench", *sys.argv[1:]]),
        "nproc": os.cpu_count(),
        "cpu": _cpu_model(),
        "load_at_start": load(),
        "versions": versions,
    }


def tree() -> str:
    """The commit measured, and the files changed in the work tree on top of it (others edit it too)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True,
                              text=True, timeout=10).stdout.strip()
        status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                                capture_output=True, text=True, timeout=10).stdout.splitlines()
    except (OSError, subprocess.TimeoutExpired):
        return "?"
    changed = [line[3:] for line in status if line[3:]]
    if not changed:
        return head or "?"
    shown = ", ".join(changed[:12]) + (f" and {len(changed) - 12} more" if len(changed) > 12 else "")
    return f"{head} with uncommitted changes to {shown}"


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"
