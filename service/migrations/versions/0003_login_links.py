"""login_links: one-time sign-in links for the player dashboard.

Revision ID: 0003_login_links
Revises: 0002_schedule
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from service.models import UTCDateTime

revision = "0003_login_links"
down_revision = "0002_schedule"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "login_links",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("email", sa.String(320), nullable=False),
        sa.Column("salt", sa.String(32), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("expires_at", UTCDateTime(), nullable=False),
        sa.Column("used_at", UTCDateTime(), nullable=True),
    )
    op.create_index("ix_login_links_email_created", "login_links", ["email", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_login_links_email_created", table_name="login_links")
    op.drop_table("login_links")
