"""followers: spectators following a public game's results by mail.

Revision ID: 0008_followers
Revises: 0007_table_messages
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from service.models import UTCDateTime

revision = "0008_followers"
down_revision = "0007_table_messages"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "followers",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("email", sa.String(320), nullable=False),
        sa.Column("salt", sa.String(32), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("confirmed_at", UTCDateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_followers"),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name="fk_followers_game_id_games"),
        sa.UniqueConstraint("token_hash", name="uq_followers_token_hash"),
        sa.UniqueConstraint("game_id", "email", name="uq_followers_game_email"),
    )


def downgrade() -> None:
    op.drop_table("followers")
