"""Household names: a key compared after NFKC, case folding and whitespace collapsing, and a
unique digest of what the name looks like (its TR39 skeleton), so that no household takes a
look-alike of another's name (store/household_names.py).

Every hosted household's key is computed again with the new rule and its skeleton added, in
the order the households were made. Two households whose names became one, or look alike,
may exist already: the older keeps the key and the skeleton; the newer gets none of what
it shares, and is then joined by its join links only (its devices stay joined). The home
household, which nobody joins by name, has neither.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

MAX_KEY_LENGTH = 180


def upgrade() -> None:
    from scorekeeper.store.household_names import household_key, household_skeleton

    op.add_column("households", sa.Column("name_skeleton", sa.String(64), nullable=True))
    households = sa.table(
        "households",
        sa.column("id"),
        sa.column("name"),
        sa.column("name_key"),
        sa.column("name_skeleton"),
    )
    connection = op.get_bind()
    rows = connection.execute(
        sa.select(households.c.id, households.c.name)
        .where(households.c.name_key.is_not(None))
        .order_by(households.c.id)
    ).all()
    # Emptied first, so that no key is ever held twice on the way.
    connection.execute(
        sa.update(households).where(households.c.name_key.is_not(None)).values(name_key=None)
    )
    keys, skeletons = set(), set()
    for row in rows:
        key, skeleton = household_key(row.name), household_skeleton(row.name)
        key = key if key not in keys and len(key) <= MAX_KEY_LENGTH else None
        skeleton = skeleton if skeleton not in skeletons else None
        keys.add(key)
        skeletons.add(skeleton)
        connection.execute(
            sa.update(households)
            .where(households.c.id == row.id)
            .values(name_key=key, name_skeleton=skeleton)
        )
    op.create_index("ix_households_name_skeleton", "households", ["name_skeleton"], unique=True)


def downgrade() -> None:
    op.drop_index("ix_households_name_skeleton", table_name="households")
    # In place on SQLite too (3.35 or later): rebuilding households would trip the foreign
    # keys that point to it. The keys stay as the new rule made them.
    op.execute("ALTER TABLE households DROP COLUMN name_skeleton")
