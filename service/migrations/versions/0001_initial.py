"""All of dicepost's tables: games, seats, rounds, submissions, steps, outbox, mail, audit.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from alembic import op

from service.models import UTCDateTime

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def _at(name: str, nullable: bool = True) -> sa.Column[datetime]:
    return sa.Column(name, UTCDateTime(), nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "games",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("ruleset", sa.String(64), nullable=False),
        sa.Column("title", sa.String(200), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("public", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("chain_tip", sa.String(64), nullable=False),
        sa.Column("chain_length", sa.Integer(), nullable=False),
        sa.Column("commitment", sa.String(64), nullable=False),
        sa.Column("salt", sa.String(64), nullable=True),
        sa.Column("current_round", sa.Integer(), nullable=False),
        sa.Column("outcome", sa.JSON(), nullable=True),
        sa.Column("gm_token_hash", sa.String(64), nullable=False),
        _at("created_at", False),
        _at("deadline_at"),
        _at("paused_at"),
        sa.Column("deadline_policy", sa.JSON(), nullable=True),
    )
    op.create_index("ix_games_public_status", "games", ["public", "status"])

    op.create_table(
        "seats",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), nullable=False),
        sa.Column("seat_index", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("email", sa.String(320), nullable=True),
        sa.Column("invite_token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("player_token_hash", sa.String(64), nullable=True, unique=True),
        _at("joined_at"),
        sa.Column("entropy", sa.String(128), nullable=True),
        sa.Column("entropy_source", sa.String(8), nullable=True),
        sa.Column("force", sa.JSON(), nullable=True),
        sa.Column("mail_pref", sa.String(8), nullable=False),
        sa.Column("unsubscribe_token_hash", sa.String(64), nullable=True),
        sa.Column("reply_token_salt", sa.String(64), nullable=True),
        sa.UniqueConstraint("game_id", "seat_index", name="uq_seats_game_index"),
        sa.UniqueConstraint("game_id", "name", name="uq_seats_game_name"),
    )
    op.create_index("ix_seats_game", "seats", ["game_id"])

    op.create_table(
        "rounds",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("expected", sa.JSON(), nullable=False),
        _at("opened_at", False),
        _at("closes_at"),
        _at("resolved_at"),
        sa.UniqueConstraint("game_id", "number", name="uq_rounds_game_number"),
    )
    op.create_index("ix_rounds_status", "rounds", ["status"])

    op.create_table(
        "submissions",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("seat_id", sa.Integer(), sa.ForeignKey("seats.id"), nullable=False),
        sa.Column("round_id", sa.Integer(), sa.ForeignKey("rounds.id"), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("accepted", sa.Text(), nullable=False),
        sa.Column("source", sa.String(8), nullable=False),
        _at("created_at", False),
        sa.UniqueConstraint("round_id", "seat_id", "version", name="uq_submissions_version"),
    )
    op.create_index("ix_submissions_round_seat", "submissions", ["round_id", "seat_id"])

    op.create_table(
        "steps",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), nullable=False),
        sa.Column("t", sa.Integer(), nullable=False),
        sa.Column("inputs", sa.JSON(), nullable=False),
        sa.Column("inputs_digest", sa.String(64), nullable=False),
        sa.Column("key", sa.String(64), nullable=False),
        sa.Column("state", sa.JSON(), nullable=False),
        sa.Column("state_hash", sa.String(64), nullable=False),
        sa.Column("events", sa.JSON(), nullable=False),
        sa.Column("rolls", sa.JSON(), nullable=False),
        _at("created_at", False),
        sa.UniqueConstraint("game_id", "t", name="uq_steps_game_t"),
    )

    op.create_table(
        "outbox",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), nullable=True),
        sa.Column("seat_id", sa.Integer(), sa.ForeignKey("seats.id"), nullable=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("message_id", sa.String(255), nullable=False, unique=True),
        sa.Column("to_address", sa.String(320), nullable=True),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        _at("lease_until"),
        _at("next_attempt_at"),
        sa.Column("last_error", sa.Text(), nullable=True),
        _at("created_at", False),
        _at("sent_at"),
    )
    op.create_index("ix_outbox_status_next", "outbox", ["status", "next_attempt_at"])
    op.create_index("ix_outbox_game", "outbox", ["game_id"])

    op.create_table(
        "stored_mail",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("outbox_id", sa.Integer(), sa.ForeignKey("outbox.id"), nullable=True),
        sa.Column("to", sa.String(320), nullable=False),
        sa.Column("subject", sa.String(998), nullable=False),
        sa.Column("raw", sa.Text(), nullable=False),
        _at("created_at", False),
    )

    op.create_table(
        "inbound_mail",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("message_id", sa.String(998), nullable=False, unique=True),
        sa.Column("raw", sa.LargeBinary(), nullable=False),
        _at("received_at", False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("result", sa.Text(), nullable=True),
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), nullable=True),
    )
    op.create_index("ix_inbound_mail_status", "inbound_mail", ["status"])

    op.create_table(
        "audit_log",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), nullable=True),
        _at("at", False),
        sa.Column("actor", sa.String(64), nullable=False),
        sa.Column("action", sa.String(64), nullable=False),
        sa.Column("detail", sa.JSON(), nullable=False),
    )
    op.create_index("ix_audit_log_game_at", "audit_log", ["game_id", "at"])


def downgrade() -> None:
    for table in ("audit_log", "inbound_mail", "stored_mail", "outbox", "steps", "submissions",
                  "rounds", "seats", "games"):
        op.drop_table(table)
