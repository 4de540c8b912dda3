"""Import and export of games as documents: backups, a new computer, old paper games.

An export is a JSON array of game documents: the ``replay`` format (``rules``, ``players``,
``entries``) plus ``id``, ``status``, ``created_at``, ``started_at`` (when its first entry was
written, None where that is not known) and ``finished_at``, and ``identities``
when a seat's lasting player is now called otherwise than the name written on the sheet (after
a rename or a merge), so that an import gives each game to the same players again.

An import file holds one document or such an array. Every game is checked by replaying it
before anything is written; then all of them are written in one transaction, or none. The
``id`` of a document is the game's number where it came from: the importing instance gives
its own. The command line and the web upload both go through this module.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
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
from scorekeeper.rules import (
    GameState,
    IllegalEntry,
    RuleError,
    Rules,
    check_players,
    read_document,
)
from scorekeeper.rules.document import read_json
from scorekeeper.rules.labels import N_
from scorekeeper.store.engine import Store, utc_now
from scorekeeper.store.errors import GameNotFound, StoreError
from scorekeeper.store.games import dice_text, player_key
from scorekeeper.store.quotas import Quotas, check_games_stored, use
from scorekeeper.store.records import FINISHED, GAME_STATUSES, IN_PROGRESS
from scorekeeper.store.results import ResultsDelta, canonical_rules, result_rows
from scorekeeper.store.schema import entries, game_players, games, players, results

EXPORT_BATCH = 500
# The class of PostgreSQL's advisory locks that say a household's import is under way.
IMPORT_LOCK = 0x1A7E


def _identity(text: str) -> str:
    return text


@dataclass(frozen=True)
class Problem:
    """Why one document of one file cannot be imported."""

    file: str
    # Position in the file's array, from 1; None when the file holds a single document.
    document: int | None
    error: RuleError

    @property
    def entry(self) -> int | None:
        return self.error.number if isinstance(self.error, IllegalEntry) else None

    def render(self, translate: Callable[[str], str] = _identity) -> str:
        """The problem in one sentence: the file, the game, the entry, then what is wrong."""
        where = [self.file]
        if self.document is not None:
            where.append(translate(N_("partie {number}")).format(number=self.document))
        if self.entry is not None:
            where.append(translate(N_("entrée {number}")).format(number=self.entry))
        # One message, not a join: the space before the colon is French typography.
        return translate(N_("{where} : {problem}")).format(
            where=", ".join(where), problem=self.error.render(translate)
        )


class ImportRefused(StoreError):
    """At least one document is not a legal game: nothing was imported."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        super().__init__("; ".join(problem.render() for problem in problems))
        self.problems = tuple(problems)

    def __reduce__(self):
        # Raised in an import's worker process, read in the server's.
        return ImportRefused, (self.problems,)


@dataclass(frozen=True)
class GameImport:
    """A checked game, ready to be written."""

    file: str
    document: int | None
    state: GameState
    identities: tuple[str, ...]
    status: str
    created_at: datetime
    finished_at: datetime | None
    started_at: datetime | None = None


# The dates a game may carry: no family played Yams before 1900, and a later year than
# 9998 leaves no room for a time zone's offset within datetime's range.
FIRST_DATE = datetime(1900, 1, 1, tzinfo=UTC)
LAST_DATE = datetime(9998, 12, 31, tzinfo=UTC)


def _date(data: dict, name: str) -> datetime | None:
    value = data.get(name)
    if value is None:
        return None
    try:
        if not isinstance(value, str):
            raise ValueError
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise RuleError(
            N_(
                "« {name} » est une date ISO 8601 (par exemple "
                "2024-07-14T20:30:00+02:00), pas « {value} »."
            ),
            name=name,
            value=value,
        ) from None
    # A date typed without its offset, or a bare day, is taken as UTC.
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    if not FIRST_DATE <= moment <= LAST_DATE:
        # Outside them, the shift to UTC overflows datetime (0001-01-01T00:00:00+01:00).
        raise RuleError(
            N_("« {name} » : la date {value} n'est pas entre l'an {first} et l'an {last}."),
            name=name,
            value=value,
            first=FIRST_DATE.year,
            last=LAST_DATE.year,
        )
    return moment.astimezone(UTC)


def _status(data: dict, state: GameState) -> str:
    status = data.get("status")
    if status is None:
        return FINISHED if state.is_over else IN_PROGRESS
    if not isinstance(status, str) or status not in GAME_STATUSES:
        raise RuleError(
            N_("« status » vaut in_progress, finished ou abandoned, pas « {value} »."), value=status
        )
    if status == FINISHED and not state.is_over:
        raise RuleError(
            N_("« status » dit finished, mais la partie n'a que {filled} entrées sur {needed}."),
            filled=len(state.entries),
            needed=len(state.players) * state.rules.turns_per_player,
        )
    if status != FINISHED and state.is_over:
        raise RuleError(
            N_(
                "« status » dit {value}, mais toutes les cases sont remplies : "
                "la partie est terminée (finished)."
            ),
            value=status,
        )
    return status


def _identities(data: dict, names: tuple[str, ...]) -> tuple[str, ...]:
    identities = data.get("identities")
    if identities is None:
        return names
    if not isinstance(identities, list) or len(identities) != len(names):
        raise RuleError(
            N_("« identities » donne le joueur de chaque place : une liste de {count} noms."),
            count=len(names),
        )
    check_players(identities)
    return tuple(identities)


def check_document(data: object, file: str, document: int | None, now: datetime) -> GameImport:
    """A game document checked by its replay; RuleError (IllegalEntry) says what is wrong."""
    state = read_document(data).replay()
    status = _status(data, state)
    created_at, finished_at = _date(data, "created_at"), _date(data, "finished_at")
    started_at = _date(data, "started_at")
    if finished_at is not None and status != FINISHED:
        raise RuleError(N_("« finished_at » ne va qu'avec une partie terminée."))
    if started_at is not None and not state.entries:
        raise RuleError(N_("« started_at » ne va qu'avec une partie commencée."))
    if status == FINISHED:
        finished_at = finished_at or created_at or started_at or now
    created_at = created_at or started_at or finished_at or now
    if finished_at is not None and finished_at < created_at:
        raise RuleError(N_("« finished_at » précède « created_at »."))
    if started_at is not None and started_at < created_at:
        raise RuleError(N_("« started_at » précède « created_at »."))
    if started_at is not None and finished_at is not None and finished_at < started_at:
        raise RuleError(N_("« finished_at » précède « started_at »."))
    return GameImport(
        file,
        document,
        state,
        _identities(data, state.players),
        status,
        created_at,
        finished_at,
        started_at,
    )


def _documents(content: bytes | str) -> list[object] | dict:
    try:
        text = content.decode("utf-8-sig") if isinstance(content, bytes) else content
    except UnicodeDecodeError:
        raise RuleError(
            N_("Ce fichier n'est pas du texte UTF-8 : est-ce bien un export du Yams ?")
        ) from None
    return read_json(text)


def check_files(files: Iterable[tuple[str, bytes | str]]) -> list[GameImport]:
    """Every game of every file, checked; ImportRefused lists every problem found."""
    now = utc_now()
    checked: list[GameImport] = []
    problems: list[Problem] = []
    for file, content in files:
        try:
            data = _documents(content)
            if isinstance(data, list) and not data:
                raise RuleError(N_("Ce fichier ne contient aucune partie."))
            if not isinstance(data, (list, dict)):
                raise RuleError(
                    N_(
                        "Un fichier d'import contient une partie (un objet JSON) ou "
                        "une liste de parties, comme un export."
                    )
                )
        except RuleError as error:
            problems.append(Problem(file, None, error))
            continue
        numbered = enumerate(data, start=1) if isinstance(data, list) else [(None, data)]
        for number, document in numbered:
            try:
                checked.append(check_document(document, file, number, now))
            except RuleError as error:
                problems.append(Problem(file, number, error))
    if problems:
        raise ImportRefused(problems)
    return checked


# Staging: one temporary table per table an import writes, on the import's own connection.
# They are filled before the transaction that writes (on SQLite a temporary table is another
# database: filling it takes no lock on the games'), which then copies them in with one
# INSERT ... SELECT each, run by the database alone.
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
_staged_entries = _staging_table("entries", *_copies(entries, "id"))
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
    # id can ever pass for it (store/play.py).
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


def _document(game, seats: list, log: list) -> dict[str, Any]:
    # The same shape as rules.write_document, built from the stored log without a replay:
    # an export of a hundred thousand games stays quick.
    rules = Rules.from_dict(json.loads(game.rules))
    names = [seat.name for seat in seats]
    single_column = len(rules.columns) == 1
    written = []
    for entry in log:
        item = {
            "player": names[entry.seat],
            "box": entry.box,
            "dice": [int(die) for die in entry.dice],
        }
        if not single_column:
            item["column"] = entry.column
        written.append(item)
    document = {
        "id": game.id,
        "status": game.status,
        "created_at": game.created_at.isoformat(),
        "started_at": game.started_at.isoformat() if game.started_at else None,
        "finished_at": game.finished_at.isoformat() if game.finished_at else None,
        "rules": rules.to_dict(),
        "players": names,
        "entries": written,
    }
    identities = [seat.identity for seat in seats]
    if identities != names:
        document["identities"] = identities
    return document


def export_documents(
    store: Store, game_id: int | None = None, *, household: int
) -> Iterator[dict[str, Any]]:
    """The documents of every game of the household (or of one), by id; GameNotFound for an
    id the household has not."""
    with store.engine.connect() as connection:
        query = select(games.c.id).where(games.c.household_id == household).order_by(games.c.id)
        if game_id is not None:
            query = query.where(games.c.id == game_id)
        ids = list(connection.scalars(query))
    if game_id is not None and not ids:
        raise GameNotFound(game_id)
    for start in range(0, len(ids), EXPORT_BATCH):
        yield from _export_batch(store, ids[start : start + EXPORT_BATCH])


def _export_batch(store: Store, ids: list[int]) -> list[dict[str, Any]]:
    with store.engine.begin() as connection:
        rows = connection.execute(select(games).where(games.c.id.in_(ids))).all()
        seats: dict[int, list] = {game_id: [] for game_id in ids}
        for seat in connection.execute(
            select(game_players.c.game_id, game_players.c.name, players.c.name.label("identity"))
            .join(players, players.c.id == game_players.c.player_id)
            .where(game_players.c.game_id.in_(ids))
            .order_by(game_players.c.game_id, game_players.c.seat)
        ):
            seats[seat.game_id].append(seat)
        logs: dict[int, list] = {game_id: [] for game_id in ids}
        for entry in connection.execute(
            select(
                entries.c.game_id, entries.c.seat, entries.c.column, entries.c.box, entries.c.dice
            )
            .where(entries.c.game_id.in_(ids))
            .order_by(entries.c.game_id, entries.c.seq)
        ):
            logs[entry.game_id].append(entry)
    # A game deleted between the listing of ids and this batch is simply not exported.
    return [
        _document(game, seats[game.id], logs[game.id])
        for game in sorted(rows, key=lambda row: row.id)
    ]


def json_array(documents: Iterable[dict[str, Any]]) -> Iterator[str]:
    """A JSON array written piece by piece, one document a line."""
    first = True
    for document in documents:
        yield ("[\n" if first else ",\n") + json.dumps(document, ensure_ascii=False)
        first = False
    yield "[]\n" if first else "\n]\n"
