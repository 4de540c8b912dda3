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

from sqlalchemy import Connection, insert, select
from sqlalchemy.exc import IntegrityError

from scorekeeper.rules import (
    GameState,
    IllegalEntry,
    RuleError,
    Rules,
    check_players,
    read_document,
)
from scorekeeper.rules.labels import N_
from scorekeeper.store.errors import GameNotFound, StoreError
from scorekeeper.store.records import FINISHED, GAME_STATUSES, IN_PROGRESS
from scorekeeper.store.results import record_results
from scorekeeper.store.schema import entries, game_players, games, players
from scorekeeper.store.store import HOME_HOUSEHOLD, Store, _dice_text, _now

EXPORT_BATCH = 500


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
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _status(data: dict, state: GameState) -> str:
    status = data.get("status")
    if status is None:
        return FINISHED if state.is_over else IN_PROGRESS
    if status not in GAME_STATUSES:
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
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise RuleError(N_("Ce fichier n'est pas du JSON valide (ligne {line}, "
                           "colonne {column})."), line=error.lineno, column=error.colno) from None


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


def _write_game(connection: Connection, game: GameImport, household: int) -> int:
    state = game.state
    written_at = game.finished_at or game.created_at
    now = _now()
    # Imported now: a game written in this database has the time it was written as its last
    # change, whatever the file says, so no kept replay of a deleted game that had the same
    # id can ever pass for it (store/play.py).
    game_id = connection.execute(insert(games).values(
        household_id=household, rules=json.dumps(state.rules.to_dict(), sort_keys=True),
        status=game.status,
        created_at=game.created_at, updated_at=now, finished_at=game.finished_at,
    )).inserted_primary_key[0]
    for seat, (name, identity) in enumerate(zip(state.players, game.identities, strict=True)):
        # Only the household's own players: an import never reaches another's.
        player_id = Store._find_or_create_player(connection, identity.strip(), now, household)
        connection.execute(insert(game_players).values(
            game_id=game_id, seat=seat, player_id=player_id, name=name.strip()))
    if state.entries:
        connection.execute(insert(entries), [
            {"game_id": game_id, "seq": seq, "seat": entry.player, "column": entry.column,
             "box": entry.box, "dice": _dice_text(entry.dice),
             "score": state.sheets[entry.player].columns[entry.column].cells[entry.box].points,
             "created_at": written_at}
            for seq, entry in enumerate(state.entries)
        ])
    if game.status == FINISHED:
        record_results(connection, game_id, game.finished_at)
    return game_id


def import_games(store: Store, checked: Sequence[GameImport],
                 household: int = HOME_HOUSEHOLD) -> list[int]:
    """Write checked games into the household in one transaction; return their new ids, in
    the same order."""
    try:
        with store.engine.begin() as connection:
            return [_write_game(connection, game, household) for game in checked]
    except IntegrityError:
        # Another request created one of these players at the same moment; it exists now.
        with store.engine.begin() as connection:
            return [_write_game(connection, game, household) for game in checked]


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
