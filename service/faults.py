"""Test-only pause points, inert in production (docs/reliability.md, "Pause points").

The fault tests (tests/faults/) must kill a worker *in the middle* of resolving a round
or right after an SMTP server's 250, deterministically. A pause point does nothing
unless the environment variable DICEPOST_FAULT_DIR names a directory and that
directory holds the file `pause-<name>` (the test "arms" the point). An armed point
writes `at-<name>-<pid>` (so the test learns the pid of the process to kill) and waits,
at most PAUSE_LIMIT seconds, for `release-<name>` to appear; then it goes on as usual.
Production never sets DICEPOST_FAULT_DIR, so each point costs one environment lookup.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

ENV = "DICEPOST_FAULT_DIR"
PAUSE_LIMIT = 120.0


def pause_point(name: str) -> None:
    """Pause here if a test armed this point; see the module's docstring."""
    directory = os.environ.get(ENV)
    if not directory:
        return
    where = Path(directory)
    if not (where / f"pause-{name}").exists():
        return
    # written whole, then renamed: a test polling the directory never reads a half-written pid
    mark = where / f"at-{name}-{os.getpid()}"
    draft = where / f".{mark.name}-{threading.get_ident()}"  # threads of one process pause at once
    draft.write_text(str(os.getpid()))
    os.replace(draft, mark)
    end = time.monotonic() + PAUSE_LIMIT
    while time.monotonic() < end and not (where / f"release-{name}").exists():
        time.sleep(0.05)
