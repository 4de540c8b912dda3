"""Record indexes ordered for ties: highest first, then the earliest game.

With many equal totals (or Yams counts, upper sections, streaks), the indexes of 0002
left SQLite to sort every tied row for the record holder or a page of best totals; these
give both as the first rows of the index.

Revision ID: 0003
Revises: 0002
Create Date: 2025-12-06
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

RECORDS = {"total": "total", "upper": "upper", "yams": "yams_count", "streak": "bonus_streak"}


def upgrade() -> None:
    for name, column in RECORDS.items():
        op.drop_index(f"ix_results_rules_{name}", table_name="results")
        op.create_index(
            f"ix_results_rules_{name}",
            "results",
            ["rules_key", sa.text(f"{column} DESC"), "finished_at", "game_id"],
        )
    op.drop_index("ix_results_player_rules_total", table_name="results")
    op.create_index(
        "ix_results_player_rules_total",
        "results",
        ["player_id", "rules_key", "total", "finished_at", "game_id"],
    )
    op.drop_index("ix_results_player_time", table_name="results")
    op.create_index("ix_results_player_time", "results", ["player_id", "finished_at", "game_id"])


def downgrade() -> None:
    op.drop_index("ix_results_player_time", table_name="results")
    op.create_index("ix_results_player_time", "results", ["player_id", "finished_at"])
    op.drop_index("ix_results_player_rules_total", table_name="results")
    op.create_index("ix_results_player_rules_total", "results", ["player_id", "rules_key", "total"])
    for name, column in RECORDS.items():
        op.drop_index(f"ix_results_rules_{name}", table_name="results")
        op.create_index(f"ix_results_rules_{name}", "results", ["rules_key", column])
