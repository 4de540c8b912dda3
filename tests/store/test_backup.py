"""`scorekeeper backup`: a consistent copy of the games, even while they are being written."""

import shutil
import sqlite3
import threading
from contextlib import closing

import pytest
from click.testing import CliRunner

from scorekeeper import cli
from scorekeeper.app import DATABASE_FILE, STORE_EXTENSION, create_app
from scorekeeper.play import load
from scorekeeper.store import HOME_HOUSEHOLD, EntryRecord, Store
from scorekeeper.store.backup import BackupError, backup, sqlite_file
from scorekeeper.store.games import create_game, load_game
from scorekeeper.store.quotas import NO_QUOTAS
from tests.support.games import append_entry
from tests.support.threads import joined

pytestmark = pytest.mark.sqlite_only("the online backup of the SQLite file")

UPPER_BOXES = ("ones", "twos", "threes", "fours", "fives", "sixes")


def _entry(seq: int) -> EntryRecord:
    """Entry `seq` of a solitaire game: legal for the first six, enough for the store after."""
    face = seq % 6 + 1
    return EntryRecord(seq, 0, "free", UPPER_BOXES[face - 1], (face, 1, 2, 3, 4), face)


def _fill(store: Store, games: int, entries: int) -> list[int]:
    ids = []
    for number in range(games):
        game_id = create_game(
            store, {}, [f"Joueur {number}"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS
        )
        for seq in range(entries):
            append_entry(store, game_id, _entry(seq))
        ids.append(game_id)
    return ids


def _logs(path) -> dict[int, list[int]]:
    """Each game's sequence numbers, read straight from a database file."""
    with closing(sqlite3.connect(path)) as connection:
        logs = {game_id: [] for (game_id,) in connection.execute("SELECT id FROM games")}
        for game_id, seq in connection.execute("SELECT game_id, seq FROM entries ORDER BY 1, 2"):
            logs[game_id].append(seq)
    return logs


def _integrity(path) -> str:
    with closing(sqlite3.connect(path)) as connection:
        return connection.execute("PRAGMA integrity_check").fetchone()[0]


def test_backup_copies_every_game_into_one_self_contained_file(store, instance_path, tmp_path):
    _fill(store, games=3, entries=4)
    destination = tmp_path / "saves" / "games.sqlite3"

    summary = backup(instance_path / DATABASE_FILE, destination)

    assert (summary.games, summary.entries) == (3, 12)
    assert _logs(destination) == _logs(instance_path / DATABASE_FILE)
    assert _integrity(destination) == "ok"
    # Rollback journal, not WAL: the file alone is the whole backup.
    assert destination.read_bytes()[18:20] == b"\x01\x01"
    assert not destination.with_name("games.sqlite3-wal").exists()
    assert [p.name for p in destination.parent.iterdir()] == ["games.sqlite3"]


def test_backups_taken_while_games_are_written_are_consistent(store, instance_path, tmp_path):
    """Every backup holds whole logs (no gap, no half transaction) and every entry
    acknowledged before it started."""
    game_ids = _fill(store, games=4, entries=0)
    acknowledged = {game_id: 0 for game_id in game_ids}
    stop = threading.Event()

    def write() -> None:
        seq = 0
        while not stop.is_set() and seq < 400:
            for game_id in game_ids:
                append_entry(store, game_id, _entry(seq))
                acknowledged[game_id] = seq + 1
            seq += 1

    writer = threading.Thread(target=write)
    writer.start()
    try:
        for number in range(15):
            before = dict(acknowledged)
            destination = tmp_path / f"backup-{number}.sqlite3"
            backup(instance_path / DATABASE_FILE, destination)
            assert _integrity(destination) == "ok"
            logs = _logs(destination)
            for game_id in game_ids:
                assert logs[game_id] == list(range(len(logs[game_id])))
                assert len(logs[game_id]) >= before[game_id]
    finally:
        stop.set()
        joined([writer])
    assert sum(acknowledged.values()) > 0


def test_a_failed_backup_leaves_the_previous_one_untouched(tmp_path):
    not_a_database = tmp_path / "notes.txt"
    not_a_database.write_text("pas une base de données " * 100)
    destination = tmp_path / "out" / "backup.sqlite3"
    destination.parent.mkdir()
    destination.write_bytes(b"the previous backup")

    with pytest.raises(BackupError):
        backup(not_a_database, destination)

    assert destination.read_bytes() == b"the previous backup"
    assert [p.name for p in destination.parent.iterdir()] == ["backup.sqlite3"]


def test_backup_refuses_a_missing_database_and_overwriting_the_database(
    store, instance_path, tmp_path
):
    with pytest.raises(BackupError, match="no database"):
        backup(tmp_path / "missing.sqlite3", tmp_path / "copy.sqlite3")
    database = instance_path / DATABASE_FILE
    with pytest.raises(BackupError, match="overwrite the database itself"):
        backup(database, database)
    assert _integrity(database) == "ok"


def test_only_sqlite_files_can_be_backed_up():
    assert sqlite_file("sqlite:////srv/yams/games.sqlite3").as_posix() == "/srv/yams/games.sqlite3"
    for url in ("sqlite://", "sqlite:///:memory:", "postgresql://yams@localhost/yams"):
        with pytest.raises(BackupError):
            sqlite_file(url)


def test_backup_command_then_the_documented_restore(tmp_path):
    """`scorekeeper backup`, then the README's restore: stop, remove the database with its
    -wal and -shm files, copy the backup in its place, start."""
    instance = tmp_path / "instance"
    app = create_app({"TESTING": True}, instance_path=instance)
    game_ids = _fill(app.extensions[STORE_EXTENSION], games=2, entries=5)
    saved = tmp_path / "yams-backup.sqlite3"

    result = CliRunner().invoke(cli.main, ["backup", "--instance", str(instance), str(saved)])

    assert result.exit_code == 0, result.output
    assert "2 games, 10 entries" in result.output
    store = app.extensions[STORE_EXTENSION]
    late_game = create_game(
        store, {}, ["Écrit après la sauvegarde"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS
    )
    store.dispose()
    for suffix in ("", "-wal", "-shm"):
        (instance / f"{DATABASE_FILE}{suffix}").unlink(missing_ok=True)
    shutil.copyfile(saved, instance / DATABASE_FILE)

    restored = create_app({"TESTING": True}, instance_path=instance)
    try:
        for game_id in game_ids:
            record, _state = load(
                restored.extensions[STORE_EXTENSION], game_id, household=HOME_HOUSEHOLD
            )
            assert [e.seq for e in record.entries] == [0, 1, 2, 3, 4]
            assert restored.test_client().get(f"/games/{game_id}").status_code == 200
        restored_store = restored.extensions[STORE_EXTENSION]
        assert load_game(restored_store, late_game, household=HOME_HOUSEHOLD) is None
    finally:
        restored.extensions[STORE_EXTENSION].dispose()


def test_backup_command_refuses_a_missing_instance_folder(tmp_path):
    result = CliRunner().invoke(
        cli.main, ["backup", "--instance", str(tmp_path / "typo"), str(tmp_path / "b.sqlite3")]
    )
    assert result.exit_code == 2
    assert "no instance folder" in result.output
    assert not (tmp_path / "typo").exists()
    assert not (tmp_path / "b.sqlite3").exists()
