"""Wrong household PINs in the database, so that every server process counts them.

Revision ID: 0004p
Revises: 0004
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004p"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "pin_failures",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("address", sa.String(64), nullable=False),
        sa.Column("failed_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_pin_failures")),
    )
    op.create_index("ix_pin_failures_address_time", "pin_failures", ["address", "failed_at"])
    op.create_index("ix_pin_failures_failed_at", "pin_failures", ["failed_at"])


def downgrade() -> None:
    op.drop_table("pin_failures")
