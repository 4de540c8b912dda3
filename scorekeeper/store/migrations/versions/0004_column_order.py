"""Rule sets keyed with the columns in their new order: Descendante, Montante, Libre, Sec.

A rule set's key hashes its canonical rules, whose ``columns`` list follows the order the
sheet shows them in. That order changed from (free, down, up, sec) to (down, up, free, sec)
to match the paper sheet of Triple, so a Triple game finished after the upgrade would get a
key other than the one its predecessors hold, and the hall of fame would split one rule set
in two. This rewrites each stored key whose columns change order, in the results and the
players' aggregates that point to it. The canonical form is spelled out here, as it was
when this migration was written, so that later changes to the rules code cannot alter it.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30
"""

import hashlib
import json
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OLD_ORDER = ("free", "down", "up", "sec")
NEW_ORDER = ("down", "up", "free", "sec")
KEY_LENGTH = 16

rule_sets = sa.table(
    "rule_sets",
    sa.column("key", sa.String),
    sa.column("rules", sa.Text),
    sa.column("games", sa.Integer),
    sa.column("results", sa.Integer),
)
CHILDREN = [
    sa.table(name, sa.column("rules_key", sa.String))
    for name in ("results", "player_stats", "player_box_stats")
]


def upgrade() -> None:
    _reorder(NEW_ORDER)


def downgrade() -> None:
    _reorder(OLD_ORDER)


def _reorder(order: tuple[str, ...]) -> None:
    connection = op.get_bind()
    for row in connection.execute(sa.select(rule_sets)).all():
        rules = json.loads(row.rules)
        rules["columns"] = [column for column in order if column in rules["columns"]]
        text = json.dumps(rules, sort_keys=True, separators=(",", ":"))
        key = hashlib.sha256(text.encode("utf-8")).hexdigest()[:KEY_LENGTH]
        if key == row.key:
            continue
        # The new row first and the old one last: every foreign key holds at every step.
        connection.execute(
            sa.insert(rule_sets).values(key=key, rules=text, games=row.games, results=row.results)
        )
        for child in CHILDREN:
            connection.execute(
                sa.update(child).where(child.c.rules_key == row.key).values(rules_key=key)
            )
        connection.execute(sa.delete(rule_sets).where(rule_sets.c.key == row.key))
