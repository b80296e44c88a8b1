"""games.sealed_marks: every 64th link of each game's dice chain, sealed with the seal key.

Revision ID: 0011_chain_marks
Revises: 0010_spectators

The marks are made from each game's sealed tip with the key that service.migrate.upgrade
is given (as for 0006_sealed_tip). Without the key, or for a tip the key does not open,
a game keeps no marks: its links are walked from the tip, as before the column.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import context, op

from engine.dice import chain
from service.dice_keys import EVERY, SealError, open_tip, seal_marks
from service.fairdice import options_profile

revision = "0011_chain_marks"
down_revision = "0010_spectators"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("sealed_marks", sa.LargeBinary(), nullable=True))
    key: bytes | None = context.config.attributes.get("seal_key")
    if key is None:
        return
    conn = op.get_bind()
    games = sa.table("games", sa.column("id"), sa.column("sealed_tip"), sa.column("chain_length"),
                     sa.column("options", sa.JSON()), sa.column("sealed_marks", sa.LargeBinary()))
    c = games.c
    rows = conn.execute(sa.select(c.id, c.sealed_tip, c.chain_length, c.options)).all()
    for game_id, sealed, length, options in rows:
        try:
            tip = open_tip(key, game_id, sealed)
        except (SealError, ValueError):
            continue
        marks = chain(tip, length, options_profile(options))[::EVERY]
        conn.execute(games.update().where(games.c.id == game_id)
                     .values(sealed_marks=seal_marks(key, game_id, length, marks)))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("sealed_marks")
