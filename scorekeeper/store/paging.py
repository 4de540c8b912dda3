"""A page of a long list, read from whichever end of the list is nearer.

A database reaches row ``offset`` of an ordered list by stepping over every row before it:
at 20,000 games the last of 3,474 pages of best totals cost 7 times the first. Read in the
reverse order, the last page is the first one from the other end: a page past the middle
is read that way and put back in order, so the last page costs what the first does. Page
numbers keep their meaning (a bookmarked ``?page=N`` shows the same rows as before), which
a cursor in the URL would not; the page in the middle stays the costliest, at half the list.

Only the page's keys are read here, from an index that holds them in order; the caller then
reads what it shows for those keys alone, never joining before the offset.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import ColumnElement, Connection, Row, Select


@dataclass(frozen=True)
class By:
    """One key of a list's order. The keys of an order must tell every two rows apart, so
    that reading it backwards meets the rows in exactly the reverse order."""

    column: ColumnElement
    descending: bool = False

    def forward(self) -> ColumnElement:
        return self.column.desc() if self.descending else self.column.asc()

    def backward(self) -> ColumnElement:
        return self.column.asc() if self.descending else self.column.desc()


def page_keys(
    connection: Connection,
    query: Select,
    order: Sequence[By],
    offset: int = 0,
    limit: int | None = None,
    count: int | None = None,
) -> list[Row]:
    """The rows of ``query`` from ``offset`` to ``offset + limit`` of ``order``, in that
    order; every row from ``offset`` without ``limit``.

    ``count`` is how many rows the whole list holds (the caller knows it to number the
    pages): with it, a page nearer the end is read from the end. A count read a moment
    before the list shifts such a page by the rows written in between, as any page shifts
    when rows are written before it.
    """
    if limit is None or count is None or offset + limit / 2 <= count / 2:
        return list(
            connection.execute(
                query.order_by(*(by.forward() for by in order)).offset(offset).limit(limit)
            )
        )
    # Rows [offset, offset + limit) are rows [count - offset - limit, count - offset) counted
    # from the end; past the end (a count that shrank) there is nothing to read.
    end = count - offset
    if end <= 0:
        return []
    backwards = query.order_by(*(by.backward() for by in order))
    rows = connection.execute(backwards.offset(max(0, end - limit)).limit(min(limit, end)))
    return list(reversed(rows.all()))
