"""player zones and the message digest: a time zone per address for mail, and a seat's
choice of how table talk reaches it by mail (each message, a digest in the results, none).

Revision ID: 0009_zones_digest
Revises: 0008_followers
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from service.models import UTCDateTime

revision = "0009_zones_digest"
down_revision = "0008_followers"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "player_zones",
        sa.Column("address", sa.String(320), nullable=False),
        sa.Column("zone", sa.String(64), nullable=False),
        sa.Column("updated_at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("address", name="pk_player_zones"),
    )
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("message_pref", sa.String(8), nullable=False, server_default="each"))
    # "Results only" never mailed messages one by one: its players now read the table talk
    # in their results mail; "no mail" stays none.
    op.execute("UPDATE seats SET message_pref = 'digest' WHERE mail_pref = 'results'")
    op.execute("UPDATE seats SET message_pref = 'none' WHERE mail_pref = 'none'")


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("message_pref")
    op.drop_table("player_zones")
