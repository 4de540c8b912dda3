"""Backups of the SQLite database, consistent even while the server keeps writing.

SQLite's online backup API copies every page within one read transaction: in WAL mode the
server's writers go on meanwhile, and the copy is the database as it was at one instant.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import make_url

BUSY_TIMEOUT_SECONDS = 5.0


class BackupError(Exception):
    """The backup cannot be made; nothing was written at the destination."""


@dataclass(frozen=True)
class BackupSummary:
    games: int
    entries: int


def sqlite_file(database_url: str) -> Path:
    """The file behind a SQLite database URL; BackupError for any other database."""
    url = make_url(database_url)
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        raise BackupError(
            f"only a SQLite database file can be backed up this way, not {url.render_as_string()}"
            "; use the database's own tool (pg_dump for PostgreSQL)"
        )
    return Path(url.database)


def backup(database: Path, destination: Path, household: int | None = None) -> BackupSummary:
    """Copy the SQLite database `database` into the single file `destination`.

    The copy is written aside, checked with PRAGMA integrity_check, then renamed into place:
    a backup that fails never replaces a good one. The copy uses the rollback journal, so it
    is one self-contained file; the server turns WAL back on when it opens a restored copy.
    With `household`, the copy keeps that household only: the others are deleted from it.
    """
    if not database.is_file():
        raise BackupError(f"no database at {database}")
    if destination.exists() and destination.resolve() == database.resolve():
        raise BackupError("the backup would overwrite the database itself")
    destination.parent.mkdir(parents=True, exist_ok=True)
    fd, draft = tempfile.mkstemp(dir=destination.parent, prefix=f".{destination.name}-")
    os.close(fd)
    try:
        summary = _copy(database, Path(draft))
        if household is not None:
            summary = _keep_only(Path(draft), household)
        os.replace(draft, destination)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(draft)
    return summary


def _copy(database: Path, draft: Path) -> BackupSummary:
    source = sqlite3.connect(database, timeout=BUSY_TIMEOUT_SECONDS)
    try:
        copy = sqlite3.connect(draft)
        try:
            source.backup(copy)
            copy.execute("PRAGMA journal_mode = DELETE")
            problems = [row[0] for row in copy.execute("PRAGMA integrity_check")]
            if problems != ["ok"]:
                raise BackupError(f"the copy fails its integrity check: {'; '.join(problems)}")
            games = copy.execute("SELECT count(*) FROM games").fetchone()[0]
            entries = copy.execute("SELECT count(*) FROM entries").fetchone()[0]
        except sqlite3.DatabaseError as error:
            raise BackupError(f"cannot back up {database}: {error}") from error
        finally:
            copy.close()
    finally:
        source.close()
    return BackupSummary(games=games, entries=entries)


def _keep_only(copy: Path, household: int) -> BackupSummary:
    """Delete every household but one from a copy; what it then holds."""
    from scorekeeper.store.engine import Store
    from scorekeeper.store.households import delete_household
    from scorekeeper.store.schema import households

    store = Store(f"sqlite:///{copy}")
    try:
        with store.engine.connect() as connection:
            others = list(
                connection.scalars(
                    households.select()
                    .with_only_columns(households.c.id)
                    .where(households.c.id != household)
                )
            )
        for other in others:
            delete_household(store, other)
    finally:
        store.dispose()
    # The store opened the copy in WAL mode: back to one self-contained file.
    connection = sqlite3.connect(copy, isolation_level=None)
    try:
        connection.execute("PRAGMA journal_mode = DELETE")
        connection.execute("VACUUM")
        games = connection.execute("SELECT count(*) FROM games").fetchone()[0]
        entries = connection.execute("SELECT count(*) FROM entries").fetchone()[0]
    finally:
        connection.close()
    return BackupSummary(games=games, entries=entries)
