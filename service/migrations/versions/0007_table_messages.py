"""table_messages and message_reads: talk at the table, public and private, and what each
seat has read.

Revision ID: 0007_table_messages
Revises: 0006_sealed_tip
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from service.models import UTCDateTime

revision = "0007_table_messages"
down_revision = "0006_sealed_tip"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "table_messages",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("sender", sa.String(32), nullable=False),
        sa.Column("recipient", sa.String(32), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("source", sa.String(8), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_table_messages"),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name="fk_table_messages_game_id_games"),
    )
    op.create_index("ix_table_messages_game_id_id", "table_messages", ["game_id", "id"])
    op.create_table(
        "message_reads",
        sa.Column("seat_id", sa.Integer(), nullable=False),
        sa.Column("last_id", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("seat_id", name="pk_message_reads"),
        sa.ForeignKeyConstraint(["seat_id"], ["seats.id"], name="fk_message_reads_seat_id_seats"),
    )


def downgrade() -> None:
    op.drop_table("message_reads")
    op.drop_index("ix_table_messages_game_id_id", table_name="table_messages")
    op.drop_table("table_messages")
