"""Maxi Yatzy: an entry keeps the throws its turn used.

Maxi Yatzy saves the throws a turn leaves unused for the player's later turns (docs/rules.md
§15): an entry may say the throws its turn used, from which the replay derives each
player's saved throws. ``entries.throws``, NULL where the entry said nothing, which is the
turn's own three (every entry written before).

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-07
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0022"
down_revision: str | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A plain ADD COLUMN: SQLite adds it without rebuilding the table.
    op.add_column("entries", sa.Column("throws", sa.SmallInteger(), nullable=True))


def downgrade() -> None:
    op.drop_column("entries", "throws")
