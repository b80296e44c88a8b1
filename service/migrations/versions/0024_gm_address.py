"""games.gm_email and games.gm_salt: the GM's address (optional at creation), where the GM's
links are mailed once it confirms, and the salt the GM link of such a game is made from
again (service.gm.address), so "Your games" can show it to the GM signed in.

Revision ID: 0024_gm_address
Revises: 0023_push
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0024_gm_address"
down_revision = "0023_push"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("gm_email", sa.String(320), nullable=True))
        batch.add_column(sa.Column("gm_salt", sa.String(32), nullable=True))
        batch.create_index("ix_games_gm_email", ["gm_email"])


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_index("ix_games_gm_email")
        batch.drop_column("gm_salt")
        batch.drop_column("gm_email")
