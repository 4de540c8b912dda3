"""Import and export of games as documents: backups, a new computer, old paper games.

An export is a JSON array of game documents: the ``replay`` format (``rules``, ``players``,
``entries``) plus ``id``, ``status``, ``created_at`` and ``finished_at``, and ``identities``
when a seat's lasting player is now called otherwise than the name written on the sheet (after
a rename or a merge), so that an import gives each game to the same players again.

An import file holds one document or such an array. Every game is checked by replaying it
before anything is written; then all of them are written in one transaction, or none. The
``id`` of a document is the game's number where it came from: the importing instance gives
its own. The command line and the web upload both go through this module.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, Dialect, Table, insert, select
from sqlalchemy.exc import IntegrityError

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
from scorekeeper.store.errors import GameNotFound, StoreError
from scorekeeper.store.records import FINISHED, GAME_STATUSES, IN_PROGRESS
from scorekeeper.store.results import canonical_rules, insert_results, result_rows
from scorekeeper.store.schema import entries, game_players, games, players
from scorekeeper.store.store import HOME_HOUSEHOLD, Store, _dice_text, _now, player_key

EXPORT_BATCH = 500
# Keys looked up in one query: well below SQLite's limit on bound parameters.
LOOKUP_BATCH = 500


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
            where=", ".join(where), problem=self.error.render(translate))


class ImportRefused(StoreError):
    """At least one document is not a legal game: nothing was imported."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        super().__init__("; ".join(problem.render() for problem in problems))
        self.problems = tuple(problems)


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
        raise RuleError(N_("« {name} » est une date ISO 8601 (par exemple "
                           "2024-07-14T20:30:00+02:00), pas « {value} »."),
                        name=name, value=value) from None
    # A date typed without its offset, or a bare day, is taken as UTC.
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    if not FIRST_DATE <= moment <= LAST_DATE:
        # Outside them, the shift to UTC overflows datetime (0001-01-01T00:00:00+01:00).
        raise RuleError(N_("« {name} » : la date {value} n'est pas entre l'an {first} et "
                           "l'an {last}."), name=name, value=value,
                        first=FIRST_DATE.year, last=LAST_DATE.year)
    return moment.astimezone(UTC)


def _status(data: dict, state: GameState) -> str:
    status = data.get("status")
    if status is None:
        return FINISHED if state.is_over else IN_PROGRESS
    if not isinstance(status, str) or status not in GAME_STATUSES:
        raise RuleError(N_("« status » vaut in_progress, finished ou abandoned, "
                           "pas « {value} »."), value=status)
    if status == FINISHED and not state.is_over:
        raise RuleError(N_("« status » dit finished, mais la partie n'a que {filled} entrées "
                           "sur {needed}."), filled=len(state.entries),
                        needed=len(state.players) * state.rules.turns_per_player)
    if status != FINISHED and state.is_over:
        raise RuleError(N_("« status » dit {value}, mais toutes les cases sont remplies : "
                           "la partie est terminée (finished)."), value=status)
    return status


def _identities(data: dict, names: tuple[str, ...]) -> tuple[str, ...]:
    identities = data.get("identities")
    if identities is None:
        return names
    if not isinstance(identities, list) or len(identities) != len(names):
        raise RuleError(N_("« identities » donne le joueur de chaque place : une liste de "
                           "{count} noms."), count=len(names))
    check_players(identities)
    return tuple(identities)


def check_document(data: object, file: str, document: int | None, now: datetime) -> GameImport:
    """A game document checked by its replay; RuleError (IllegalEntry) says what is wrong."""
    state = read_document(data).replay()
    status = _status(data, state)
    created_at, finished_at = _date(data, "created_at"), _date(data, "finished_at")
    if finished_at is not None and status != FINISHED:
        raise RuleError(N_("« finished_at » ne va qu'avec une partie terminée."))
    if status == FINISHED:
        finished_at = finished_at or created_at or now
        created_at = created_at or finished_at
    created_at = created_at or now
    if finished_at is not None and finished_at < created_at:
        raise RuleError(N_("« finished_at » précède « created_at »."))
    return GameImport(file, document, state, _identities(data, state.players), status,
                      created_at, finished_at)


def _documents(content: bytes | str) -> list[object] | dict:
    try:
        text = content.decode("utf-8-sig") if isinstance(content, bytes) else content
    except UnicodeDecodeError:
        raise RuleError(N_("Ce fichier n'est pas du texte UTF-8 : est-ce bien un export "
                           "du Yams ?")) from None
    return read_json(text)


def check_files(files: Iterable[tuple[str, bytes | str]]) -> list[GameImport]:
    """Every game of every file, checked; ImportRefused lists every problem found."""
    now = _now()
    checked: list[GameImport] = []
    problems: list[Problem] = []
    for file, content in files:
        try:
            data = _documents(content)
            if isinstance(data, list) and not data:
                raise RuleError(N_("Ce fichier ne contient aucune partie."))
            if not isinstance(data, (list, dict)):
                raise RuleError(N_("Un fichier d'import contient une partie (un objet JSON) ou "
                                   "une liste de parties, comme un export."))
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


class _BulkInsert:
    """An INSERT run as one executemany of the driver, its rows given as tuples in the order
    of ``names``: SQLAlchemy's handling of each row's parameters takes several times the
    insert itself, and the rows can be made before the transaction."""

    def __init__(self, dialect: Dialect, table: Table, names: Sequence[str]) -> None:
        quote = dialect.identifier_preparer.quote
        # sqlite3 takes ?, psycopg %s: the two engines of the store.
        mark = "?" if dialect.paramstyle == "qmark" else "%s"
        self.sql = (f"INSERT INTO {quote(table.name)} ({', '.join(map(quote, names))}) "
                    f"VALUES ({', '.join([mark] * len(names))})")
        self.table = table
        self.dialect = dialect

    def value(self, name: str, value: Any) -> Any:
        """``value`` as the column ``name`` stores it (a UTC datetime), as SQLAlchemy would
        convert it."""
        process = self.table.c[name].type.bind_processor(self.dialect)
        return value if process is None else process(value)

    def execute(self, connection: Connection, rows: list[tuple]) -> None:
        if rows:
            connection.exec_driver_sql(self.sql, rows)


@dataclass(frozen=True)
class _Prepared:
    """A checked game's rows, made before the transaction, each missing only the game's id
    (first), and in results its players' ids, known once the game is inserted."""

    game: dict[str, Any]
    identities: list[str]
    seats: list[tuple]
    entries: list[tuple]
    results: list[dict[str, Any]]
    rules_text: str


def _prepare(game: GameImport, household: int, now: datetime,
             entry_insert: _BulkInsert) -> _Prepared:
    state = game.state
    rules = state.rules.to_dict()
    written_at = game.finished_at or game.created_at
    # Imported now: a game written in this database has the time it was written as its last
    # change, whatever the file says, so no kept replay of a deleted game that had the same
    # id can ever pass for it (store/play.py).
    game_row = {"household_id": household, "rules": json.dumps(rules, sort_keys=True),
                "status": game.status,
                "created_at": game.created_at, "updated_at": now,
                "finished_at": game.finished_at}
    seats = [(seat, name.strip()) for seat, name in enumerate(state.players)]
    stored_at = entry_insert.value("created_at", written_at)
    log = [(seq, entry.player, entry.column, entry.box, _dice_text(entry.dice),
            state.sheets[entry.player].columns[entry.column].cells[entry.box].points, stored_at)
           for seq, entry in enumerate(state.entries)]
    # Seat results need only the replayed state: made here, their ids given in the write.
    results = (result_rows(0, household, rules, game.finished_at, [0] * len(state.players),
                           state)
               if game.status == FINISHED else [])
    return _Prepared(game_row, [identity.strip() for identity in game.identities], seats, log,
                     results, canonical_rules(rules))


def _player_ids(connection: Connection, names: dict[str, str], household: int,
                now: datetime) -> dict[str, int]:
    """The id of each of the household's players by key, those not there yet created in it:
    ``names`` maps each key to the name a new player gets. Only the household's own players:
    an import never reaches another's."""
    keys = list(names)
    ids: dict[str, int] = {}
    for start in range(0, len(keys), LOOKUP_BATCH):
        ids.update(connection.execute(
            select(players.c.name_key, players.c.id)
            .where(players.c.household_id == household,
                   players.c.name_key.in_(keys[start:start + LOOKUP_BATCH]))).all())
    missing = [{"household_id": household, "name": names[key], "name_key": key,
                "created_at": now}
               for key in keys if key not in ids]
    if missing:
        ids.update(connection.execute(
            insert(players).returning(players.c.name_key, players.c.id,
                                      sort_by_parameter_order=True),
            missing).all())
    return ids


def _write_games(store: Store, prepared: list[_Prepared], household: int, now: datetime,
                 seat_insert: _BulkInsert, entry_insert: _BulkInsert) -> list[int]:
    """One transaction, one statement per table: the write lock is held for the inserts."""
    names: dict[str, str] = {}
    for game in prepared:
        for identity in game.identities:
            names.setdefault(player_key(identity), identity)
    with store.engine.begin() as connection:
        player_ids = _player_ids(connection, names, household, now)
        game_ids = list(connection.scalars(
            insert(games).returning(games.c.id, sort_by_parameter_order=True),
            [game.game for game in prepared]))
        seats, log, results, rules_texts = [], [], [], {}
        for game_id, game in zip(game_ids, prepared, strict=True):
            seat_players = [player_ids[player_key(identity)] for identity in game.identities]
            seats += [(game_id, *seat, seat_players[seat[0]]) for seat in game.seats]
            log += [(game_id, *entry) for entry in game.entries]
            for result in game.results:
                results.append({**result, "game_id": game_id,
                                "player_id": seat_players[result["seat"]]})
                rules_texts[result["rules_key"]] = game.rules_text
        seat_insert.execute(connection, seats)
        entry_insert.execute(connection, log)
        insert_results(connection, results, rules_texts)
    return game_ids


def import_games(store: Store, checked: Sequence[GameImport],
                 household: int = HOME_HOUSEHOLD) -> list[int]:
    """Write checked games into the household in one transaction; return their new ids, in
    the same order.

    Every row is made first, then written by one statement per table, so that an import of
    12,000 games holds the database's write lock for about a second, not a minute.
    """
    if not checked:
        return []
    dialect = store.engine.dialect
    seat_insert = _BulkInsert(dialect, game_players, ("game_id", "seat", "name", "player_id"))
    entry_insert = _BulkInsert(dialect, entries, ("game_id", "seq", "seat", "column", "box",
                                                  "dice", "score", "created_at"))
    now = _now()
    prepared = [_prepare(game, household, now, entry_insert) for game in checked]
    try:
        return _write_games(store, prepared, household, now, seat_insert, entry_insert)
    except IntegrityError:
        # Another request created one of these players at the same moment; it exists now.
        return _write_games(store, prepared, household, now, seat_insert, entry_insert)


def _document(game, seats: list, log: list) -> dict[str, Any]:
    # The same shape as rules.write_document, built from the stored log without a replay:
    # an export of a hundred thousand games stays quick.
    rules = Rules.from_dict(json.loads(game.rules))
    names = [seat.name for seat in seats]
    single_column = len(rules.columns) == 1
    written = []
    for entry in log:
        item = {"player": names[entry.seat], "box": entry.box,
                "dice": [int(die) for die in entry.dice]}
        if not single_column:
            item["column"] = entry.column
        written.append(item)
    document = {
        "id": game.id,
        "status": game.status,
        "created_at": game.created_at.isoformat(),
        "finished_at": game.finished_at.isoformat() if game.finished_at else None,
        "rules": rules.to_dict(),
        "players": names,
        "entries": written,
    }
    identities = [seat.identity for seat in seats]
    if identities != names:
        document["identities"] = identities
    return document


def export_documents(store: Store, game_id: int | None = None,
                     household: int = HOME_HOUSEHOLD) -> Iterator[dict[str, Any]]:
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
        yield from _export_batch(store, ids[start:start + EXPORT_BATCH])


def _export_batch(store: Store, ids: list[int]) -> list[dict[str, Any]]:
    with store.engine.begin() as connection:
        rows = connection.execute(select(games).where(games.c.id.in_(ids))).all()
        seats: dict[int, list] = {game_id: [] for game_id in ids}
        for seat in connection.execute(
            select(game_players.c.game_id, game_players.c.name,
                   players.c.name.label("identity"))
            .join(players, players.c.id == game_players.c.player_id)
            .where(game_players.c.game_id.in_(ids))
            .order_by(game_players.c.game_id, game_players.c.seat)
        ):
            seats[seat.game_id].append(seat)
        logs: dict[int, list] = {game_id: [] for game_id in ids}
        for entry in connection.execute(
            select(entries.c.game_id, entries.c.seat, entries.c.column, entries.c.box,
                   entries.c.dice)
            .where(entries.c.game_id.in_(ids))
            .order_by(entries.c.game_id, entries.c.seq)
        ):
            logs[entry.game_id].append(entry)
    # A game deleted between the listing of ids and this batch is simply not exported.
    return [_document(game, seats[game.id], logs[game.id])
            for game in sorted(rows, key=lambda row: row.id)]


def json_array(documents: Iterable[dict[str, Any]]) -> Iterator[str]:
    """A JSON array written piece by piece, one document a line."""
    first = True
    for document in documents:
        yield ("[\n" if first else ",\n") + json.dumps(document, ensure_ascii=False)
        first = False
    yield "[]\n" if first else "\n]\n"
