"""seats.private_from and sign_ins: a taken-over seat's private history, revocable sessions.

Revision ID: 0016_private_history_sessions
Revises: 0015_rollback

`seats.private_from` is set when a newcomer takes a seat over (the newest message id then):
the private messages before it stay the former player's. `sign_ins` holds one row per
dashboard sign-in (the SHA-256 of the secret its session cookie carries); signing out
deletes it, so a copied cookie stops working.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from service.models import UTCDateTime

revision = "0016_private_history_sessions"
down_revision = "0015_rollback"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("private_from", sa.Integer(), nullable=True))
    op.create_table(
        "sign_ins",
        sa.Column("secret_hash", sa.String(64), nullable=False),
        sa.Column("email", sa.String(320), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("secret_hash", name="pk_sign_ins"),
    )
    op.create_index("ix_sign_ins_email", "sign_ins", ["email"])


def downgrade() -> None:
    op.drop_index("ix_sign_ins_email", table_name="sign_ins")
    op.drop_table("sign_ins")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("private_from")
