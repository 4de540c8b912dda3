"""What the checks against a real server read back: the games on disk, and their integrity."""

import sqlite3
from contextlib import closing
from pathlib import Path

from scorekeeper.app import DATABASE_FILE
from scorekeeper.rules import Rules
from scorekeeper.store import Store
from scorekeeper.store.play import load, start_game

PLAYERS = ("Mag", "Alix")


def create_games(instance: Path, count: int) -> list[int]:
    """`count` two-player classique games (26 turns each) in the instance's database."""
    instance.mkdir(parents=True, exist_ok=True)
    store = Store(f"sqlite:///{database(instance)}")
    try:
        store.migrate()
        return [start_game(store, Rules(), PLAYERS) for _ in range(count)]
    finally:
        store.dispose()


def database(instance: Path) -> Path:
    return instance / DATABASE_FILE


def stored_entries(database_file: Path) -> dict[tuple[int, int], tuple[str, str]]:
    """Every entry on disk: (game, seq) -> ("column:box", the dice sorted).

    Also checks that each game's log has no gap, as a half-written transaction would leave.
    """
    with closing(sqlite3.connect(database_file)) as connection:
        rows = connection.execute('SELECT game_id, seq, "column", box, dice FROM entries')
        entries = {(game, seq): (f"{column}:{box}", "".join(sorted(dice)))
                   for game, seq, column, box, dice in rows}
    logs: dict[int, list[int]] = {}
    for game, seq in sorted(entries):
        logs.setdefault(game, []).append(seq)
    for game, seqs in logs.items():
        assert seqs == list(range(len(seqs))), f"game {game} has a gap in its log: {seqs}"
    return entries


def integrity(database_file: Path) -> str:
    with closing(sqlite3.connect(database_file)) as connection:
        return "; ".join(row[0] for row in connection.execute("PRAGMA integrity_check"))


def assert_games_replay(instance: Path, game_ids: list[int]) -> None:
    """Each stored log is a legal game whose cached scores are its replay's."""
    store = Store(f"sqlite:///{database(instance)}")
    try:
        for game_id in game_ids:
            record, state = load(store, game_id)
            assert [entry.seq for entry in record.entries] == list(range(len(record.entries)))
            for entry, played in zip(record.entries, state.entries, strict=True):
                cell = state.sheets[played.player].columns[played.column].cells[played.box]
                assert entry.score == cell.points
    finally:
        store.dispose()
