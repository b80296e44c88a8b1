"""Player history, ratings and entry rules: rated_games, player_ratings, player_profiles,
entry_rules.

Revision ID: 0020_ratings
Revises: 0019_standing_orders

Games that finished before this runs are rated by `dicepost ratings --store`
(service.ratings), which rebuilds every rating from the records.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from service.models import UTCDateTime

revision = "0020_ratings"
down_revision = "0019_standing_orders"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rated_games",
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("finished_at", UTCDateTime(), nullable=False),
        sa.Column("status", sa.String(8), nullable=False),
        sa.Column("reason", sa.String(300), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name="fk_rated_games_game_id_games"),
        sa.PrimaryKeyConstraint("game_id", name="pk_rated_games"),
    )
    op.create_index("ix_rated_games_status", "rated_games", ["status"])
    op.create_table(
        "player_ratings",
        sa.Column("address", sa.String(320), nullable=False),
        sa.Column("ruleset", sa.String(64), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("address", "ruleset", name="pk_player_ratings"),
    )
    op.create_table(
        "player_profiles",
        sa.Column("address", sa.String(320), nullable=False),
        sa.Column("handle", sa.String(32), nullable=False),
        sa.Column("public", sa.Boolean(), nullable=False),
        sa.Column("created_at", UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("address", name="pk_player_profiles"),
        sa.UniqueConstraint("handle", name="uq_player_profiles_handle"),
    )
    op.create_table(
        "entry_rules",
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("min_reliability", sa.Integer(), nullable=True),
        sa.Column("min_rating", sa.Float(), nullable=True),
        sa.Column("max_running", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name="fk_entry_rules_game_id_games"),
        sa.PrimaryKeyConstraint("game_id", name="pk_entry_rules"),
    )


def downgrade() -> None:
    op.drop_table("entry_rules")
    op.drop_table("player_profiles")
    op.drop_table("player_ratings")
    op.drop_index("ix_rated_games_status", table_name="rated_games")
    op.drop_table("rated_games")
