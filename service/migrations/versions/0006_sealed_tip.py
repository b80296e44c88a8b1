"""games.sealed_tip replaces games.chain_tip: every chain tip sealed with the seal key.

Revision ID: 0006_sealed_tip
Revises: 0005_bounces

The key comes from service.migrate.upgrade(seal_key=...): `dicepost db upgrade` and
`dicepost run` pass the app's (DICEPOST_SEAL_KEY or instance/seal_key). A database with
games refuses to migrate without it.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import context, op

from service.dice_keys import SEALED_HEX, open_tip, seal_tip

revision = "0006_sealed_tip"
down_revision = "0005_bounces"
branch_labels = None
depends_on = None


def _seal_key(games: int) -> bytes:
    key: bytes | None = context.config.attributes.get("seal_key")
    if key is None:
        raise RuntimeError(f"sealing the chain tips of {games} games needs the seal key "
                           "(DICEPOST_SEAL_KEY; instance/seal_key in the embedded default)")
    return key


def upgrade() -> None:
    conn = op.get_bind()
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("sealed_tip", sa.String(SEALED_HEX), nullable=True))
    rows = conn.execute(sa.text("SELECT id, chain_tip FROM games")).all()
    if rows:
        key = _seal_key(len(rows))
        for game_id, tip in rows:
            conn.execute(sa.text("UPDATE games SET sealed_tip = :s WHERE id = :i"),
                         {"s": seal_tip(key, game_id, bytes.fromhex(tip)), "i": game_id})
    with op.batch_alter_table("games") as batch:
        batch.alter_column("sealed_tip", existing_type=sa.String(SEALED_HEX), nullable=False)
        batch.drop_column("chain_tip")


def downgrade() -> None:
    conn = op.get_bind()
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("chain_tip", sa.String(64), nullable=True))
    rows = conn.execute(sa.text("SELECT id, sealed_tip FROM games")).all()
    if rows:
        key = _seal_key(len(rows))
        for game_id, sealed in rows:
            conn.execute(sa.text("UPDATE games SET chain_tip = :t WHERE id = :i"),
                         {"t": open_tip(key, game_id, sealed).hex(), "i": game_id})
    with op.batch_alter_table("games") as batch:
        batch.alter_column("chain_tip", existing_type=sa.String(64), nullable=False)
        batch.drop_column("sealed_tip")
