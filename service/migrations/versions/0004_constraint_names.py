"""Constraint names follow the models' naming convention on every database.

Primary keys, foreign keys and single-column unique constraints were created unnamed, so
each database chose its own names (PostgreSQL's `seats_pkey`, `seats_game_id_fkey`, ...;
SQLite none at all). A later migration can only drop or alter what it can name, so they get
the convention's names: PostgreSQL renames them in place; SQLite rebuilds each table in
batch mode with the convention applied.

Revision ID: 0004_constraint_names
Revises: 0003_login_links
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_constraint_names"
down_revision = "0003_login_links"
branch_labels = None
depends_on = None

# The convention as it stood at this revision (a later change to the models' convention
# needs a migration of its own, so this copy stays fixed).
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# Parents before children, so a rebuilt child refers to a table that is already final.
TABLES = ("games", "seats", "rounds", "submissions", "steps", "outbox", "stored_mail",
          "inbound_mail", "audit_log", "login_links", "seat_schedule", "round_schedule")


def _postgres_names(table: str, inspector: sa.Inspector) -> list[tuple[str | None, str, str]]:
    """(name now, convention's name, PostgreSQL's default name) for each unnamed-at-birth
    constraint of the table."""
    names: list[tuple[str | None, str, str]] = []
    pk = inspector.get_pk_constraint(table)
    names.append((pk["name"], f"pk_{table}", f"{table}_pkey"))
    for fk in inspector.get_foreign_keys(table):
        column = fk["constrained_columns"][0]
        names.append((fk["name"], f"fk_{table}_{column}_{fk['referred_table']}", f"{table}_{column}_fkey"))
    for uq in inspector.get_unique_constraints(table):
        if len(uq["column_names"]) == 1:  # the multi-column ones were named from the start
            column = uq["column_names"][0]
            names.append((uq["name"], f"uq_{table}_{column}", f"{table}_{column}_key"))
    return names


def _rename(table: str, old: str | None, new: str) -> None:
    if old is not None and old != new:
        op.execute(sa.text(f'ALTER TABLE "{table}" RENAME CONSTRAINT "{old}" TO "{new}"'))


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        for table in TABLES:
            with op.batch_alter_table(table, recreate="always", naming_convention=NAMING_CONVENTION):
                pass
        return
    inspector = sa.inspect(bind)
    for table in TABLES:
        for now, convention, _default in _postgres_names(table, inspector):
            _rename(table, now, convention)


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        # SQLite's names are only labels in each table's SQL: nothing before this revision
        # addressed them, so the named tables serve the older revisions unchanged.
        return
    inspector = sa.inspect(bind)
    for table in TABLES:
        for now, _convention, default in _postgres_names(table, inspector):
            _rename(table, now, default)
