"""Counting a limit atomically: a count of rows followed by an insert that the count allows.

Two requests at once would both count N-1 and both insert, passing the limit (the probe
sent 4-8 follow mails for a limit of 3, and 34 messages for 30). So each limit's count
and insert run holding a lock on (limit, key) for the rest of the transaction:
PostgreSQL's transaction advisory lock, taken before the count. SQLite needs none: every
transaction there begins with BEGIN IMMEDIATE (service.db), so writers already run one at
a time from their first statement.
"""

from __future__ import annotations

import hashlib

from sqlalchemy import text
from sqlalchemy.orm import Session

from service.faults import pause_point

_LOCK = text("SELECT pg_advisory_xact_lock(:key)")


def lock_key(limit: str, key: str) -> int:
    """A signed 64-bit number for (limit, key), as pg_advisory_xact_lock takes."""
    digest = hashlib.blake2b(f"{limit}\0{key}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def hold(session: Session, limit: str, *keys: str) -> None:
    """Hold the count of `limit` for each key until the caller's transaction ends (keys
    taken in sorted order, so two holders of overlapping keys never deadlock)."""
    if session.get_bind().dialect.name == "postgresql":
        for key in sorted(set(keys)):
            session.execute(_LOCK, {"key": lock_key(limit, key)})
    pause_point("limit-held")  # tests: requests at once all reach here before any counts
