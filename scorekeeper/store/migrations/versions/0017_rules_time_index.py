"""An index of each rule set's results by time: the hall of fame reads a rule set's latest
games for its usual length, a few rows however many games the household has.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-04
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

KEYS = ["household_id", "rules_key", "finished_at", "game_id"]


def upgrade() -> None:
    op.create_index("ix_results_rules_time", "results", KEYS)


def downgrade() -> None:
    op.drop_index("ix_results_rules_time", table_name="results")
