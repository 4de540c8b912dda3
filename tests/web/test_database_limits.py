"""A hosted server's bounds on PostgreSQL: a turn that meets a held lock, or whose statement
runs past statement_timeout, gets a 503 in time while other games are served; a full pool
is a 503, not a wait; more connections than the server admits are said at start."""

from __future__ import annotations

import logging
import threading
import time

import pytest
from sqlalchemy import create_engine, text

from scorekeeper.app import STORE_EXTENSION
from tests.support.apps import app_on
from tests.support.databases import ON_POSTGRESQL
from tests.support.forms import page_text
from tests.support.games import every_row
from tests.support.table import Table

pytestmark = pytest.mark.skipif(
    not ON_POSTGRESQL, reason="PostgreSQL's lock_timeout, pool and max_connections"
)

LOCK_TIMEOUT_S = 0.5


@pytest.fixture
def app(instance_path, database_url):
    with app_on(instance_path, database_url, DATABASE_LOCK_TIMEOUT_SECONDS=LOCK_TIMEOUT_S) as app:
        yield app


def _turn_behind_a_held_lock(app, database_url, snapshot, bound_s):
    """A turn on a game whose row another client holds, while another game is read and
    played as usual: it gets a 503 within 5 x `bound_s` and writes nothing; the lock gone,
    the same turn is written."""
    table = Table(app.test_client())
    held, other = table.new_game(["Ana"]), table.new_game(["Bruno"])
    before = snapshot()
    answers = {}

    def play_held_game():
        started = time.perf_counter()
        answers["held"] = Table(app.test_client()).play(held, 0, "12345", "free:chance")
        answers["seconds"] = time.perf_counter() - started

    # Another client (a psql session, a long report) holds the game's row.
    holder = create_engine(database_url.replace("postgresql://", "postgresql+psycopg://"))
    try:
        with holder.connect() as connection, connection.begin():
            connection.execute(text("SELECT id FROM games WHERE id = :id FOR UPDATE"), {"id": held})
            turn = threading.Thread(target=play_held_game)
            turn.start()
            # Meanwhile another game is read and played as usual.
            assert table.client.get(f"/games/{other}").status_code == 200
            assert table.play(other, 0, "66666", "free:chance").status_code == 303
            turn.join(timeout=10 * bound_s)
            assert not turn.is_alive(), "the turn still waits for the lock"
    finally:
        holder.dispose()
    response = answers["held"]
    assert response.status_code == 503 and response.headers["Retry-After"] == "2"
    assert "La base de données est occupée" in page_text(response)
    assert "Rien n'a été enregistré" in page_text(response)
    assert answers["seconds"] < 5 * bound_s
    after = snapshot()
    assert [row for row in after["entries"] if row.game_id == held] == []
    assert after["players"] == before["players"]
    # The lock gone, the same turn is written.
    assert table.play(held, 0, "12345", "free:chance").status_code == 303


def test_a_turn_meeting_a_held_lock_gets_a_503_in_time_and_other_games_are_served(
    app, database_url, snapshot
):
    _turn_behind_a_held_lock(app, database_url, snapshot, LOCK_TIMEOUT_S)


def test_a_statement_running_past_its_bound_gets_a_503_in_time(instance_path, database_url, caplog):
    # The statement that outlasts its bound is the turn's own update of its game's row,
    # waiting on another client's lock: lock_timeout set far above statement_timeout, only
    # statement_timeout can stop it in time.
    statement_timeout_s = 0.5
    with app_on(
        instance_path,
        database_url,
        DATABASE_LOCK_TIMEOUT_SECONDS=60.0,
        DATABASE_STATEMENT_TIMEOUT_SECONDS=statement_timeout_s,
    ) as app:
        store = app.extensions[STORE_EXTENSION]

        def snapshot():
            return every_row(store)

        with caplog.at_level(logging.WARNING, logger=app.logger.name):
            _turn_behind_a_held_lock(app, database_url, snapshot, statement_timeout_s)
    said = [record.getMessage() for record in caplog.records]
    assert any("database busy" in line and "statement timeout" in line for line in said), said


def test_a_full_pool_is_a_503_and_not_a_wait(instance_path, database_url):
    with app_on(
        instance_path,
        database_url,
        SERVER_THREADS=1,
        DATABASE_LOCK_TIMEOUT_SECONDS=LOCK_TIMEOUT_S,
    ) as app:
        client = app.test_client()
        assert client.get("/").status_code == 200
        store = app.extensions[STORE_EXTENSION]
        # The one connection a thread of the process may have, taken.
        with store.engine.connect():
            started = time.perf_counter()
            response = client.get("/")
            waited = time.perf_counter() - started
        assert response.status_code == 503 and response.headers["Retry-After"] == "2"
        assert "La base de données est occupée" in page_text(response)
        assert waited < 5 * LOCK_TIMEOUT_S
        assert client.get("/").status_code == 200


def test_more_connections_than_postgresql_admits_are_said_at_start(
    instance_path, database_url, caplog
):
    with caplog.at_level(logging.WARNING, logger="scorekeeper"):
        with app_on(instance_path, database_url, SERVER_WORKERS=2, SERVER_THREADS=4):
            pass
        assert not [record for record in caplog.records if "max_connections" in record.message]
        with app_on(instance_path, database_url, SERVER_WORKERS=1000, SERVER_THREADS=4):
            pass
    (said,) = [record for record in caplog.records if "max_connections" in record.message]
    assert "1000 server processes x 6 (pool 4 + import workers 1 + 1 listening) = 6000" in (
        said.message
    )


def test_idle_connections_go_back_to_the_server(instance_path, database_url):
    with app_on(instance_path, database_url, DATABASE_IDLE_SECONDS=0.3) as app:
        client = app.test_client()
        store = app.extensions[STORE_EXTENSION]
        with store.engine.connect() as connection:
            pid = connection.exec_driver_sql("SELECT pg_backend_pid()").scalar()
            assert connection.exec_driver_sql("SHOW lock_timeout").scalar() == "3s"
        # PostgreSQL ends the idle session by itself: look until it has, for a bounded time
        # (0.3 s on an idle machine, longer on a busy one).
        admin = create_engine(database_url.replace("postgresql://", "postgresql+psycopg://"))
        deadline = time.monotonic() + 30
        try:
            with admin.connect() as connection:
                while True:
                    alive = connection.execute(
                        text("SELECT count(*) FROM pg_stat_activity WHERE pid = :pid"),
                        {"pid": pid},
                    ).scalar()
                    connection.rollback()  # the next look gets a fresh view of the sessions
                    if not alive:
                        break
                    assert time.monotonic() < deadline, "the idle connection was never closed"
                    time.sleep(0.05)
        finally:
            admin.dispose()
        assert alive == 0
        # The pool finds its connection closed and opens another: no error.
        assert client.get("/").status_code == 200
