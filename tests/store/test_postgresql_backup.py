"""A hosted database backed up and restored as docs/hosting.md says: `pg_dump -Fc` while the
server runs, `pg_restore` into an empty database, every row back and the store serving it
(new games numbered after the restored ones)."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from sqlalchemy import create_engine, make_url, text

from scorekeeper.play import load, start_game
from scorekeeper.rules import Rules
from scorekeeper.store import HOME_HOUSEHOLD, Store
from scorekeeper.store.engine import engine_url
from scorekeeper.store.quotas import NO_QUOTAS
from tests.support.databases import ADMIN_URL, ON_POSTGRESQL, REQUIRE_POSTGRESQL_ENV
from tests.support.games import some_games
from tests.support.walk import snapshot

pytestmark = pytest.mark.skipif(not ON_POSTGRESQL, reason="pg_dump and pg_restore")


def _libpq(url: str) -> str:
    """The URL as PostgreSQL's own tools read it: without SQLAlchemy's driver name."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


@pytest.fixture
def tools():
    found = [shutil.which(name) for name in ("pg_dump", "pg_restore")]
    if None in found:
        if os.environ.get(REQUIRE_POSTGRESQL_ENV) == "1":
            pytest.fail("pg_dump or pg_restore is missing")
        pytest.skip("pg_dump or pg_restore is missing")
    return found


@pytest.fixture
def empty_database():
    """A database just created, nothing in it, dropped at the end."""
    admin = create_engine(engine_url(ADMIN_URL), isolation_level="AUTOCOMMIT")
    name = f"scorekeeper_restore_{os.getpid()}"
    with admin.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    yield make_url(ADMIN_URL).set(database=name).render_as_string(hide_password=False)
    with admin.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


def test_a_dump_restored_into_an_empty_database_holds_every_row(
    store, database_url, empty_database, tools, tmp_path
):
    pg_dump, pg_restore = tools
    games = some_games(store)
    dump = tmp_path / "yams.dump"
    subprocess.run([pg_dump, "-Fc", "-f", dump, "-d", _libpq(database_url)], check=True, timeout=60)
    subprocess.run([pg_restore, "-d", _libpq(empty_database), dump], check=True, timeout=60)

    restored = Store(empty_database)
    try:
        restored.migrate()  # already at the newest migration: nothing to do
        assert snapshot(restored.engine) == snapshot(store.engine)
        for game_id in games:
            assert (
                load(restored, game_id, household=HOME_HOUSEHOLD)[0]
                == load(store, game_id, household=HOME_HOUSEHOLD)[0]
            )
        assert start_game(
            restored, Rules(), ["Ana"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS
        ) > max(games)
    finally:
        restored.dispose()
