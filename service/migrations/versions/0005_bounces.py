"""mail_bounces and failing_addresses: bounces mapped to seats, addresses mail no longer reaches.

Revision ID: 0005_bounces
Revises: 0004_constraint_names
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from service.models import UTCDateTime

revision = "0005_bounces"
down_revision = "0004_constraint_names"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "mail_bounces",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("address", sa.String(320), nullable=False),
        sa.Column("seat_id", sa.Integer(), nullable=True),
        sa.Column("outbox_id", sa.Integer(), nullable=True),
        sa.Column("at", UTCDateTime(), nullable=False),
        sa.Column("hard", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("diagnostic", sa.String(500), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_mail_bounces"),
        sa.ForeignKeyConstraint(["seat_id"], ["seats.id"], name="fk_mail_bounces_seat_id_seats"),
        sa.ForeignKeyConstraint(["outbox_id"], ["outbox.id"], name="fk_mail_bounces_outbox_id_outbox"),
    )
    op.create_index("ix_mail_bounces_address_at", "mail_bounces", ["address", "at"])
    op.create_table(
        "failing_addresses",
        sa.Column("address", sa.String(320), nullable=False),
        sa.Column("since", UTCDateTime(), nullable=False),
        sa.Column("reason", sa.String(500), nullable=False),
        sa.Column("seat_id", sa.Integer(), nullable=True),
        sa.PrimaryKeyConstraint("address", name="pk_failing_addresses"),
        sa.ForeignKeyConstraint(["seat_id"], ["seats.id"], name="fk_failing_addresses_seat_id_seats"),
    )


def downgrade() -> None:
    op.drop_table("failing_addresses")
    op.drop_index("ix_mail_bounces_address_at", table_name="mail_bounces")
    op.drop_table("mail_bounces")
