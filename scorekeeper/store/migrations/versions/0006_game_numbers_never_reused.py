"""Game numbers are never reused: SQLite's games table gets AUTOINCREMENT.

Without it SQLite gives a new row the largest id plus one, so deleting the newest game and
starting another gave the new game the deleted one's number, and a tablet still showing
the deleted game's sheet wrote into the new game. PostgreSQL's sequences never hand a
number out twice: nothing to do there.

SQLite adds AUTOINCREMENT only by rebuilding the table; Store.migrate turns foreign keys
off around migrations, or dropping the old table would cascade to every entry.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-30
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _rebuild_games(autoincrement: bool) -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    with op.batch_alter_table(
        "games", recreate="always", table_kwargs={"sqlite_autoincrement": autoincrement}
    ):
        pass


def upgrade() -> None:
    _rebuild_games(autoincrement=True)


def downgrade() -> None:
    _rebuild_games(autoincrement=False)
