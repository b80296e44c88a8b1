"""The embedded default's SQLite engine: writers of one process take turns on a lock (BEGIN
IMMEDIATE to COMMIT or ROLLBACK) and the log is synced at checkpoints (WAL, NORMAL)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, text

from service.db import make_engine


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    made = make_engine(f"sqlite:///{tmp_path}/writers.sqlite3")
    with made.begin() as conn:
        conn.execute(text("CREATE TABLE counter (n INTEGER NOT NULL)"))
        conn.execute(text("INSERT INTO counter VALUES (0)"))
    yield made
    made.dispose()


def _turn_is_free(engine: Engine) -> bool:
    with engine.connect() as conn:
        turn = conn.connection.dbapi_connection.turn  # type: ignore[union-attr]
        free = bool(turn.acquire(blocking=False))
        if free:
            turn.release()
        return free


def test_wal_with_normal_sync(engine: Engine) -> None:
    with engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 1  # NORMAL


def test_the_turn_is_given_back_at_commit_rollback_and_a_failed_statement(engine: Engine) -> None:
    with engine.begin() as conn:
        conn.execute(text("UPDATE counter SET n = n + 1"))
        assert not _turn_is_free_elsewhere(engine)
    assert _turn_is_free(engine)
    with engine.connect() as conn, conn.begin() as tx:
        conn.execute(text("UPDATE counter SET n = n + 1"))
        tx.rollback()
    assert _turn_is_free(engine)
    with pytest.raises(Exception, match="no such table"), engine.begin() as conn:
        conn.execute(text("UPDATE missing SET n = 1"))
    assert _turn_is_free(engine)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT n FROM counter")).scalar() == 1


def _turn_is_free_elsewhere(engine: Engine) -> bool:
    """Whether another thread could take the turn now."""
    seen: list[bool] = []
    thread = threading.Thread(target=lambda: seen.append(_turn_is_free(engine)))
    thread.start()
    thread.join(5)
    return seen == [True]


def test_writers_of_many_threads_each_commit_once(engine: Engine) -> None:
    def add() -> None:
        for _ in range(20):
            with engine.begin() as conn:
                n = conn.execute(text("SELECT n FROM counter")).scalar_one()
                conn.execute(text("UPDATE counter SET n = :n"), {"n": n + 1})

    threads = [threading.Thread(target=add) for _ in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT n FROM counter")).scalar() == 240
    assert _turn_is_free(engine)
