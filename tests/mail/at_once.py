"""Run one call from several threads released together, for the race tests."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def at_once(count: int, call: Callable[[], T]) -> list[T]:
    """The results of `count` threads that all start `call` at the same moment."""
    results: list[T] = []
    start = threading.Barrier(count)

    def run() -> None:
        start.wait()
        results.append(call())

    threads = [threading.Thread(target=run) for _ in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return results
