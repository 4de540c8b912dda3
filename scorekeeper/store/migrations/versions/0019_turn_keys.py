"""Entries keep the key the tablet made for their turn, so that a turn sent twice is
written once.

A tablet whose network dropped while a turn was on its way does not know whether it was
written: it sends the same turn again, with the same key, and the game that has an entry of
that key answers with it instead of refusing the turn as made on an old sheet. Entries
written before, and those of forms without scripts or of imports, keep NULL (many NULLs are
allowed in a unique index on both engines).

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-06
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A plain ADD COLUMN: SQLite adds a nullable column without rebuilding the table.
    op.add_column("entries", sa.Column("turn_key", sa.String(64), nullable=True))
    op.create_index("ix_entries_turn_key", "entries", ["game_id", "turn_key"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_entries_turn_key", table_name="entries")
    # SQLite 3.35 drops a column in place: no rebuild.
    op.drop_column("entries", "turn_key")
