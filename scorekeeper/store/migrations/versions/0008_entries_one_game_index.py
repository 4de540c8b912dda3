"""Entries lose their index on game_id alone: the unique (game_id, seq) index serves it.

Every query by game (a log, its length, the cascade of a deleted game) is served by the
unique index's first column as well; the second index only cost every insert, a third of
the time an import spends writing its entries.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-30
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.drop_index("ix_entries_game_id", table_name="entries")


def downgrade() -> None:
    op.create_index("ix_entries_game_id", "entries", ["game_id"])
