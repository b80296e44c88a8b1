"""GM rollbacks: the rollbacks table, each step's chain link, each game's skipped links.

Revision ID: 0015_rollback
Revises: 0012_rules_revision

A step resolved after a rollback is keyed by the next chain link nobody has seen, which is
no longer its t (steps.link; NULL: t). games.links_skipped counts the links the rolled-back
rounds revealed. Every game stored before has none.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from service.models import UTCDateTime

revision = "0015_rollback"
down_revision = "0012_rules_revision"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rollbacks",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("at", UTCDateTime(), nullable=False),
        sa.Column("entry", sa.JSON(), nullable=False),
    )
    op.create_index("ix_rollbacks_game_id", "rollbacks", ["game_id"])
    with op.batch_alter_table("steps") as batch:
        batch.add_column(sa.Column("link", sa.Integer(), nullable=True))
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("links_skipped", sa.Integer(), nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("links_skipped")
    with op.batch_alter_table("steps") as batch:
        batch.drop_column("link")
    op.drop_index("ix_rollbacks_game_id", "rollbacks")
    op.drop_table("rollbacks")
