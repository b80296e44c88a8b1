"""Keep a worker process running: start it again when it ends on an error.

`dicepost worker` runs the Celery worker as a child of a small supervisor (this module).
A Celery worker stops for good on an error it takes for unrecoverable (and its main
process can be killed on its own); a worker that is simply gone leaves rounds ready and
mail pending until someone notices, so the supervisor starts it again, after a pause that
grows while it keeps failing. A stop asked for (SIGTERM, SIGINT) is passed on to the
child as SIGTERM, Celery's warm shutdown, and the supervisor exits with the child's status.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import time
from collections.abc import Sequence
from types import FrameType

log = logging.getLogger(__name__)

#: Set in the child's environment: the child runs the worker itself.
CHILD_ENV = "DICEPOST_SUPERVISED"
FIRST_PAUSE = 1.0
MAX_PAUSE = 30.0
#: A child that ran this long before failing starts again after FIRST_PAUSE.
STEADY = 60.0


def is_child() -> bool:
    return os.environ.get(CHILD_ENV) == "1"


def supervise(argv: Sequence[str]) -> int:
    """Run `argv` (with CHILD_ENV set) until it ends cleanly or a stop is asked for."""
    stopping = False
    child: subprocess.Popen[bytes] | None = None

    def stop(signum: int, _frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True
        if child is not None and child.poll() is None:
            child.send_signal(signal.SIGTERM)

    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, stop)
    pause = FIRST_PAUSE
    while True:
        began = time.monotonic()
        child = subprocess.Popen(list(argv), env={**os.environ, CHILD_ENV: "1"})
        status = child.wait()
        if stopping or status == 0:
            return status if status >= 0 else 128 - status
        if time.monotonic() - began >= STEADY:
            pause = FIRST_PAUSE
        log.error("the worker (pid %d) exited with status %d; starting it again in %.0f s",
                  child.pid, status, pause)
        deadline = time.monotonic() + pause
        while not stopping and time.monotonic() < deadline:
            time.sleep(0.1)
        if stopping:
            return 0
        pause = min(MAX_PAUSE, pause * 2)
