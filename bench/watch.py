"""When does a round become visible? One thread asks the database for all pending rounds at once.

Polling GET /api/games/<id>/rounds/<n> from every game every few milliseconds would
load the very web server being measured (it was most of its CPU on 2 cores). Instead one
thread runs a single indexed query (steps by game, every POLL seconds) for every round
waited on; the moment a round's step row is committed, GET /rounds/<n> answers 200 (it
reads that row), and the waiting player confirms it with exactly one GET.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from typing import Any

POLL = 0.001


def mail_counts(database_url: str) -> dict[str, int]:
    """Outbox rows by status (pending, sending, sent, failed, skipped)."""
    if database_url.startswith("sqlite"):
        conn: Any = sqlite3.connect(database_url.split("///", 1)[1])
    else:
        import psycopg

        conn = psycopg.connect(database_url, autocommit=True)
    try:
        rows = conn.execute("SELECT status, COUNT(*) FROM outbox GROUP BY status").fetchall()
        return {str(s): int(n) for s, n in rows}
    finally:
        conn.close()


class Watcher:
    def __init__(self, database_url: str) -> None:
        self.url = database_url
        self.lock = threading.Lock()
        self.pending: dict[str, tuple[int, threading.Event, list[float]]] = {}
        self.stop = threading.Event()
        self.queries = 0
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def wait(self, game_id: str, t: int, timeout: float) -> float | None:
        """Block until step t of game_id exists; the monotonic time it was seen, None on timeout."""
        event, seen = threading.Event(), list[float]()
        with self.lock:
            self.pending[game_id] = (t, event, seen)
        if not event.wait(timeout):
            with self.lock:
                self.pending.pop(game_id, None)
            return None
        return seen[0]

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)

    def _connect(self) -> tuple[Any, str]:
        if self.url.startswith("sqlite"):
            conn = sqlite3.connect(self.url.split("///", 1)[1], check_same_thread=False, isolation_level=None)
            return conn, "?"
        import psycopg

        return psycopg.connect(self.url, autocommit=True), "%s"

    def _run(self) -> None:
        conn, mark = self._connect()
        try:
            while not self.stop.is_set():
                with self.lock:
                    games = list(self.pending)
                if games:
                    marks = ",".join([mark] * len(games))
                    # S608: only placeholders are formatted in; the ids go as parameters.
                    rows = conn.execute(f"SELECT game_id, MAX(t) FROM steps WHERE game_id IN ({marks}) "  # noqa: S608
                                        "GROUP BY game_id", games).fetchall()
                    self.queries += 1
                    now = time.monotonic()
                    with self.lock:
                        for game_id, t in rows:
                            waiting = self.pending.get(game_id)
                            if waiting and t is not None and t >= waiting[0]:
                                waiting[2].append(now)
                                waiting[1].set()
                                del self.pending[game_id]
                time.sleep(POLL)
        finally:
            conn.close()
