"""Games keep when their first entry was written: with ``finished_at``, how long they took.

Games played before have none and say nothing of their length: their entries' own times
are those of an import for imported games, and would tell a length that is not.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-04
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A plain ADD COLUMN: SQLite adds a nullable column without rebuilding the table.
    op.add_column("games", sa.Column("started_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    # SQLite 3.35 drops a column in place: no rebuild, which would cascade to the entries.
    op.drop_column("games", "started_at")
