"""The database engine: the URL and its driver, each backend's session settings, the
connections a forked process inherits, the schema brought up to date, and the write.

Every write is one transaction run by ``Store.write``: on PostgreSQL a transaction broken
off by a deadlock or a serialization failure is run again whole; on SQLite the writers of
one process queue on a lock of their own. A transaction says what it changed
(``mark_changed``, ``mark_revoked``): once it commits, the listener given to
``Store.listen`` (the open sheets of this process, store/changes.py) hears it.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime
from typing import Any, Protocol, TypeVar
from weakref import WeakSet

from sqlalchemy import URL, Connection, Engine, create_engine, event, func, make_url, select, text
from sqlalchemy.exc import ArgumentError, OperationalError

from scorekeeper.store.records import GameVersion

BUSY_TIMEOUT_MS = 5000
# SQLite folds its write-ahead log into the database every this many pages (SQLite's own
# default is 1,000, 4 MB), and then cuts the log file back to this many bytes: a home
# database of a few hundred kB keeps a log of its size, not megabytes, on a small disk.
WAL_CHECKPOINT_PAGES = 100
WAL_SIZE_LIMIT_BYTES = 256 * 1024

# SQLite lets one writer in at a time, and a writer that finds the database locked sleeps
# before it tries again, longer each time (1, 2, 5, 10, 15, 20, 25 ms...): four tablets
# confirming at once waited up to 100 ms for a lock held a millisecond or two each. So the
# writers of one process queue on a lock of their own, and the next goes in as soon as the
# last is done. Writers of another process (an import from the command line) still meet
# SQLite's wait: past the busy timeout a writer goes on without the lock and SQLite decides.
_WRITERS_WAIT_S = BUSY_TIMEOUT_MS / 1000

# How many times a transaction that PostgreSQL broke off (deadlock, serialization failure)
# is run again before the error goes up; the SQLSTATEs that say "run it again".
WRITE_ATTEMPTS = 5
RETRIED_SQLSTATES = {"40P01", "40001"}

# The pip extra that brings each backend's driver.
DRIVER_EXTRAS = {"postgresql": "postgresql"}

# PostgreSQL's channel for the changed games; a payload is "<household>:<game>", or
# "device:<id>" / "link:<game>" for a device removed / a spectator link revoked.
CHANNEL = "scorekeeper_games"
# What a stream of changes may be held by, besides its household: a device, or a game's
# spectator link.
DEVICE, LINK = "device", "link"
# Where a transaction keeps what it changed until it commits (the connection's info).
_CHANGED = "scorekeeper.changed_games"
_REVOKED = "scorekeeper.revoked_holders"

GameKey = tuple[int, int]  # (household, game)
T = TypeVar("T")


class DatabaseSetupError(Exception):
    """The database URL cannot be used as given: said in one line, at start."""


def engine_url(url: str | URL) -> URL:
    """The URL SQLAlchemy opens for a database URL as an operator writes it.

    ``postgresql://`` (and Heroku's ``postgres://``) mean psycopg 3, the driver of the
    ``postgresql`` extra, whatever default driver the installed SQLAlchemy would pick.
    """
    try:
        parsed = make_url(url)
    except ArgumentError as error:
        raise DatabaseSetupError(f"DATABASE_URL: {error}") from None
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


def _create_engine(url: URL, options: dict[str, Any]) -> Engine:
    try:
        return create_engine(url, **options)
    except ImportError as error:
        backend = url.get_backend_name()
        extra = DRIVER_EXTRAS.get(backend)
        advice = (
            f"pip install 'scorekeeper[{extra}]'"
            if extra
            else f"install the Python driver {url.get_driver_name()!r}"
        )
        raise DatabaseSetupError(
            f"the {backend} database driver is missing ({error.name or error}): {advice}"
        ) from None
    except ArgumentError as error:
        raise DatabaseSetupError(f"DATABASE_URL: {error}") from None


# Every store's engine, so that a forked child (gunicorn --preload) drops the pooled
# connections it inherited instead of talking over its parent on the same sockets.
_engines: WeakSet[Engine] = WeakSet()


def _forget_inherited_connections() -> None:
    for engine in list(_engines):
        engine.dispose(close=False)


os.register_at_fork(after_in_child=_forget_inherited_connections)


def _must_retry(error: OperationalError) -> bool:
    return getattr(error.orig, "sqlstate", None) in RETRIED_SQLSTATES


def utc_now() -> datetime:
    """The time every stored timestamp is written in: now, in UTC."""
    return datetime.now(UTC)


def _on_sqlite_connect(dbapi_connection, connection_record) -> None:
    # pysqlite's own BEGIN only precedes DML, so reads would see no snapshot and SAVEPOINT
    # would misbehave; turning it off lets _on_sqlite_begin emit every BEGIN itself.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    # busy_timeout first: switching to WAL needs a lock that another process may hold.
    cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA journal_mode = WAL")
    cursor.execute(f"PRAGMA wal_autocheckpoint = {WAL_CHECKPOINT_PAGES}")
    cursor.execute(f"PRAGMA journal_size_limit = {WAL_SIZE_LIMIT_BYTES}")
    cursor.execute("PRAGMA foreign_keys = ON")
    cursor.close()


def _on_sqlite_begin(connection: Connection) -> None:
    connection.exec_driver_sql("BEGIN")


def server_session_settings(
    *, lock_timeout_s: float, statement_timeout_s: float, idle_s: float
) -> dict[str, str]:
    """A server's PostgreSQL sessions: a request that meets a held lock, or a statement that
    runs long, fails in time (a 503) instead of holding its thread, and an idle pooled
    connection is closed by the server (the pool's pre-ping then replaces it)."""
    return {
        "lock_timeout": f"{round(lock_timeout_s * 1000)}ms",
        "statement_timeout": f"{round(statement_timeout_s * 1000)}ms",
        "idle_session_timeout": f"{round(idle_s * 1000)}ms",
    }


def _setter_of(settings: dict[str, str]) -> Callable[..., None]:
    def on_connect(dbapi_connection, connection_record) -> None:
        # Outside any transaction, so that the settings hold for the session.
        autocommit = dbapi_connection.autocommit
        dbapi_connection.autocommit = True
        with dbapi_connection.cursor() as cursor:
            for name, value in settings.items():
                cursor.execute(f"SELECT set_config('{name}', %s, false)", (value,))
        dbapi_connection.autocommit = autocommit

    return on_connect


def connection_room(engine: Engine) -> int | None:
    """How many connections PostgreSQL lets ordinary clients open (max_connections less
    those reserved for superusers); None on SQLite."""
    if engine.dialect.name != "postgresql":
        return None
    with engine.connect() as connection:
        settings = dict(
            connection.execute(
                text(
                    "SELECT name, setting::int FROM pg_settings WHERE name IN "
                    "('max_connections', 'superuser_reserved_connections', "
                    "'reserved_connections')"
                )
            ).all()
        )
    return (
        settings["max_connections"]
        - settings.get("superuser_reserved_connections", 0)
        - settings.get("reserved_connections", 0)
    )


def mark_changed(connection: Connection, game_id: int, *, household: int) -> None:
    """Say, within a write's transaction, that this game changes with it."""
    connection.info.setdefault(_CHANGED, set()).add((household, game_id))
    if connection.dialect.name == "postgresql":
        connection.execute(select(func.pg_notify(CHANNEL, f"{household}:{game_id}")))


def mark_revoked(connection: Connection, kind: str, ident: int) -> None:
    """Say, within a write's transaction, that the device (DEVICE) or the game's spectator
    link (LINK) `ident` holds no stream any more, in any process once it commits."""
    connection.info.setdefault(_REVOKED, set()).add((kind, ident))
    if connection.dialect.name == "postgresql":
        connection.execute(select(func.pg_notify(CHANNEL, f"{kind}:{ident}")))


def _take_changed(connection: Connection) -> set[GameKey]:
    return connection.info.pop(_CHANGED, set())


def _take_revoked(connection: Connection) -> set[tuple[str, int]]:
    return connection.info.pop(_REVOKED, set())


class CommitListener(Protocol):
    """Who hears what the writes of this process changed (store/changes.py's hub)."""

    def versions_within(
        self, connection: Connection, changed: set[GameKey]
    ) -> Mapping[GameKey, GameVersion | None]:
        """Within the transaction, before it commits: the new versions of the changed games
        the listener wants to hear of (SQLite), read on the write's own connection."""

    def committed(
        self, moved: Mapping[GameKey, GameVersion | None], revoked: set[tuple[str, int]]
    ) -> None:
        """After the commit: these games moved to these versions, these holders were
        revoked."""

    def stop(self) -> None:
        """The store closes: hear nothing more."""


class Store:
    """The games database. Safe to share between threads: each call takes its own connection."""

    def __init__(
        self,
        url: str | URL,
        *,
        session_settings: dict[str, str] | None = None,
        **engine_options: Any,
    ) -> None:
        """Open the database of `url` (not yet connected); `engine_options` go to SQLAlchemy's
        create_engine (pool_size, say). `session_settings`, on PostgreSQL, are SET on each
        new connection (lock_timeout, say; see server_session_settings). Raises
        DatabaseSetupError for a URL that cannot be used: unknown backend, driver not
        installed."""
        url = engine_url(url)
        if url.get_backend_name() != "sqlite":
            # A pooled connection that a database restart closed is replaced, not a 500.
            engine_options.setdefault("pool_pre_ping", True)
        self.engine: Engine = _create_engine(url, engine_options)
        _engines.add(self.engine)
        if session_settings and self.engine.dialect.name == "postgresql":
            event.listen(self.engine, "connect", _setter_of(session_settings))
        # PostgreSQL locks rows, and its writers really run at the same time.
        self._writers: threading.Lock | None = None
        if self.engine.dialect.name == "sqlite":
            event.listen(self.engine, "connect", _on_sqlite_connect)
            event.listen(self.engine, "begin", _on_sqlite_begin)
            self._writers = threading.Lock()
        self._listener: CommitListener | None = None
        # Whether this process has seen the schema at the newest migration.
        self.migrated = False
        self._migrating = threading.Lock()

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    def listen(self, listener: CommitListener) -> None:
        """Let `listener` hear what every write of this store changes, once committed."""
        self._listener = listener

    def migrate(self) -> None:
        """Bring the schema to the newest migration (store/migrations); a no-op when it is
        already there."""
        from scorekeeper.store.migrations import upgrade

        upgrade(self.engine)
        self.migrated = True

    def migrate_once(self) -> None:
        """Migrate unless this process already has: what every request asks first, so that a
        process started while the database was away serves as soon as it is back."""
        if self.migrated:
            return
        with self._migrating:
            if not self.migrated:
                self.migrate()

    def write(self, work: Callable[[Connection], T], connection: Connection | None = None) -> T:
        """Run `work` in one transaction and return what it returns.

        PostgreSQL breaks off a transaction caught in a deadlock or a serialization failure;
        the whole transaction is then run again, a few times at most, so that two tablets
        finishing games at once both succeed. The transaction runs on `connection` when
        given (one holding temporary tables that `work` reads), else on a pooled one.
        """
        queued = self._writers is not None and self._writers.acquire(timeout=_WRITERS_WAIT_S)
        try:
            attempt = 1
            while True:
                try:
                    with self._transaction(connection) as begun:
                        _take_changed(begun)  # marks left by a transaction that failed
                        _take_revoked(begun)
                        done = work(begun)
                        changed = _take_changed(begun)
                        moved = (
                            self._listener.versions_within(begun, changed)
                            if changed and self._listener is not None
                            else {}
                        )
                        revoked = _take_revoked(begun)
                    break
                except OperationalError as error:
                    if attempt == WRITE_ATTEMPTS or not _must_retry(error):
                        raise
                    attempt += 1
        finally:
            if queued:
                self._writers.release()
        # After the commit, and after the next writer's turn has come: the sheets' wake-up
        # does not hold it up.
        if (moved or revoked) and self._listener is not None:
            self._listener.committed(moved, revoked)
        return done

    @contextlib.contextmanager
    def _transaction(self, connection: Connection | None) -> Iterator[Connection]:
        if connection is None:
            with self.engine.begin() as pooled:
                yield pooled
        else:
            with connection.begin():
                yield connection

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[Connection]:
        """A transaction whose reads all see one state of the database. SQLite's BEGIN
        gives one; PostgreSQL's READ COMMITTED reads each statement anew, so a game read in
        three statements could pair a log with the ``updated_at`` of the log before it.
        REPEATABLE READ reads from one snapshot, and never refuses a transaction that only
        reads."""
        with self.engine.connect() as connection:
            if connection.dialect.name == "postgresql":
                connection.execution_options(isolation_level="REPEATABLE READ")
            with connection.begin():
                yield connection

    def listening_connection(self):
        """A DB-API connection of its own in autocommit, for PostgreSQL's LISTEN."""
        dialect = self.engine.dialect
        args, options = dialect.create_connect_args(self.engine.url)
        return dialect.loaded_dbapi.connect(*args, **options, autocommit=True)

    def dispose(self) -> None:
        """Close the pooled connections (before deleting the database file, for instance),
        and stop the listener."""
        if self._listener is not None:
            self._listener.stop()
        self.engine.dispose()
