"""Attempts counted in the database, per key: every thread and every process counts the same
ones (passphrases tried, households created, a household's PIN typed wrong).

A key's window opens at its first attempt and lasts the given time; the first attempt after
it opens a new one. Counting is one upsert that returns the new count: PostgreSQL locks the
key's row and SQLite the database for that one statement, so attempts made at the same
moment get successive counts. Counted before the work it limits, an attempt beyond the limit
is refused without doing it: of 40 passphrases sent at once, 5 are checked, where a count
followed by an insert let 11 through. (Flask-Limiter keeps its counts in memory, Redis or
Memcached: not where this app's processes meet.)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import Connection, case, delete, literal, select, update

from scorekeeper.store.counters import dialect_insert
from scorekeeper.store.engine import Store
from scorekeeper.store.schema import attempt_counts

# Rows of windows closed this long ago are deleted on the way: longer than any window.
FORGET_AFTER = timedelta(days=1)
# The keys of attempts on one household (its PIN typed wrong, per address) start with this:
# the household's own, deleted with it.
HOUSEHOLD_KEY = "household:{household}:"


@dataclass(frozen=True)
class Attempts:
    count: int
    window_ends_at: datetime

    def seconds_left(self, now: datetime) -> int:
        return max(1, int((self.window_ends_at - now).total_seconds() + 0.999))


def count_attempt(
    store: Store, key: str, window: timedelta, now: datetime | None = None
) -> Attempts:
    """Count one attempt under `key`: how many its window holds now, this one included."""
    now = now or datetime.now(UTC)
    stamp = attempt_counts.c.window_started_at.type
    closed = attempt_counts.c.window_started_at <= literal(now - window, stamp)

    def count(connection: Connection) -> Attempts:
        connection.execute(
            delete(attempt_counts).where(attempt_counts.c.window_started_at < now - FORGET_AFTER)
        )
        insert = dialect_insert(connection.dialect.name)(attempt_counts).values(
            key=key, window_started_at=now, attempts=1
        )
        row = connection.execute(
            insert.on_conflict_do_update(
                index_elements=["key"],
                set_={
                    "attempts": case((closed, 1), else_=attempt_counts.c.attempts + 1),
                    "window_started_at": case(
                        (closed, insert.excluded.window_started_at),
                        else_=attempt_counts.c.window_started_at,
                    ),
                },
            ).returning(attempt_counts.c.attempts, attempt_counts.c.window_started_at)
        ).one()
        return Attempts(row.attempts, row.window_started_at + window)

    return store.write(count)


def take_back(store: Store, key: str) -> None:
    """Uncount an attempt of `key` that turned out not to count (the right passphrase)."""
    store.write(
        lambda connection: connection.execute(
            update(attempt_counts)
            .where(attempt_counts.c.key == key, attempt_counts.c.attempts > 0)
            .values(attempts=attempt_counts.c.attempts - 1)
        )
    )


def forget(store: Store, key: str) -> None:
    """Forget every attempt of `key` (a right PIN after wrong ones)."""
    store.write(
        lambda connection: connection.execute(
            delete(attempt_counts).where(attempt_counts.c.key == key)
        )
    )


def recent_attempts(
    store: Store, keys: Iterable[str], window: timedelta, now: datetime | None = None
) -> dict[str, Attempts]:
    """The attempts each key's open window holds (none, ending now, for a key without
    one)."""
    keys = list(keys)
    now = now or datetime.now(UTC)
    with store.engine.connect() as connection:
        rows = connection.execute(
            select(
                attempt_counts.c.key,
                attempt_counts.c.attempts,
                attempt_counts.c.window_started_at,
            ).where(
                attempt_counts.c.key.in_(keys), attempt_counts.c.window_started_at > now - window
            )
        ).all()
    found = {row.key: Attempts(row.attempts, row.window_started_at + window) for row in rows}
    return {key: found.get(key, Attempts(0, now)) for key in keys}


def household_attempts_key(name: str, *, household: int) -> str:
    """The key of attempts on `household` (``name``: what is tried, from where)."""
    return HOUSEHOLD_KEY.format(household=household) + name


def forget_household_attempts(connection: Connection, *, household: int) -> None:
    """Delete the attempts on a household that is being deleted."""
    connection.execute(
        delete(attempt_counts).where(
            attempt_counts.c.key.startswith(HOUSEHOLD_KEY.format(household=household))
        )
    )
