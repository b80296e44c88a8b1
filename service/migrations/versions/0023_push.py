"""push_subscriptions, push_outbox, seat_presence: web push to players' browsers.

Revision ID: 0023_push
Revises: 0022_tournaments

A browser's subscription for a seat or for every seat of an address, the pushes queued for
it (delivered like mail, through an outbox), and when a seat's page was last in view.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from service.models import UTCDateTime

revision = "0023_push"
down_revision = "0022_tournaments"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "push_subscriptions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("endpoint", sa.Text(), nullable=False),
        sa.Column("endpoint_hash", sa.String(64), nullable=False),
        sa.Column("p256dh", sa.String(128), nullable=False),
        sa.Column("auth", sa.String(64), nullable=False),
        sa.Column("seat_id", sa.Integer(), nullable=True),
        sa.Column("address", sa.String(320), nullable=True),
        sa.Column("scope", sa.String(340), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["seat_id"], ["seats.id"], name="fk_push_subscriptions_seat_id_seats"),
        sa.PrimaryKeyConstraint("id", name="pk_push_subscriptions"),
        sa.UniqueConstraint("endpoint_hash", "scope", name="uq_push_subscriptions_endpoint_scope"),
    )
    op.create_index("ix_push_subscriptions_seat", "push_subscriptions", ["seat_id"])
    op.create_index("ix_push_subscriptions_address", "push_subscriptions", ["address"])
    op.create_table(
        "push_outbox",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("endpoint_hash", sa.String(64), nullable=False),
        sa.Column("game_id", sa.String(32), nullable=True),
        sa.Column("seat_id", sa.Integer(), nullable=True),
        sa.Column("event", sa.String(16), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("key", sa.String(255), nullable=False),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("lease_until", UTCDateTime(), nullable=True),
        sa.Column("next_attempt_at", UTCDateTime(), nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.Column("sent_at", UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name="fk_push_outbox_game_id_games"),
        sa.ForeignKeyConstraint(["seat_id"], ["seats.id"], name="fk_push_outbox_seat_id_seats"),
        sa.PrimaryKeyConstraint("id", name="pk_push_outbox"),
        sa.UniqueConstraint("key", name="uq_push_outbox_key"),
    )
    op.create_index("ix_push_outbox_status_next", "push_outbox", ["status", "next_attempt_at"])
    op.create_index("ix_push_outbox_endpoint", "push_outbox", ["endpoint_hash", "status"])
    op.create_table(
        "seat_presence",
        sa.Column("seat_id", sa.Integer(), nullable=False),
        sa.Column("seen_at", UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["seat_id"], ["seats.id"], name="fk_seat_presence_seat_id_seats"),
        sa.PrimaryKeyConstraint("seat_id", name="pk_seat_presence"),
    )


def downgrade() -> None:
    op.drop_table("seat_presence")
    op.drop_index("ix_push_outbox_endpoint", "push_outbox")
    op.drop_index("ix_push_outbox_status_next", "push_outbox")
    op.drop_table("push_outbox")
    op.drop_index("ix_push_subscriptions_address", "push_subscriptions")
    op.drop_index("ix_push_subscriptions_seat", "push_subscriptions")
    op.drop_table("push_subscriptions")
