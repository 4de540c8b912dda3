"""The indexes of paged lists hold each list's whole order, so a page's keys come from them.

Best totals are ordered by total, date, game and, within one game, seat: two players of one
game with the same total were in no stated order, and a page read from the end of the list
(store/paging.py) needs every two rows told apart. Finished games are ordered by date and
id: PostgreSQL now reads their ids from the index alone (SQLite's indexes end with the id).

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TOTAL_KEYS = ["household_id", "rules_key", sa.text("total DESC"), "finished_at", "game_id"]
FINISHED_KEYS = ["household_id", "status", "finished_at"]


def upgrade() -> None:
    op.drop_index("ix_results_rules_total", table_name="results")
    op.create_index("ix_results_rules_total", "results", [*TOTAL_KEYS, "seat"])
    op.drop_index("ix_games_household_status_finished", table_name="games")
    op.create_index("ix_games_household_status_finished", "games", [*FINISHED_KEYS, "id"])


def downgrade() -> None:
    op.drop_index("ix_games_household_status_finished", table_name="games")
    op.create_index("ix_games_household_status_finished", "games", FINISHED_KEYS)
    op.drop_index("ix_results_rules_total", table_name="results")
    op.create_index("ix_results_rules_total", "results", TOTAL_KEYS)
