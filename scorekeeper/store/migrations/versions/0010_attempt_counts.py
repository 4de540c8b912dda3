"""Attempts counted per key, one row a key changed by one upsert (store/limits.py), in place
of one row per wrong passphrase: a count then an insert let 11 passphrases of 40 sent at
once be checked against a limit of 5. Sign-ups are counted there too.

The wrong passphrases of the last quarter of an hour are forgotten with their table.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "attempt_counts",
        sa.Column("key", sa.String(200), nullable=False),
        sa.Column("window_started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("key", name="pk_attempt_counts"),
    )
    op.create_index("ix_attempt_counts_window_started_at", "attempt_counts", ["window_started_at"])
    op.drop_index("ix_passphrase_failures_name_time", table_name="passphrase_failures")
    op.drop_index("ix_passphrase_failures_address_time", table_name="passphrase_failures")
    op.drop_table("passphrase_failures")


def downgrade() -> None:
    op.create_table(
        "passphrase_failures",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name_key", sa.String(180), nullable=False),
        sa.Column("address", sa.String(64), nullable=False),
        sa.Column("failed_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_passphrase_failures"),
    )
    op.create_index(
        "ix_passphrase_failures_name_time", "passphrase_failures", ["name_key", "failed_at"]
    )
    op.create_index(
        "ix_passphrase_failures_address_time", "passphrase_failures", ["address", "failed_at"]
    )
    op.drop_index("ix_attempt_counts_window_started_at", table_name="attempt_counts")
    op.drop_table("attempt_counts")
