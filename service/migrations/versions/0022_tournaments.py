"""tournaments and tournament_games: a director's tournament, its committed seating draw and
its tables.

Revision ID: 0022_tournaments
Revises: 0021_webhooks
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from service.models import UTCDateTime

revision = "0022_tournaments"
down_revision = "0021_webhooks"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("title", sa.String(200), nullable=False),
        sa.Column("ruleset", sa.String(64), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("seating", sa.String(8), nullable=False),
        sa.Column("commitment", sa.String(64), nullable=False),
        sa.Column("seed", sa.Text(), nullable=True),
        sa.Column("bands", sa.JSON(), nullable=True),
        sa.Column("entrants", sa.JSON(), nullable=False),
        sa.Column("anonymous", sa.Boolean(), nullable=False),
        sa.Column("no_pause", sa.Boolean(), nullable=False),
        sa.Column("no_rollback", sa.Boolean(), nullable=False),
        sa.Column("no_absence", sa.Boolean(), nullable=False),
        sa.Column("deadline_policy", sa.JSON(), nullable=True),
        sa.Column("director_token_hash", sa.String(64), nullable=False),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_tournaments"),
    )
    op.create_table(
        "tournament_games",
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("tournament_id", sa.String(32), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("table", sa.Integer(), nullable=False),
        sa.Column("seats", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name="fk_tournament_games_game_id_games"),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournaments.id"],
                                name="fk_tournament_games_tournament_id_tournaments"),
        sa.PrimaryKeyConstraint("game_id", name="pk_tournament_games"),
    )


def downgrade() -> None:
    op.drop_table("tournament_games")
    op.drop_table("tournaments")
