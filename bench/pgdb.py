"""A private PostgreSQL database for one bench run, dropped afterwards (others share the server)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

ADMIN_URL = os.environ.get("DICEPOST_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/test")


def url_of(name: str) -> str:
    return ADMIN_URL.rsplit("/", 1)[0] + f"/{name}"


@contextmanager
def private_database(tag: str) -> Iterator[str]:
    """Create dicepost_bench_<pid>_<tag>, yield its URL, drop it (WITH FORCE) at the end."""
    import psycopg

    name = f"dicepost_bench_{os.getpid()}_{tag}"
    with psycopg.connect(ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield url_of(name)
    finally:
        with psycopg.connect(ADMIN_URL, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
