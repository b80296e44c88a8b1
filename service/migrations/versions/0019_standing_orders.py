"""standing_orders: a player's standing order per unit, used in a round they send none.

Revision ID: 0019_standing_orders
Revises: 0018_confirmed_addresses
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from service.models import UTCDateTime

revision = "0019_standing_orders"
down_revision = "0018_confirmed_addresses"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "standing_orders",
        sa.Column("seat_id", sa.Integer(), nullable=False),
        sa.Column("unit", sa.String(16), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("set_at", UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["seat_id"], ["seats.id"], name="fk_standing_orders_seat_id_seats"),
        sa.PrimaryKeyConstraint("seat_id", "unit", name="pk_standing_orders"),
    )


def downgrade() -> None:
    op.drop_table("standing_orders")
