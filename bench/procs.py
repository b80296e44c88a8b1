"""Processes by /proc: a process tree, its peak resident memory (VmHWM) and CPU seconds."""

from __future__ import annotations

import os
from pathlib import Path

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def children(pid: int) -> list[int]:
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            out += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return out


def tree(pid: int) -> list[int]:
    """pid and all its descendants, parents first."""
    todo, seen = [pid], []
    while todo:
        p = todo.pop(0)
        seen.append(p)
        todo += children(p)
    return seen


def peak_rss_mb(pid: int) -> float | None:
    """The high-water mark of the resident set (VmHWM) in MB, None if the process is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of one process (0 if it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def name(pid: int) -> str:
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return "?"
    words = [os.path.basename(w.decode(errors="replace")) for w in cmd if w]
    return " ".join(words[:3])

