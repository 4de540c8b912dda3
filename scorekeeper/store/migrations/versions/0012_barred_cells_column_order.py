"""Results list their barred cells in the sheet's column order, as 0004 left the rule sets.

A result's ``barred_cells`` names each barred cell, column by column in the order of the
rule set's columns, then box by box. 0004 changed that order from (free, down, up, sec) to
(down, up, free, sec) in the rule sets but left the results written before it in the old
order, so they no longer equalled the results recomputed from the games. This sorts each
result's cells by column in the new order, keeping the order of the boxes within a column;
a result already in that order stays as it is. The orders are spelled out here, as 0004
does, so that later changes to the rules code cannot alter them.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OLD_ORDER = ("free", "down", "up", "sec")
NEW_ORDER = ("down", "up", "free", "sec")

results = sa.table(
    "results",
    sa.column("game_id", sa.Integer),
    sa.column("seat", sa.Integer),
    sa.column("barred_cells", sa.Text),
)


def upgrade() -> None:
    _reorder(NEW_ORDER)


def downgrade() -> None:
    _reorder(OLD_ORDER)


def _reorder(order: tuple[str, ...]) -> None:
    connection = op.get_bind()
    rank = {column: index for index, column in enumerate(order)}
    rows = connection.execute(
        sa.select(results).where(results.c.barred_cells.like("%:% %:%"))
    ).all()
    for row in rows:
        cells = row.barred_cells.split()
        # A stable sort: the boxes of one column keep their order.
        ordered = sorted(cells, key=lambda cell: rank.get(cell.split(":", 1)[0], len(order)))
        if ordered != cells:
            connection.execute(
                sa.update(results)
                .where(results.c.game_id == row.game_id, results.c.seat == row.seat)
                .values(barred_cells=" ".join(ordered))
            )
