"""The database under the store: connection settings, migrations, and data across restarts."""

import threading
from dataclasses import replace
from datetime import UTC, datetime

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import delete, func, insert, inspect, select
from sqlalchemy.exc import IntegrityError

from scorekeeper.store import HOME_HOUSEHOLD, EntryRecord, Store
from scorekeeper.store import engine as store_engine
from scorekeeper.store.games import create_game, load_game
from scorekeeper.store.migrations import alembic_config, head_revision
from scorekeeper.store.quotas import NO_QUOTAS
from scorekeeper.store.schema import entries, games, metadata
from tests.support.games import append_entry
from tests.support.threads import joined

TABLES = {"games", "players", "game_players", "entries"}


@pytest.mark.sqlite_only("PRAGMAs")
def test_every_connection_has_wal_foreign_keys_and_a_busy_timeout(store):
    for _ in range(2):
        with store.engine.connect() as connection:
            assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar() == 5000
        store.engine.dispose()


def test_foreign_keys_are_enforced_and_deleting_a_game_deletes_its_log(store):
    with pytest.raises(IntegrityError), store.engine.begin() as connection:
        connection.execute(
            insert(entries).values(
                game_id=404,
                seq=0,
                seat=0,
                column="free",
                box="ones",
                dice="11111",
                score=5,
                created_at=datetime.now(UTC),
            )
        )
    game_id = create_game(store, {}, ["Alice"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    append_entry(store, game_id, EntryRecord(0, 0, "free", "ones", (1, 1, 1, 1, 1), 5))
    with store.engine.begin() as connection:
        connection.execute(delete(games).where(games.c.id == game_id))
        assert connection.scalar(select(func.count()).select_from(entries)) == 0


@pytest.mark.sqlite_only(
    "an empty SQLite file; tests/store/test_postgresql.py migrates an empty PostgreSQL database"
)
def test_migration_creates_the_schema_in_an_empty_file(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'games.sqlite3'}")
    assert not (tmp_path / "games.sqlite3").exists()

    store.migrate()

    assert TABLES <= set(inspect(store.engine).get_table_names())
    with store.engine.connect() as connection:
        current = MigrationContext.configure(connection).get_current_revision()
    assert current == ScriptDirectory.from_config(alembic_config()).get_current_head()
    store.dispose()


def test_the_head_read_from_the_scripts_is_alembics():
    assert head_revision() == ScriptDirectory.from_config(alembic_config()).get_current_head()


def test_migrating_twice_keeps_the_data(database_url):
    store = Store(database_url)
    store.migrate()
    game_id = create_game(
        store, {"preset": "classique"}, ["Alice"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS
    )
    store.migrate()
    assert load_game(store, game_id, household=HOME_HOUSEHOLD).players == ("Alice",)
    store.dispose()


def test_migrations_build_exactly_the_schema_the_code_uses(store):
    with store.engine.connect() as connection:
        differences = compare_metadata(MigrationContext.configure(connection), metadata)
    assert differences == []


def test_games_survive_a_restart(database_url):
    first = Store(database_url)
    first.migrate()
    game_id = create_game(
        first, {"preset": "classique"}, ["Alice", "Bob"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS
    )
    append_entry(first, game_id, EntryRecord(0, 0, "free", "yams", (4,) * 5, 50))
    before = load_game(first, game_id, household=HOME_HOUSEHOLD)
    first.dispose()

    second = Store(database_url)
    second.migrate()
    assert load_game(second, game_id, household=HOME_HOUSEHOLD) == before
    second.dispose()


def _write_in_thread(store, work):
    thread = threading.Thread(target=store.write, args=(work,))
    thread.start()
    return thread


@pytest.mark.sqlite_only("SQLite lets one writer in at a time; PostgreSQL locks rows")
def test_the_writers_of_one_process_queue_for_sqlite_instead_of_sleeping_on_its_lock(store):
    first_in, first_may_end, second_in = threading.Event(), threading.Event(), threading.Event()

    def first(connection):
        first_in.set()
        first_may_end.wait(timeout=10)

    first_writer = _write_in_thread(store, first)
    assert first_in.wait(timeout=10)
    second_writer = _write_in_thread(store, lambda connection: second_in.set())
    # The second waits for the first's transaction to end before it begins its own.
    assert not second_in.wait(timeout=0.2)
    first_may_end.set()
    assert second_in.wait(timeout=10)
    joined([first_writer, second_writer])


@pytest.mark.sqlite_only("SQLite lets one writer in at a time; PostgreSQL locks rows")
def test_a_writer_waits_for_the_queue_no_longer_than_sqlites_busy_timeout(store, monkeypatch):
    monkeypatch.setattr(store_engine, "_WRITERS_WAIT_S", 0.05)
    first_in, first_may_end = threading.Event(), threading.Event()

    def first(connection):
        first_in.set()
        first_may_end.wait(timeout=10)

    first_writer = _write_in_thread(store, first)
    assert first_in.wait(timeout=10)
    # Past the wait the second goes on by itself: here it meets no lock in SQLite.
    game_id = create_game(store, {}, ["Alice"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    first_may_end.set()
    joined([first_writer])
    assert load_game(store, game_id, household=HOME_HOUSEHOLD).players == ("Alice",)


def _entry_index_names(connection) -> set[str]:
    return {index["name"] for index in inspect(connection).get_indexes("entries")}


def test_entries_are_found_by_game_through_their_unique_index_alone(store):
    """Migration 0008 drops the index on game_id, which the unique (game_id, seq) serves;
    going back to 0007 and up again keeps every entry."""
    game_id = create_game(store, {}, ["Alice"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    append_entry(store, game_id, EntryRecord(0, 0, "free", "ones", (1, 1, 1, 1, 1), 5))
    before = load_game(store, game_id, household=HOME_HOUSEHOLD)
    cfg = alembic_config()
    with store.engine.begin() as connection:
        assert "ix_entries_game_id" not in _entry_index_names(connection)
        if connection.dialect.name == "sqlite":
            plan = " ".join(
                row[-1]
                for row in connection.exec_driver_sql(
                    "EXPLAIN QUERY PLAN SELECT * FROM entries WHERE game_id = 1 ORDER BY seq"
                )
            )
            assert plan.startswith("SEARCH entries USING INDEX") and "TEMP B-TREE" not in plan
        cfg.attributes["connection"] = connection
        command.downgrade(cfg, "0007")
        assert "ix_entries_game_id" in _entry_index_names(connection)
        command.upgrade(cfg, "head")
        assert "ix_entries_game_id" not in _entry_index_names(connection)
    # Down past migration 0016 forgets when the game started, as games before it have none.
    assert load_game(store, game_id, household=HOME_HOUSEHOLD) == replace(before, started_at=None)
