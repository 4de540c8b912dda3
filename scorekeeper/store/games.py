"""The games: their rows, their players' seats and their logs of entries.

Every write to a game starts by updating the game's row: on SQLite that takes the
database's write lock, on PostgreSQL the row's lock, so that the check that the game is
still the one its writer replayed (``seen_at``) and the write that follows see the same
log. The unique (game_id, seq) constraint stays as the last guard.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import (
    Connection,
    bindparam,
    delete,
    exists,
    func,
    insert,
    or_,
    select,
)
from sqlalchemy import update as sql_update
from sqlalchemy.exc import IntegrityError

from scorekeeper.rules import GameState, Rules
from scorekeeper.store.engine import Store, mark_changed, utc_now
from scorekeeper.store.errors import GameNotFound, InvalidPlayers, NothingToUndo, StaleSheet
from scorekeeper.store.paging import By, page_keys
from scorekeeper.store.quotas import Quotas, check_games_stored
from scorekeeper.store.records import (
    FINISHED,
    IN_PROGRESS,
    MAX_NAME_LENGTH,
    EntryRecord,
    GameRecord,
    GameSummary,
    GameVersion,
)
from scorekeeper.store.results import forget_results, record_results
from scorekeeper.store.schema import entries, game_players, games, players


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
        turn_key=row.turn_key,
        throw=row.throw,
        throws=row.throws,
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
_TOUCH_GAME = sql_update(games).where(_OWN_GAME)
# The same, only if the game has not changed since the caller read it.
_TOUCH_GAME_UNCHANGED = _TOUCH_GAME.where(games.c.updated_at == bindparam("seen_at"))
_ADD_ENTRY = insert(entries)


def create_game(
    store: Store,
    rules: dict[str, Any],
    names: Sequence[str],
    *,
    household: int,
    quotas: Quotas,
    rematch_of: int | None = None,
) -> int:
    """Start a game with these players in seat order; return its id.

    Each name finds the player who already has it (ignoring case) or makes a new one.
    With ``rematch_of``, the game is the Revanche of that one, made once: when it exists
    already (a second tap, another tablet), its id is returned and nothing is made.
    Raises InvalidPlayers for no name, a blank or too long name, or a name given twice;
    QuotaExceeded when the household keeps as many games as ``quotas`` allow.
    """
    cleaned = _clean_names(names)
    rules_text = json.dumps(rules, sort_keys=True)
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
        for seat, name in enumerate(cleaned):
            connection.execute(
                insert(game_players).values(
                    game_id=game_id,
                    seat=seat,
                    player_id=_find_or_create_player(connection, name, now, household),
                    name=name,
                )
            )
        check_games_stored(connection, household=household, quotas=quotas, added=1)
        return game_id

    try:
        return store.write(create)
    except IntegrityError:
        # Another game created one of these players, or this rematch, at the same moment:
        # it exists now.
        return store.write(create)


def rematch(store: Store, game_id: int, *, household: int) -> int | None:
    """The id of the household's game made as the Revanche of ``game_id``, if any."""
    with store.engine.begin() as connection:
        return _rematch(connection, game_id, household)


def _find_or_create_player(connection: Connection, name: str, now: datetime, household: int) -> int:
    key = player_key(name)
    player_id = connection.scalar(
        select(players.c.id).where(players.c.household_id == household, players.c.name_key == key)
    )
    if player_id is not None:
        return player_id
    return connection.execute(
        insert(players).values(household_id=household, name=name, name_key=key, created_at=now)
    ).inserted_primary_key[0]


def load_game(store: Store, game_id: int, *, household: int) -> GameRecord | None:
    """The whole game, or None if the household has no such game."""
    key = {"game_id": game_id, "household": household}
    with store.snapshot() as connection:
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


def add_entry(
    store: Store,
    game_id: int,
    entry: EntryRecord,
    *,
    seen_at: datetime,
    finished: bool = False,
    final_state: GameState | None = None,
    household: int,
) -> datetime:
    """Append `entry` (number ``entry.seq``) to the log of the game as its writer replayed
    it, the one whose ``updated_at`` is `seen_at`; return the game's new ``updated_at``.

    The write is the check: an entry or an undo written meanwhile, from another device,
    has moved ``updated_at``, and StaleSheet is raised, changing nothing. `finished`: the
    entry fills the last box (the writer's replay knows it); `final_state`, that replay,
    spares the finished game's results a second one.
    """
    dice = dice_text(entry.dice)
    now = utc_now()
    game_values: dict[str, Any] = {"updated_at": now}
    if finished:
        game_values.update(status=FINISHED, finished_at=now)
    if entry.seq == 0:
        game_values["started_at"] = now

    def append(connection: Connection) -> None:
        if not _lock_game(connection, game_id, household, game_values, seen_at):
            raise StaleSheet(game_id, entry.seq)
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
                "turn_key": entry.turn_key,
                "throw": entry.throw,
                "throws": entry.throws,
            },
        )
        if finished:
            # The game's household: _lock_game found the game in it.
            record_results(connection, game_id, now, final_state, household=household)

    try:
        store.write(append)
    except IntegrityError as error:
        raise StaleSheet(game_id, entry.seq) from error
    return now


def undo_entry(
    store: Store, game_id: int, expected_seq: int, *, seen_at: datetime, household: int
) -> EntryRecord:
    """Delete the last entry of the game as its writer saw it (``updated_at`` `seen_at`,
    `expected_seq` entries); return it. The game goes back in progress.

    Raises StaleSheet, changing nothing, when the game changed since; NothingToUndo when
    its log is empty.
    """

    def take_back(connection: Connection) -> EntryRecord:
        if not _lock_game(
            connection,
            game_id,
            household,
            {"updated_at": utc_now(), "status": IN_PROGRESS, "finished_at": None},
            seen_at,
        ):
            raise StaleSheet(game_id, expected_seq)
        if expected_seq == 0:
            raise NothingToUndo(game_id)
        if expected_seq == 1:  # the first entry taken back: the game is not started any more
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

    return store.write(take_back)


def game_version(store: Store, game_id: int, *, household: int) -> GameVersion | None:
    """The version of a game, None if the household has no such game: one small query,
    asked before every replay kept in memory is used, by each stream of changes that
    opens, and by the sheets that poll."""
    with store.engine.begin() as connection:
        return version_on(connection, game_id, household=household)


def version_on(connection: Connection, game_id: int, *, household: int) -> GameVersion | None:
    """The version of a game read on `connection` (within a write, the version it makes)."""
    row = connection.execute(_VERSION, {"game_id": game_id, "household": household}).one_or_none()
    return None if row is None else GameVersion(*row)


def games_in_progress(
    store: Store,
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
    with store.engine.begin() as connection:
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


def count_games_in_progress(store: Store, *, household: int) -> int:
    with store.engine.begin() as connection:
        return connection.scalar(
            select(func.count())
            .select_from(games)
            .where(
                games.c.household_id == household,
                games.c.status == IN_PROGRESS,
                listed(utc_now()),
            )
        )


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
        result = connection.execute(_TOUCH_GAME_UNCHANGED, {**key, "seen_at": seen_at, **values})
    if result.rowcount:
        mark_changed(connection, game_id, household=household)
        return True
    if seen_at is None or connection.execute(_GAME, key).first() is None:
        raise GameNotFound(game_id)
    return False
