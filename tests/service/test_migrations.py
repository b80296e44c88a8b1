"""The packaged migration builds exactly the tables the models describe, on both databases."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from flask import Flask

from service.db import engine_of
from service.migrate import current, upgrade
from service.models import Base

TABLES = {"games", "seats", "rounds", "submissions", "steps", "outbox", "stored_mail", "inbound_mail",
          "audit_log"}


def test_migration_matches_models(app: Flask) -> None:
    engine = engine_of(app)
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    # Only our tables count: other parts of the project may add theirs in later revisions.
    ours = [d for d in diff if _table_of(d) in TABLES]
    assert ours == []
    assert set(Base.metadata.tables) >= TABLES


def _table_of(diff: object) -> str | None:
    item = diff[0] if isinstance(diff, list) else diff
    for part in item[1:] if isinstance(item, tuple) else ():
        name = getattr(part, "name", None)
        table = getattr(part, "table", None)
        if table is not None:
            return str(table.name)
        if isinstance(part, str) and part in TABLES:
            return part
        if name in TABLES:
            return str(name)
    return None


def test_upgrade_is_idempotent(sqlite_app: Flask) -> None:
    engine = engine_of(sqlite_app)
    before = current(engine)
    upgrade(engine)
    assert current(engine) == before is not None
