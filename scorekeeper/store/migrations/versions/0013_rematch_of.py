"""Games remember which game they are the Revanche of, so that a rematch is made once.

Ranking, Revanche, Back, Revanche made a second new game: the second tap now opens the game
the first one made. The column is unique (many NULLs are allowed on both engines), so two
tablets tapping Revanche at once make one game between them. Games made before keep NULL.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # A plain ADD COLUMN: SQLite adds a nullable column without rebuilding the table.
    op.add_column("games", sa.Column("rematch_of", sa.Integer(), nullable=True))
    op.create_index("ix_games_rematch_of", "games", ["rematch_of"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_games_rematch_of", table_name="games")
    # SQLite 3.35 drops a column in place: no rebuild, which would cascade to the entries.
    op.drop_column("games", "rematch_of")
