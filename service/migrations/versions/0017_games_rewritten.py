"""The games table rewritten on PostgreSQL, so no plain chain tip is left in its files.

Revision ID: 0017_games_rewritten
Revises: 0016_private_history_sessions

0006_sealed_tip sealed every tip and dropped the plain column, but PostgreSQL's DROP COLUMN
leaves the values in each row on disk, and the UPDATE that sealed them left the old row
versions behind: the table's files still held every plain tip. CLUSTER writes the table
anew from its live rows only, each reformed with its dropped columns emptied (as VACUUM
FULL would, but inside the migration's transaction); the old files are emptied at commit.
SQLite rebuilt the table by copy when the column was dropped; there is nothing to do.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017_games_rewritten"
down_revision = "0016_private_history_sessions"
branch_labels = None
depends_on = None


def upgrade() -> None:
    conn = op.get_bind()
    if conn.dialect.name != "postgresql":
        return
    primary = conn.execute(sa.text(
        "SELECT i.relname FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid "
        "WHERE x.indrelid = 'games'::regclass AND x.indisprimary")).scalar_one()
    conn.execute(sa.text(f'CLUSTER games USING "{primary}"'))
    conn.execute(sa.text("ALTER TABLE games SET WITHOUT CLUSTER"))  # no standing order to keep


def downgrade() -> None:
    pass  # a rewritten table is the same table
