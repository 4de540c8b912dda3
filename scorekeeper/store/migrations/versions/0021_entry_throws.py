"""Generala: an entry keeps the throw its dice came from, and a result the boxes a game won
at once left empty.

An entry of a Generala game may say that its dice came from the turn's first throw (a
servida, docs/rules.md §14), which the replay needs: ``entries.throw``, NULL where the
entry said nothing (every entry written before). A Generala servida ends the game before
every box is filled: ``results.empty_cells`` names those cells ("column:box" words, as
``barred_cells``), so that the counters of filled boxes count only the filled ones; every
result written before filled every box ('').

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-06
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ADD COLUMNs: SQLite adds them without rebuilding the tables.
    op.add_column("entries", sa.Column("throw", sa.SmallInteger(), nullable=True))
    op.add_column(
        "results",
        sa.Column("empty_cells", sa.Text(), nullable=False, server_default=""),
    )


def downgrade() -> None:
    op.drop_column("results", "empty_cells")
    op.drop_column("entries", "throw")
