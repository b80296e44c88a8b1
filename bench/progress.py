"""A one-line progress bar on stderr (a line per 10% when stderr is not a terminal)."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    def __init__(self, label: str, total: float, unit: str = "", stream: TextIO | None = None) -> None:
        self.label = label
        self.total = max(total, 1e-9)
        self.unit = unit
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.start = time.monotonic()
        self.done = 0.0
        self._last_tenth = -1
        self._last_draw = 0.0

    def update(self, done: float, note: str = "") -> None:
        self.done = min(done, self.total)
        frac = self.done / self.total
        now = time.monotonic()
        if self.tty:
            if now - self._last_draw < 0.1 and frac < 1:
                return
            self._last_draw = now
            filled = int(frac * 30)
            bar = "#" * filled + "." * (30 - filled)
            self.stream.write(f"\r{self.label:<28} [{bar}] {frac:4.0%} {now - self.start:5.1f}s {note:<30}")
            self.stream.flush()
        elif int(frac * 10) > self._last_tenth:
            self._last_tenth = int(frac * 10)
            self.stream.write(f"{self.label}: {frac:.0%} {note}\n")
            self.stream.flush()

    def advance(self, step: float = 1, note: str = "") -> None:
        self.update(self.done + step, note)

    def close(self, note: str = "") -> None:
        self.update(self.total, note)
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()
