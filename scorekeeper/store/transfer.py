"""Import of games as documents: backups, a new computer, old paper games.

An import file holds one game document or a JSON array of them, as ``exports`` writes them.
Every game is checked by replaying it before anything is written (store/documents.py); then
all of them are written in one transaction, or none. The ``id`` of a document is the game's
number where it came from: the importing instance gives its own. The command line and the
web upload both go through this module.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import (
    Column,
    Connection,
    Integer,
    MetaData,
    Table,
    and_,
    bindparam,
    exists,
    insert,
    select,
    text,
)
from sqlalchemy.exc import IntegrityError

from scorekeeper.fairness import Busy
from scorekeeper.rules.results import canonical_rules
from scorekeeper.store.counters import ResultsDelta
from scorekeeper.store.documents import GameImport, check_files
from scorekeeper.store.engine import Store, utc_now
from scorekeeper.store.games import dice_text, player_key
from scorekeeper.store.quotas import Quotas, check_games_stored, use
from scorekeeper.store.records import FINISHED
from scorekeeper.store.results import result_rows
from scorekeeper.store.schema import entries, game_players, games, players, results

# The class of PostgreSQL's advisory locks that say a household's import is under way.
IMPORT_LOCK = 0x1A7E


_STAGING = MetaData()


def _staging_table(name: str, *columns: Column) -> Table:
    return Table(f"import_{name}", _STAGING, *columns, prefixes=["TEMPORARY"])


def _copies(table: Table, *left_out: str) -> list[Column]:
    return [Column(column.name, column.type) for column in table.c if column.name not in left_out]


# A seat or a result names its player by key: their ids are known in the transaction only.
_staged_players = _staging_table("players", Column("position", Integer), *_copies(players, "id"))
# An imported game is nobody's rematch here: the game it was made after is not its number.
_staged_games = _staging_table("games", *_copies(games, "rematch_of"))
_staged_seats = _staging_table(
    "seats", *_copies(game_players, "player_id"), Column("player_key", players.c.name_key.type)
)
# An imported entry has no turn key: its turn is not on its way from any tablet.
_staged_entries = _staging_table("entries", *_copies(entries, "id", "turn_key"))
_staged_results = _staging_table(
    "results", *_copies(results, "player_id"), Column("player_key", players.c.name_key.type)
)


def _copy_in(table: Table, staged: Table, player_key: Column | None = None):
    """INSERT INTO table SELECT FROM staged, with the player's id found by key."""
    names = [column.name for column in staged.c if column is not player_key]
    query = select(*(staged.c[name] for name in names))
    if player_key is not None:
        names.append("player_id")
        query = query.add_columns(players.c.id).join(
            players,
            and_(
                players.c.household_id == bindparam("household"), players.c.name_key == player_key
            ),
        )
    return insert(table).from_select(names, query)


_NEW_PLAYERS = insert(players).from_select(
    ["household_id", "name", "name_key", "created_at"],
    select(
        _staged_players.c.household_id,
        _staged_players.c.name,
        _staged_players.c.name_key,
        _staged_players.c.created_at,
    )
    .where(
        ~exists().where(
            players.c.household_id == _staged_players.c.household_id,
            players.c.name_key == _staged_players.c.name_key,
        )
    )
    .order_by(_staged_players.c.position),
)
_PLAYER_IDS = select(players.c.name_key, players.c.id).join(
    _staged_players,
    and_(
        players.c.household_id == _staged_players.c.household_id,
        players.c.name_key == _staged_players.c.name_key,
    ),
)
_COPY_GAMES = _copy_in(games, _staged_games)
_COPY_SEATS = _copy_in(game_players, _staged_seats, _staged_seats.c.player_key)
_COPY_ENTRIES = _copy_in(entries, _staged_entries)
_COPY_RESULTS = _copy_in(results, _staged_results, _staged_results.c.player_key)


def _fill(connection: Connection, staged: Table, rows: list[tuple]) -> None:
    """Rows, tuples in the order of the table's columns, by the driver's own bulk path:
    SQLAlchemy's handling of each row's parameters takes several times the insert itself."""
    if not rows:
        return
    names = ", ".join(map(connection.dialect.identifier_preparer.quote, staged.c.keys()))
    if connection.dialect.name == "postgresql":
        # COPY: psycopg's executemany sends one statement a row, 7 s for 380,000 entries.
        with (
            connection.connection.dbapi_connection.cursor() as cursor,
            cursor.copy(f"COPY {staged.name} ({names}) FROM STDIN") as copy,
        ):
            for row in rows:
                copy.write_row(row)
    else:
        marks = ", ".join(["?"] * len(staged.c))
        connection.exec_driver_sql(f"INSERT INTO {staged.name} ({names}) VALUES ({marks})", rows)


@dataclass
class _Rows:
    """Every row an import writes, made before its transaction: each a tuple in the order
    of its staging table's columns."""

    # Each player's key, and the name they get if they are new.
    players: dict[str, str]
    games: list[tuple] = field(default_factory=list)
    seats: list[tuple] = field(default_factory=list)
    entries: list[tuple] = field(default_factory=list)
    results: list[tuple] = field(default_factory=list)
    # The results as dicts, players given by key, for the counters.
    result_dicts: list[dict[str, Any]] = field(default_factory=list)
    rules_texts: dict[str, str] = field(default_factory=dict)


def _rows(
    checked: Sequence[GameImport],
    game_ids: list[int],
    household: int,
    now: datetime,
    stored_date: Callable[[datetime | None], Any],
) -> _Rows:
    made = _Rows(players={})
    # Imported now: a game written in this database has the time it was written as its last
    # change, whatever the file says, so no kept replay of a deleted game that had the same
    # id can ever pass for it (scorekeeper/play.py).
    updated_at = stored_date(now)
    result_names = [column.name for column in _staged_results.c]
    for game_id, game in zip(game_ids, checked, strict=True):
        state = game.state
        rules = state.rules.to_dict()
        made.games.append(
            (
                game_id,
                household,
                json.dumps(rules, sort_keys=True),
                game.status,
                stored_date(game.created_at),
                updated_at,
                stored_date(game.finished_at),
                stored_date(game.started_at),
            )
        )
        keys = []
        for seat, (name, identity) in enumerate(zip(state.players, game.identities, strict=True)):
            keys.append(player_key(identity))
            made.players.setdefault(keys[-1], identity.strip())
            made.seats.append((game_id, seat, name.strip(), keys[-1]))
        written_at = stored_date(game.finished_at or game.created_at)
        made.entries += [
            (
                game_id,
                seq,
                entry.player,
                entry.column,
                entry.box,
                dice_text(entry.dice),
                state.sheets[entry.player].columns[entry.column].cells[entry.box].points,
                written_at,
                entry.throw,
                entry.throws,
            )
            for seq, entry in enumerate(state.entries)
        ]
        if game.status == FINISHED:
            rows = result_rows(game_id, household, rules, game.finished_at, keys, state)
            made.rules_texts.setdefault(rows[0]["rules_key"], canonical_rules(rules))
            made.result_dicts += rows
            finished_at = stored_date(game.finished_at)
            made.results += [
                tuple(
                    {**row, "finished_at": finished_at, "player_key": row["player_id"]}[name]
                    for name in result_names
                )
                for row in rows
            ]
    return made


def _reserve_game_ids(store: Store, count: int) -> list[int]:
    """Numbers for ``count`` new games, never given to another game: an import that fails
    after this leaves them unused, as a deleted game leaves its number."""
    if store.engine.dialect.name == "postgresql":
        with store.engine.begin() as connection:
            return sorted(
                connection.exec_driver_sql(
                    "SELECT nextval(pg_get_serial_sequence('games', 'id')) "
                    "FROM generate_series(1, %s)",
                    (count,),
                ).scalars()
            )

    def reserve(connection: Connection) -> list[int]:
        # Games have AUTOINCREMENT (migration 0006): SQLite numbers a new game after the
        # larger of the sequence's value and the largest id; raising it reserves numbers.
        connection.exec_driver_sql(
            "INSERT INTO sqlite_sequence (name, seq) SELECT 'games', 0 "
            "WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'games')"
        )
        last = connection.exec_driver_sql(
            "UPDATE sqlite_sequence SET seq = max(seq, (SELECT coalesce(max(id), 0) FROM games))"
            " + ? WHERE name = 'games' RETURNING seq",
            (count,),
        ).scalar_one()
        return list(range(last - count + 1, last + 1))

    return store.write(reserve)


def import_games(
    store: Store, checked: Sequence[GameImport], *, household: int, quotas: Quotas
) -> list[int]:
    """Write checked games into the household in one transaction; return their new ids, in
    the same order. QuotaExceeded, writing nothing, when the household would keep more
    games, or import more often, than ``quotas`` allow.

    Every row and every counter's change is made first and put in temporary tables; the
    transaction then copies them in with one statement per table, so that an import of
    12,000 games holds SQLite's write lock for about a second, not a minute.
    """
    if not checked:
        return []
    now = utc_now()
    dialect = store.engine.dialect
    # The dialect's own processing, as SQLAlchemy does it: on SQLite the type's generic one
    # writes another text ("+00:00" for ".000000"), which would not compare with the others.
    stored_date = games.c.created_at.type.dialect_impl(dialect).bind_processor(dialect)
    game_ids = _reserve_game_ids(store, len(checked))
    made = _rows(checked, game_ids, household, now, stored_date)
    delta = ResultsDelta.of(made.result_dicts, made.rules_texts, +1)
    staged = {
        _staged_players: [
            (position, household, name, key, stored_date(now))
            for position, (key, name) in enumerate(made.players.items())
        ],
        _staged_games: made.games,
        _staged_seats: made.seats,
        _staged_entries: made.entries,
        _staged_results: made.results,
    }

    def write(connection: Connection) -> None:
        # A write first: on SQLite the lock is taken before anything is read.
        connection.execute(_NEW_PLAYERS)
        player_ids = dict(connection.execute(_PLAYER_IDS).all())
        own = {"household": household}
        for statement in (_COPY_GAMES, _COPY_SEATS, _COPY_ENTRIES):
            connection.execute(statement, own)
        check_games_stored(connection, household=household, quotas=quotas, added=len(checked))
        use(connection, household=household, quota=quotas.imports, amount=1, now=now)
        counted = delta.for_players(player_ids)
        counted.open_rule_sets(connection)
        connection.execute(_COPY_RESULTS, own)
        # The rows other writers share come last (on PostgreSQL a finishing game waits for
        # them until the commit), in the order a finishing game locks them.
        counted.add_to_counters(connection)
        counted.restreak(connection)

    with store.engine.connect() as connection:
        with connection.begin():
            for table, rows in staged.items():
                table.create(connection)
                _fill(connection, table, rows)
        try:
            try:
                store.write(write, connection)
            except IntegrityError:
                # Another request created one of these players at the same moment; it
                # exists now.
                store.write(write, connection)
        finally:
            with connection.begin():
                for table in staged:
                    table.drop(connection)
    return game_ids


def import_file(
    database_url: str,
    engine_options: dict[str, Any],
    household: int,
    quotas: Quotas,
    file: str,
    content: bytes,
) -> list[int]:
    """An import as a worker process makes it (scorekeeper/workers.py): the file's games
    checked, then written into the household of the database at ``database_url``, within
    its quotas; their new ids. ImportRefused or QuotaExceeded say why nothing was, Busy
    that another import of the household is under way."""
    store = Store(database_url, **engine_options)
    try:
        with _one_import_at_a_time(store, household):
            return import_games(
                store, check_files([(file, content)]), household=household, quotas=quotas
            )
    finally:
        store.dispose()


@contextlib.contextmanager
def _one_import_at_a_time(store: Store, household: int) -> Iterator[None]:
    """Busy while another import of the household is under way, in any server process.

    Each server process runs a household's imports one at a time (its fair queue); several
    processes share PostgreSQL, where an advisory lock of the household says that one is
    under way. SQLite has one server process.
    """
    if store.engine.dialect.name != "postgresql":
        yield
        return
    key = {"kind": IMPORT_LOCK, "household": household}
    with store.engine.connect() as connection:
        if not connection.scalar(text("SELECT pg_try_advisory_lock(:kind, :household)"), key):
            raise Busy
        try:
            connection.commit()
            yield
        finally:
            connection.scalar(text("SELECT pg_advisory_unlock(:kind, :household)"), key)
            connection.commit()
