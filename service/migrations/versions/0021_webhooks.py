"""webhooks and webhook_events: a game's chat and JSON webhooks and the news each posts;
seats.discord_id, the player's Discord user id for @mentions.

Revision ID: 0021_webhooks
Revises: 0020_ratings
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from service.models import UTCDateTime

revision = "0021_webhooks"
down_revision = "0020_ratings"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "webhooks",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("secret_sealed", sa.String(160), nullable=True),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("failing_since", UTCDateTime(), nullable=True),
        sa.Column("next_post_at", UTCDateTime(), nullable=True),
        sa.Column("lease_until", UTCDateTime(), nullable=True),
        sa.Column("last_posted_at", UTCDateTime(), nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name="fk_webhooks_game_id_games"),
        sa.PrimaryKeyConstraint("id", name="pk_webhooks"),
    )
    op.create_index("ix_webhooks_game", "webhooks", ["game_id"])
    op.create_table(
        "webhook_events",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("webhook_id", sa.Integer(), nullable=False),
        sa.Column("event", sa.String(16), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.Column("key", sa.String(120), nullable=True),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("batch", sa.String(40), nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("sent_at", UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(["webhook_id"], ["webhooks.id"], name="fk_webhook_events_webhook_id_webhooks",
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name="pk_webhook_events"),
        sa.UniqueConstraint("webhook_id", "key", name="uq_webhook_events_webhook_key"),
    )
    op.create_index("ix_webhook_events_webhook_status", "webhook_events", ["webhook_id", "status"])
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("discord_id", sa.String(20), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("discord_id")
    op.drop_index("ix_webhook_events_webhook_status", "webhook_events")
    op.drop_table("webhook_events")
    op.drop_index("ix_webhooks_game", "webhooks")
    op.drop_table("webhooks")
