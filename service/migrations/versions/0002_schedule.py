"""Schedule state: seat_schedule (wait, reminder lead, absences, misses, controller) and
round_schedule (missed-turn extension used).

Revision ID: 0002_schedule
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002_schedule"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "seat_schedule",
        sa.Column("seat_id", sa.Integer(), sa.ForeignKey("seats.id"), primary_key=True),
        sa.Column("wait", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("reminder_lead_seconds", sa.Integer(), nullable=True),
        sa.Column("absences", sa.JSON(), nullable=False),
        sa.Column("misses", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("controller", sa.String(8), nullable=False, server_default="human"),
    )
    op.create_table(
        "round_schedule",
        sa.Column("round_id", sa.Integer(), sa.ForeignKey("rounds.id"), primary_key=True),
        sa.Column("extended", sa.Boolean(), nullable=False, server_default=sa.false()),
    )


def downgrade() -> None:
    op.drop_table("round_schedule")
    op.drop_table("seat_schedule")
