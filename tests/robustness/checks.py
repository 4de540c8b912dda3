"""What the checks against a real server read back: the stored games, and their integrity.

The database is the instance folder's SQLite file, or the one a URL names (PostgreSQL).
"""

import sqlite3
from contextlib import closing
from pathlib import Path

from sqlalchemy import make_url, select

from scorekeeper.app import DATABASE_FILE
from scorekeeper.play import load, start_game
from scorekeeper.rules import Rules
from scorekeeper.store import HOME_HOUSEHOLD, Store
from scorekeeper.store.quotas import NO_QUOTAS
from scorekeeper.store.schema import entries as entries_table

PLAYERS = ("Mag", "Alix")


def create_games(instance: Path, count: int, database_url: str, players: int = 2) -> list[int]:
    """`count` classique games of `players` (13 turns a player) in the instance's database."""
    instance.mkdir(parents=True, exist_ok=True)
    names = [*PLAYERS, *(f"Joueur {number}" for number in range(3, players + 1))][:players]
    store = Store(database_url)
    try:
        store.migrate()
        return [
            start_game(store, Rules(), names, household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
            for _ in range(count)
        ]
    finally:
        store.dispose()


def sqlite_url(instance: Path) -> str:
    """The URL of the instance folder's own database, as `scorekeeper serve` names it."""
    return f"sqlite:///{instance / DATABASE_FILE}"


def stored_entries(database_url: str) -> dict[tuple[int, int], tuple[str, str]]:
    """Every stored entry: (game, seq) -> ("column:box", the dice sorted).

    Also checks that each game's log has no gap, as a half-written transaction would leave.
    """
    store = Store(database_url)
    try:
        with store.engine.connect() as connection:
            rows = connection.execute(
                select(
                    entries_table.c.game_id,
                    entries_table.c.seq,
                    entries_table.c.column,
                    entries_table.c.box,
                    entries_table.c.dice,
                )
            ).all()
    finally:
        store.dispose()
    entries = {
        (game, seq): (f"{column}:{box}", "".join(sorted(dice)))
        for game, seq, column, box, dice in rows
    }
    logs: dict[int, list[int]] = {}
    for game, seq in sorted(entries):
        logs.setdefault(game, []).append(seq)
    for game, seqs in logs.items():
        assert seqs == list(range(len(seqs))), f"game {game} has a gap in its log: {seqs}"
    return entries


def is_sqlite(database_url: str) -> bool:
    return make_url(database_url).get_backend_name() == "sqlite"


def integrity(database_url: str) -> str:
    """SQLite's integrity_check of the database file ("ok" when sound)."""
    with closing(sqlite3.connect(make_url(database_url).database)) as connection:
        return "; ".join(row[0] for row in connection.execute("PRAGMA integrity_check"))


def assert_games_replay(database_url: str, game_ids: list[int]) -> None:
    """Each stored log is a legal game whose cached scores are its replay's."""
    store = Store(database_url)
    try:
        for game_id in game_ids:
            record, state = load(store, game_id, household=HOME_HOUSEHOLD)
            assert [entry.seq for entry in record.entries] == list(range(len(record.entries)))
            for entry, played in zip(record.entries, state.entries, strict=True):
                cell = state.sheets[played.player].columns[played.column].cells[played.box]
                assert entry.score == cell.points
    finally:
        store.dispose()
