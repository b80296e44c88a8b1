"""games.revision: the rules revision each game plays under, to its end.

Revision ID: 0012_rules_revision
Revises: 0011_chain_marks

Every game stored before rulesets had revisions plays revision 1 of its ruleset (its
setup document names none, which is revision 1); a new game is created under the newest.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012_rules_revision"
down_revision = "0011_chain_marks"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("revision", sa.Integer(), nullable=False, server_default="1"))


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("revision")
