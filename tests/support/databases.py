"""Which database the tests run on: SQLite files, or PostgreSQL when a setting names a server.

    SCOREKEEPER_TEST_DATABASE_URL=postgresql://postgres@127.0.0.1:5433/postgres pytest

The URL is an administrator's: the tests create their own databases on that server (named
after the process, dropped at the end) and leave the one named in the URL alone. Creating a
PostgreSQL database takes a quarter of a second and dropping one two, so the databases are
kept in a pool: a test takes one, emptied of every row (TRUNCATE, ids restarted) so that it
starts as a fresh SQLite file would, and gives it back at its end.

On SQLite, migrating a new file takes a second (Alembic's import, then every migration): a
test that asks for a database gets a copy of one file migrated once per run instead, which
is what the app's first start would have made of it (schema, home household).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from pathlib import Path

from sqlalchemy import create_engine, make_url, text

from scorekeeper.app import DATABASE_FILE
from scorekeeper.store import Store
from scorekeeper.store.engine import engine_url

TEST_DATABASE_URL_ENV = "SCOREKEEPER_TEST_DATABASE_URL"
# Set by CI: a run that should be on PostgreSQL and is not must fail, not pass on SQLite.
REQUIRE_POSTGRESQL_ENV = "SCOREKEEPER_REQUIRE_POSTGRESQL"

ADMIN_URL = os.environ.get(TEST_DATABASE_URL_ENV) or None
ON_POSTGRESQL = ADMIN_URL is not None


class PostgresPool:
    """Migrated databases on the test server, handed out one test at a time."""

    def __init__(self, admin_url: str) -> None:
        self.admin_url = engine_url(admin_url)
        self._admin = create_engine(self.admin_url, isolation_level="AUTOCOMMIT", pool_size=1)
        self._lock = threading.Lock()
        self._free: list[str] = []
        self._all: list[str] = []

    def url_of(self, name: str) -> str:
        return self.admin_url.set(database=name).render_as_string(hide_password=False)

    def take(self) -> str:
        """The URL of a database holding the newest schema and no rows."""
        with self._lock:
            name = self._free.pop() if self._free else None
        if name is None:
            return self._create()
        url = self.url_of(name)
        with self._admin.connect() as admin:
            # A test that left connections open must not hold the next one up.
            admin.execute(
                text(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = :name AND pid <> pg_backend_pid()"
                ),
                {"name": name},
            )
        engine = create_engine(url)
        try:
            with engine.begin() as connection:
                tables = connection.scalars(
                    text(
                        "SELECT quote_ident(tablename) FROM pg_tables "
                        "WHERE schemaname = 'public' AND tablename <> 'alembic_version'"
                    )
                ).all()
                connection.execute(text(f"TRUNCATE {', '.join(tables)} RESTART IDENTITY"))
        finally:
            engine.dispose()
        return url

    def give_back(self, url: str) -> None:
        with self._lock:
            self._free.append(make_url(url).database)

    def _create(self) -> str:
        with self._lock:
            name = f"scorekeeper_test_{os.getpid()}_{len(self._all)}"
            self._all.append(name)
        with self._admin.connect() as admin:
            admin.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
            admin.execute(text(f'CREATE DATABASE "{name}"'))
        url = self.url_of(name)
        store = Store(url)
        try:
            store.migrate()
        finally:
            store.dispose()
        return url

    def close(self) -> None:
        with self._admin.connect() as admin:
            for name in self._all:
                admin.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        self._admin.dispose()


class SqliteTemplate:
    """One SQLite file migrated on first use; each test gets a copy of it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._folder: tempfile.TemporaryDirectory | None = None

    def copy_to(self, path: Path) -> None:
        with self._lock:
            if self._folder is None:
                folder = tempfile.TemporaryDirectory(prefix="scorekeeper-template-")
                store = Store(f"sqlite:///{Path(folder.name) / DATABASE_FILE}")
                try:
                    store.migrate()
                finally:
                    # The last connection closed folds the WAL into the file: one file to copy.
                    store.dispose()
                self._folder = folder
        shutil.copyfile(Path(self._folder.name) / DATABASE_FILE, path)

    def close(self) -> None:
        if self._folder is not None:
            self._folder.cleanup()


_pool: PostgresPool | None = None
_template = SqliteTemplate()


def pool() -> PostgresPool:
    global _pool
    if _pool is None:
        _pool = PostgresPool(ADMIN_URL)
    return _pool


def take_database(folder: Path) -> str:
    """A database URL for one test: SQLite's file in `folder` (the instance folder, as the
    app would name it), or a clean PostgreSQL database. Give it back with give_database."""
    if not ON_POSTGRESQL:
        path = Path(folder) / DATABASE_FILE
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists():
            _template.copy_to(path)
        return f"sqlite:///{path}"
    return pool().take()


def give_database(url: str) -> None:
    if ON_POSTGRESQL:
        pool().give_back(url)


def close_databases() -> None:
    if _pool is not None:
        _pool.close()
    _template.close()
