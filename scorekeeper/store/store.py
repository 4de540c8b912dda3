"""Persistence of games as ordered logs of entries, with plain SQLAlchemy Core.

Every public method is one transaction. Every write starts by updating the game's row: on
SQLite that takes the database's write lock, on PostgreSQL the row's lock, so the check of
the expected sequence number and the write that follows see the same log. The unique
(game_id, seq) constraint stays as the last guard.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar
from weakref import WeakSet

from sqlalchemy import (
    URL,
    Connection,
    Engine,
    bindparam,
    create_engine,
    delete,
    event,
    exists,
    func,
    insert,
    inspect,
    make_url,
    or_,
    select,
    text,
)
from sqlalchemy import update as sql_update
from sqlalchemy.exc import ArgumentError, IntegrityError, OperationalError

from scorekeeper.rules import GameState, Rules
from scorekeeper.store.changes import (
    GameChanges,
    GameKey,
    mark_changed,
    take_changed,
    take_revoked,
)
from scorekeeper.store.errors import (
    GameNotFound,
    InvalidPlayers,
    NothingToUndo,
    StaleSheet,
)
from scorekeeper.store.migrations import alembic_config, head_revision
from scorekeeper.store.paging import By, page_keys
from scorekeeper.store.quotas import NO_QUOTAS, Quotas, check_games_stored
from scorekeeper.store.records import (
    FINISHED,
    IN_PROGRESS,
    MAX_NAME_LENGTH,
    EntryRecord,
    GameRecord,
    GameSummary,
    GameVersion,
)
from scorekeeper.store.results import backfill_results, forget_results, record_results
from scorekeeper.store.schema import entries, game_players, games, households, players

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

# The key of the advisory lock that one process at a time holds to migrate PostgreSQL.
MIGRATION_LOCK = 0x5C0BE4EE

# The household of an installation at home: the one that exists from the first start. No
# function defaults to it (tests/test_household_argument.py): what a household owns is
# reached by passing its household by keyword, the home one like any other, so that a
# forgotten one is a TypeError rather than a write into this household.
HOME_HOUSEHOLD = 1
HOME_NAME = "Maison"

# The pip extra that brings each backend's driver.
DRIVER_EXTRAS = {"postgresql": "postgresql"}

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


def _on_sqlite_begin(connection: Connection) -> None:
    connection.exec_driver_sql("BEGIN")


def _schema_revision(connection: Connection) -> str | None:
    """The migration the database is at, None for a new database."""
    if not inspect(connection).has_table("alembic_version"):
        return None
    return connection.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()


def _ensure_home_household(connection: Connection) -> None:
    """Every database has a household from the first start: the home one."""
    if connection.scalar(select(func.count()).select_from(households)) == 0:
        connection.execute(insert(households).values(name=HOME_NAME, created_at=utc_now()))


def player_key(name: str) -> str:
    """The identity of a player's name: the same name ignoring case is the same player."""
    return name.strip().casefold()


def _clean_names(names: Sequence[str]) -> list[str]:
    if not names:
        raise InvalidPlayers("a game needs at least one player")
    cleaned = [name.strip() for name in names]
    for name in cleaned:
        if not name:
            raise InvalidPlayers("a player's name cannot be blank")
        if len(name) > MAX_NAME_LENGTH:
            raise InvalidPlayers(f"a player's name has at most {MAX_NAME_LENGTH} characters")
    keys = [player_key(name) for name in cleaned]
    if len(set(keys)) != len(keys):
        raise InvalidPlayers("the same player cannot sit twice in one game")
    return cleaned


def dice_text(dice: Iterable[int]) -> str:
    """Dice as the entries table stores them: one digit a die, in throw order."""
    dice = tuple(dice)
    if not all(isinstance(die, int) and 1 <= die <= 6 for die in dice):
        raise ValueError(f"dice must be integers from 1 to 6, got {dice!r}")
    return "".join(str(die) for die in dice)


def _rematch(connection: Connection, game_id: int, household: int) -> int | None:
    return connection.scalar(
        select(games.c.id).where(games.c.household_id == household, games.c.rematch_of == game_id)
    )


def _entry_record(row) -> EntryRecord:
    return EntryRecord(
        seq=row.seq,
        seat=row.seat,
        column=row.column,
        box=row.box,
        dice=tuple(int(digit) for digit in row.dice),
        score=row.score,
    )


# The number of entries of the game of the row, in a query on `games`.
_ENTRY_COUNT = (
    select(func.count()).where(entries.c.game_id == games.c.id).correlate(games).scalar_subquery()
)


# A game started and never played (names typed, then nobody threw) is left out of the lists
# of games once this long has passed since: kept, not abandoned, so that nothing is written
# behind anyone's back; it is still at its address, and its first entry lists it again.
UNPLAYED_LISTED_FOR = timedelta(days=1)


def listed(now: datetime):
    """The condition on ``games`` of the games that lists show: played, or recent."""
    return or_(
        games.c.updated_at >= now - UNPLAYED_LISTED_FOR,
        exists().where(entries.c.game_id == games.c.id),
    )


def game_summaries(connection: Connection, ids: list[int]) -> list[GameSummary]:
    """What lists show about these games, in the order of ``ids``."""
    rows = connection.execute(
        select(
            games.c.id,
            games.c.created_at,
            games.c.updated_at,
            games.c.status,
            games.c.rules,
            _ENTRY_COUNT.label("entry_count"),
        ).where(games.c.id.in_(ids))
    ).all()
    seats = connection.execute(
        select(game_players.c.game_id, game_players.c.name)
        .where(game_players.c.game_id.in_(ids))
        .order_by(game_players.c.game_id, game_players.c.seat)
    ).all()
    names: dict[int, list[str]] = {}
    for seat in seats:
        names.setdefault(seat.game_id, []).append(seat.name)
    by_id = {row.id: row for row in rows}
    return [
        GameSummary(
            id=row.id,
            players=tuple(names.get(row.id, ())),
            entry_count=row.entry_count,
            created_at=row.created_at,
            updated_at=row.updated_at,
            status=row.status,
            turns_per_player=Rules.from_dict(json.loads(row.rules)).turns_per_player,
        )
        for row in (by_id[game_id] for game_id in ids if game_id in by_id)
    ]


# The statements of every request (a game's version) and of every turn (load, write), built
# once with a bound game id: a statement built at each call costs SQLAlchemy more to build
# and key than SQLite takes to run it (0.5 ms against 0.2 ms for the version).
# A game is found only in its own household: another household's id is no game at all.
_GAME_ID = bindparam("game_id")
_OWN_GAME = (games.c.id == _GAME_ID) & (games.c.household_id == bindparam("household"))
_VERSION = select(_ENTRY_COUNT, games.c.status, games.c.updated_at).where(_OWN_GAME)
_GAME = select(games).where(_OWN_GAME)
_SEAT_NAMES = (
    select(game_players.c.name)
    .where(game_players.c.game_id == _GAME_ID)
    .order_by(game_players.c.seat)
)
_LOG = select(entries).where(entries.c.game_id == _GAME_ID).order_by(entries.c.seq)
_LOG_LENGTH = select(func.count()).select_from(entries).where(entries.c.game_id == _GAME_ID)
_TOUCH_GAME = sql_update(games).where(_OWN_GAME)
# The same, only if the game has not changed since the caller read it.
_TOUCH_GAME_UNCHANGED = _TOUCH_GAME.where(games.c.updated_at == bindparam("seen_at"))
_ADD_ENTRY = insert(entries)


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
        # Set by the app of a hosted server: what each household may keep and ask for.
        self.quotas: Quotas = NO_QUOTAS
        # PostgreSQL locks rows, and its writers really run at the same time.
        self._writers: threading.Lock | None = None
        if self.engine.dialect.name == "sqlite":
            event.listen(self.engine, "connect", _on_sqlite_connect)
            event.listen(self.engine, "begin", _on_sqlite_begin)
            self._writers = threading.Lock()
        # Set by the app of a server: the open sheets of this process, woken by the writes.
        self.changes: GameChanges | None = None
        # Whether this process has seen the schema at the newest migration.
        self.migrated = False
        self._migrating = threading.Lock()

    def migrate_once(self) -> None:
        """Migrate unless this process already has: what every request asks first, so that a
        process started while the database was away serves as soon as it is back."""
        if self.migrated:
            return
        with self._migrating:
            if not self.migrated:
                self.migrate()

    def migrate(self) -> None:
        """Bring the schema to the newest migration; a no-op when it is already there.

        On PostgreSQL any number of processes may start at once: one migrates under an
        advisory lock, the others wait for its commit and find nothing left to do. Every
        database then has a household, the home one, from the first start.
        """
        with self.engine.begin() as connection:
            if _schema_revision(connection) == head_revision():
                # Every start but the first: Alembic is not even imported.
                _ensure_home_household(connection)
                backfill_results(connection)
                self.migrated = True
                return
        from alembic import command

        cfg = alembic_config()
        with self.engine.connect() as connection:
            sqlite = connection.dialect.name == "sqlite"
            if sqlite:
                # SQLite changes a table by rebuilding it: with foreign keys on, dropping the
                # old games table would delete every entry (ON DELETE CASCADE). The pragma
                # only works outside a transaction, hence on the driver's connection.
                connection.connection.driver_connection.execute("PRAGMA foreign_keys = OFF")
            try:
                with connection.begin():
                    if connection.dialect.name == "postgresql":
                        # A migration takes the time it needs, whatever bounds the requests.
                        connection.exec_driver_sql("SET LOCAL lock_timeout = 0")
                        connection.exec_driver_sql("SET LOCAL statement_timeout = 0")
                        connection.execute(
                            text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK}
                        )
                    cfg.attributes["connection"] = connection
                    command.upgrade(cfg, "head")
                    if sqlite and connection.exec_driver_sql("PRAGMA foreign_key_check").first():
                        raise RuntimeError(
                            "a migration left rows pointing nowhere; nothing was changed"
                        )
                    _ensure_home_household(connection)
                    backfill_results(connection)
            finally:
                if sqlite:
                    connection.connection.driver_connection.execute("PRAGMA foreign_keys = ON")
        self.migrated = True

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
                    if connection is None:
                        with self.engine.begin() as pooled:
                            take_changed(pooled)  # marks left by a transaction that failed
                            take_revoked(pooled)
                            done = work(pooled)
                            moved = self._watched_versions(pooled)
                            revoked = take_revoked(pooled)
                    else:
                        with connection.begin():
                            take_changed(connection)
                            take_revoked(connection)
                            done = work(connection)
                            moved = self._watched_versions(connection)
                            revoked = take_revoked(connection)
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
        if moved:
            self.changes.moved(moved)
        if revoked and self.changes is not None:
            # This process's streams at once; on PostgreSQL the others hear the NOTIFY.
            self.changes.revoked(revoked)
        return done

    def _watched_versions(self, connection: Connection) -> dict[GameKey, GameVersion | None]:
        """The versions the games this transaction changed will have once it commits, for
        those an open sheet of this process watches (SQLite). On PostgreSQL the
        transaction's NOTIFY reaches every process, this one included, through its listener."""
        changed = take_changed(connection)
        if not changed or self.changes is None or self.engine.dialect.name != "sqlite":
            return {}
        return {
            key: self._version_on(connection, key[1], household=key[0])
            for key in changed
            if self.changes.watches(key)
        }

    def watch_changes(self, limit: int) -> GameChanges:
        """Let up to `limit` open sheets of this process watch their games (a server's)."""
        listen = None
        if self.engine.dialect.name == "postgresql":
            dialect = self.engine.dialect
            args, options = dialect.create_connect_args(self.engine.url)

            def listen():
                return dialect.loaded_dbapi.connect(*args, **options, autocommit=True)

        self.changes = GameChanges(self.game_version, limit, listen)
        return self.changes

    def dispose(self) -> None:
        """Close the pooled connections (before deleting the database file, for instance),
        and end the watchers and their listener."""
        if self.changes is not None:
            self.changes.stop()
        self.engine.dispose()

    def create_game(
        self,
        rules: dict[str, Any],
        names: Sequence[str],
        *,
        household: int,
        rematch_of: int | None = None,
    ) -> int:
        """Start a game with these players in seat order; return its id.

        Each name finds the player who already has it (ignoring case) or makes a new one.
        With ``rematch_of``, the game is the Revanche of that one, made once: when it exists
        already (a second tap, another tablet), its id is returned and nothing is made.
        Raises InvalidPlayers for no name, a blank or too long name, or a name given twice;
        QuotaExceeded when the household keeps as many games as its quota allows.
        """
        cleaned = _clean_names(names)
        rules_text = json.dumps(rules, sort_keys=True)
        try:
            return self._create_game(rules_text, cleaned, household, rematch_of)
        except IntegrityError:
            # Another game created one of these players, or this rematch, at the same
            # moment: it exists now.
            return self._create_game(rules_text, cleaned, household, rematch_of)

    def rematch(self, game_id: int, *, household: int) -> int | None:
        """The id of the household's game made as the Revanche of ``game_id``, if any."""
        with self.engine.begin() as connection:
            return _rematch(connection, game_id, household)

    def _create_game(
        self, rules_text: str, names: list[str], household: int, rematch_of: int | None
    ) -> int:
        now = utc_now()

        def create(connection: Connection) -> int:
            if rematch_of is not None and (made := _rematch(connection, rematch_of, household)):
                return made
            game_id = connection.execute(
                insert(games).values(
                    household_id=household,
                    rules=rules_text,
                    status=IN_PROGRESS,
                    created_at=now,
                    updated_at=now,
                    rematch_of=rematch_of,
                )
            ).inserted_primary_key[0]
            for seat, name in enumerate(names):
                connection.execute(
                    insert(game_players).values(
                        game_id=game_id,
                        seat=seat,
                        player_id=self._find_or_create_player(connection, name, now, household),
                        name=name,
                    )
                )
            check_games_stored(connection, household=household, quotas=self.quotas, added=1)
            return game_id

        return self.write(create)

    @staticmethod
    def _find_or_create_player(
        connection: Connection, name: str, now: datetime, household: int
    ) -> int:
        key = player_key(name)
        player_id = connection.scalar(
            select(players.c.id).where(
                players.c.household_id == household, players.c.name_key == key
            )
        )
        if player_id is not None:
            return player_id
        return connection.execute(
            insert(players).values(household_id=household, name=name, name_key=key, created_at=now)
        ).inserted_primary_key[0]

    def load_game(self, game_id: int, *, household: int) -> GameRecord | None:
        """The whole game, or None if the household has no such game."""
        key = {"game_id": game_id, "household": household}
        with self._one_state() as connection:
            game = connection.execute(_GAME, key).one_or_none()
            if game is None:
                return None
            names = connection.scalars(_SEAT_NAMES, key).all()
            rows = connection.execute(_LOG, key).all()
        return GameRecord(
            id=game.id,
            rules=json.loads(game.rules),
            players=tuple(names),
            entries=tuple(_entry_record(row) for row in rows),
            status=game.status,
            created_at=game.created_at,
            updated_at=game.updated_at,
            finished_at=game.finished_at,
            started_at=game.started_at,
        )

    @contextlib.contextmanager
    def _one_state(self) -> Iterator[Connection]:
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

    def add_entry(
        self,
        game_id: int,
        expected_seq: int,
        entry: EntryRecord,
        finished: bool,
        seen_at: datetime | None = None,
        final_state: GameState | None = None,
        *,
        household: int,
    ) -> datetime:
        """Append `entry` to the log if the log still holds exactly `expected_seq` entries;
        return the game's new ``updated_at``.

        `finished` marks the game finished (the caller's replay knows when the last box
        is filled). `seen_at`, the ``updated_at`` of the game the caller replayed, also
        requires that nothing changed since: an undo then another entry from another device
        leaves the count as it was, not the log. `final_state`, the caller's replay of the
        log with this entry, spares the finished game's results a second replay. Raises
        StaleSheet, changing nothing, when the log moved on meanwhile.
        """
        if entry.seq != expected_seq:
            raise StaleSheet(game_id, expected_seq, entry.seq)
        dice = dice_text(entry.dice)
        now = utc_now()
        game_values: dict[str, Any] = {"updated_at": now}
        if finished:
            game_values.update(status=FINISHED, finished_at=now)
        if expected_seq == 0:
            game_values["started_at"] = now

        def append(connection: Connection) -> None:
            if not self._lock_game(connection, game_id, household, game_values, seen_at):
                raise StaleSheet(game_id, expected_seq)
            count = self._entry_count(connection, game_id)
            if count != expected_seq:
                raise StaleSheet(game_id, expected_seq, count)
            connection.execute(
                _ADD_ENTRY,
                {
                    "game_id": game_id,
                    "seq": entry.seq,
                    "seat": entry.seat,
                    "column": entry.column,
                    "box": entry.box,
                    "dice": dice,
                    "score": entry.score,
                    "created_at": now,
                },
            )
            if finished:
                # The game's household: _lock_game found the game in it.
                record_results(connection, game_id, now, final_state, household=household)

        try:
            self.write(append)
        except IntegrityError as error:
            raise StaleSheet(game_id, expected_seq) from error
        return now

    def undo_entry(
        self, game_id: int, expected_seq: int, seen_at: datetime | None = None, *, household: int
    ) -> EntryRecord:
        """Delete the last entry if the log holds exactly `expected_seq` entries; return it.

        The game goes back in progress. Raises StaleSheet, changing nothing, when the log
        moved on meanwhile (an undo from a sheet that showed entries, on an emptied log,
        included), and NothingToUndo when the client saw an empty log and it still is.
        `seen_at`, the ``updated_at`` of the game whose last entry the player confirmed,
        also requires that nothing changed since: an undo then another entry leave the
        count as it was, but the entry to remove is another one.
        """

        def take_back(connection: Connection) -> EntryRecord:
            if not self._lock_game(
                connection,
                game_id,
                household,
                {"updated_at": utc_now(), "status": IN_PROGRESS, "finished_at": None},
                seen_at,
            ):
                raise StaleSheet(game_id, expected_seq)
            count = self._entry_count(connection, game_id)
            if count != expected_seq:
                raise StaleSheet(game_id, expected_seq, count)
            if count == 0:
                raise NothingToUndo(game_id)
            if count == 1:  # the first entry taken back: the game is not started any more
                connection.execute(
                    _TOUCH_GAME, {"game_id": game_id, "household": household, "started_at": None}
                )
            last = connection.execute(
                select(entries)
                .where(entries.c.game_id == game_id)
                .order_by(entries.c.seq.desc())
                .limit(1)
            ).one()
            forget_results(connection, game_id)
            connection.execute(delete(entries).where(entries.c.id == last.id))
            return _entry_record(last)

        return self.write(take_back)

    def game_version(self, game_id: int, *, household: int) -> GameVersion | None:
        """The version of a game, None if the household has no such game: one small query,
        asked before every replay kept in memory is used, by each stream of changes that
        opens, and by the sheets that poll."""
        with self.engine.begin() as connection:
            return self._version_on(connection, game_id, household=household)

    @staticmethod
    def _version_on(connection: Connection, game_id: int, *, household: int) -> GameVersion | None:
        row = connection.execute(
            _VERSION, {"game_id": game_id, "household": household}
        ).one_or_none()
        return None if row is None else GameVersion(*row)

    def games_in_progress(
        self,
        *,
        household: int,
        offset: int = 0,
        limit: int | None = None,
        count: int | None = None,
    ) -> list[GameSummary]:
        """The household's games still being played, the most recently played first:
        ``limit`` of them from ``offset``, or all. Games never played are left out once
        a day has passed (``listed``). With ``count``, how many there are, a page near the
        end is read from there (store/paging.py)."""
        with self.engine.begin() as connection:
            # The page's ids first: entries are counted and seats read for them only, however
            # many games are in progress.
            page = page_keys(
                connection,
                select(games.c.id).where(
                    games.c.household_id == household,
                    games.c.status == IN_PROGRESS,
                    listed(utc_now()),
                ),
                (By(games.c.updated_at, descending=True), By(games.c.id, descending=True)),
                offset,
                limit,
                count,
            )
            return game_summaries(connection, [row.id for row in page])

    def count_games_in_progress(self, *, household: int) -> int:
        with self.engine.begin() as connection:
            return connection.scalar(
                select(func.count())
                .select_from(games)
                .where(
                    games.c.household_id == household,
                    games.c.status == IN_PROGRESS,
                    listed(utc_now()),
                )
            )

    @staticmethod
    def _lock_game(
        connection: Connection,
        game_id: int,
        household: int,
        values: dict[str, Any],
        seen_at: datetime | None = None,
    ) -> bool:
        """Write `values` to the game's row, which takes the database's write lock; with
        `seen_at`, only if the game's ``updated_at`` still is that. False when it is not;
        GameNotFound when there is no such game."""
        key = {"game_id": game_id, "household": household}
        if seen_at is None:
            result = connection.execute(_TOUCH_GAME, {**key, **values})
        else:
            result = connection.execute(
                _TOUCH_GAME_UNCHANGED, {**key, "seen_at": seen_at, **values}
            )
        if result.rowcount:
            mark_changed(connection, game_id, household=household)
            return True
        if seen_at is None or connection.execute(_GAME, key).first() is None:
            raise GameNotFound(game_id)
        return False

    @staticmethod
    def _entry_count(connection: Connection, game_id: int) -> int:
        return connection.scalar(_LOG_LENGTH, {"game_id": game_id})
