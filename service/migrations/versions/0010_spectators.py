"""spectators and gm_reads: read-only links to a (private) game that its GM hands out,
followers tied to the link they came by, and what the GM has read of the table talk.

Revision ID: 0010_spectators
Revises: 0009_zones_digest
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from service.models import UTCDateTime

revision = "0010_spectators"
down_revision = "0009_zones_digest"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "spectators",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("label", sa.String(80), nullable=False),
        sa.Column("salt", sa.String(32), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("revoked_at", UTCDateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_spectators"),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name="fk_spectators_game_id_games"),
        sa.UniqueConstraint("token_hash", name="uq_spectators_token_hash"),
    )
    op.create_index("ix_spectators_game_id", "spectators", ["game_id"])
    with op.batch_alter_table("followers") as batch:
        batch.add_column(sa.Column("spectator_id", sa.Integer(), nullable=True))
        batch.create_foreign_key("fk_followers_spectator_id_spectators", "spectators",
                                 ["spectator_id"], ["id"])
    op.create_table(
        "gm_reads",
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("last_id", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("game_id", name="pk_gm_reads"),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name="fk_gm_reads_game_id_games"),
    )


def downgrade() -> None:
    op.drop_table("gm_reads")
    with op.batch_alter_table("followers") as batch:
        batch.drop_constraint("fk_followers_spectator_id_spectators", type_="foreignkey")
        batch.drop_column("spectator_id")
    op.drop_index("ix_spectators_game_id", table_name="spectators")
    op.drop_table("spectators")
