"""Wrong household PINs counted like every other attempt (store/limits.py: one row a key,
one upsert a try), under a key of their household and address, in place of one row per
wrong PIN in a table of their own.

The wrong PINs of the last minute are forgotten with their table.

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-07
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.drop_index("ix_pin_failures_household_address_time", table_name="pin_failures")
    op.drop_index("ix_pin_failures_failed_at", table_name="pin_failures")
    op.drop_table("pin_failures")


def downgrade() -> None:
    op.create_table(
        "pin_failures",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("household_id", sa.Integer(), nullable=False),
        sa.Column("address", sa.String(64), nullable=False),
        sa.Column("failed_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["household_id"], ["households.id"], name="fk_pin_failures_household_id_households"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_pin_failures"),
    )
    op.create_index(
        "ix_pin_failures_household_address_time",
        "pin_failures",
        ["household_id", "address", "failed_at"],
    )
    op.create_index("ix_pin_failures_failed_at", "pin_failures", ["failed_at"])
