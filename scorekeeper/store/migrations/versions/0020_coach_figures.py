"""The coach's figures: what each player of a finished game left to the Conseil.

Filled in the background by the server (scorekeeper/coach.py), from the advisor's tables,
which a migration does not have: the games finished before it are counted after the first
start that finds their tables, newest first.

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-07
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "coach_figures",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("household_id", sa.Integer(), nullable=False),
        sa.Column("rules_key", sa.String(16), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("given_away", sa.Float(), nullable=False),
        sa.Column("turns", sa.Integer(), nullable=False),
        sa.Column("best_turns", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id", "seat"],
            ["results.game_id", "results.seat"],
            name="fk_coach_figures_game_id_results",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("game_id", "seat", name="pk_coach_figures"),
    )
    op.create_index(
        "ix_coach_figures_rules_time",
        "coach_figures",
        ["household_id", "rules_key", "finished_at", "game_id"],
    )


def downgrade() -> None:
    op.drop_table("coach_figures")
