"""confirmed_addresses: the addresses game mail may go to.

Revision ID: 0018_confirmed_addresses
Revises: 0017_games_rewritten

An address a player gives gets a confirmation link and nothing else until its owner
presses it, signs in by mail or writes from it (service.address_confirm). The addresses
of seats that exist when this runs, and those that signed in, count as confirmed: their
players had their mail before, and keep it.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from service.models import UTCDateTime

revision = "0018_confirmed_addresses"
down_revision = "0017_games_rewritten"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "confirmed_addresses",
        sa.Column("address", sa.String(320), nullable=False),
        sa.Column("confirmed_at", UTCDateTime(), nullable=False),
        sa.Column("how", sa.String(16), nullable=False),
        sa.PrimaryKeyConstraint("address", name="pk_confirmed_addresses"),
    )
    op.execute("INSERT INTO confirmed_addresses (address, confirmed_at, how) "
               "SELECT address, CURRENT_TIMESTAMP, 'before' FROM ("
               "SELECT lower(email) AS address FROM seats WHERE email IS NOT NULL "
               "UNION SELECT lower(email) FROM login_links WHERE used_at IS NOT NULL) AS known")


def downgrade() -> None:
    op.drop_table("confirmed_addresses")
