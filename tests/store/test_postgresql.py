"""Hosting on PostgreSQL with several processes: URLs, drivers, migrations, shared settings.

The tests that need a PostgreSQL server run only when SCOREKEEPER_TEST_DATABASE_URL names
one; the others run everywhere.
"""

import os
import subprocess
import sys

import pytest
from click.testing import CliRunner
from flask import request
from sqlalchemy import create_engine, inspect, text

from scorekeeper import cli
from scorekeeper.app import DATABASE_URL_ENV, SECRET_KEY_ENV, STORE_EXTENSION, create_app
from scorekeeper.store import HOME_HOUSEHOLD, Store
from scorekeeper.store.engine import DatabaseSetupError, engine_url
from scorekeeper.store.games import games_in_progress
from scorekeeper.web.security import MAX_PIN_FAILURES, PinAttempts
from testing.live import REPO_ROOT
from tests.support.databases import ADMIN_URL, ON_POSTGRESQL

needs_postgresql = pytest.mark.skipif(
    not ON_POSTGRESQL, reason="needs SCOREKEEPER_TEST_DATABASE_URL"
)


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://yams:secret@db.example:5433/yams",
        "postgres://yams:secret@db.example:5433/yams",
    ],
)
def test_a_postgresql_url_opens_with_psycopg_3(url):
    opened = engine_url(url)
    assert opened.drivername == "postgresql+psycopg"
    assert (opened.host, opened.port, opened.database) == ("db.example", 5433, "yams")
    assert engine_url("sqlite:////srv/yams.sqlite3").drivername == "sqlite"


def test_a_missing_driver_is_one_line_naming_the_extra(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "psycopg", None)  # as if it were not installed
    url = "postgresql://yams@127.0.0.1:1/yams"
    with pytest.raises(DatabaseSetupError, match=r"pip install 'scorekeeper\[postgresql\]'"):
        Store(url)

    result = CliRunner().invoke(
        cli.main, ["migrate", "--instance", str(tmp_path)], env={DATABASE_URL_ENV: url}
    )

    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        "Error: the postgresql database driver is missing (psycopg): "
        "pip install 'scorekeeper[postgresql]'"
    ]


def test_an_unreadable_url_is_one_line_too(tmp_path):
    result = CliRunner().invoke(
        cli.main,
        ["serve", "--instance", str(tmp_path)],
        env={DATABASE_URL_ENV: "games on the shelf"},
    )
    assert result.exit_code == 1
    assert len(result.output.strip().splitlines()) == 1
    assert result.output.startswith("Error: DATABASE_URL:")


def test_migrate_brings_the_database_up_to_date_and_exits(instance_path, database_url):
    result = CliRunner().invoke(
        cli.main,
        ["migrate", "--instance", str(instance_path)],
        env={DATABASE_URL_ENV: database_url},
    )
    assert result.exit_code == 0, result.output
    assert "Database up to date" in result.output
    engine = create_engine(engine_url(database_url))
    try:
        assert {"games", "entries", "attempt_counts"} <= set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_processes_with_their_own_folders_share_the_key_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv(SECRET_KEY_ENV, "one key for every process")
    first = create_app(instance_path=tmp_path / "a")
    second = create_app(instance_path=tmp_path / "b")
    try:
        assert first.secret_key == second.secret_key == "one key for every process"
    finally:
        for app in (first, second):
            app.extensions[STORE_EXTENSION].dispose()


@pytest.mark.parametrize(("proxies", "seen"), [(0, "10.0.0.2"), (1, "203.0.113.9")])
def test_the_client_address_comes_from_a_proxy_only_when_trusted(
    instance_path, database_url, proxies, seen
):
    app = create_app(
        {"TESTING": True, "DATABASE_URL": database_url, "TRUSTED_PROXIES": proxies},
        instance_path=instance_path,
    )
    app.add_url_rule("/address", "address", lambda: request.remote_addr)
    try:
        response = app.test_client().get(
            "/address",
            headers={"X-Forwarded-For": "203.0.113.9"},
            environ_base={"REMOTE_ADDR": "10.0.0.2"},
        )
        assert response.get_data(as_text=True) == seen
    finally:
        app.extensions[STORE_EXTENSION].dispose()


def test_wrong_pins_are_counted_for_every_process_on_the_database(database_url, store):
    # Two stores on one database stand for two server processes.
    other = Store(database_url)
    try:
        for _ in range(MAX_PIN_FAILURES - 1):
            PinAttempts(store).failed("192.168.1.30", household=HOME_HOUSEHOLD)
        assert PinAttempts(other).wait_seconds("192.168.1.30", household=HOME_HOUSEHOLD) == 0
        PinAttempts(other).failed("192.168.1.30", household=HOME_HOUSEHOLD)
        assert PinAttempts(store).wait_seconds("192.168.1.30", household=HOME_HOUSEHOLD) > 0
        assert PinAttempts(other).wait_seconds("192.168.1.31", household=HOME_HOUSEHOLD) == 0
        PinAttempts(store).succeeded("192.168.1.30", household=HOME_HOUSEHOLD)
        assert PinAttempts(other).wait_seconds("192.168.1.30", household=HOME_HOUSEHOLD) == 0
    finally:
        other.dispose()


@pytest.fixture
def empty_database():
    """A PostgreSQL database with no table at all, dropped afterwards."""
    admin = create_engine(engine_url(ADMIN_URL), isolation_level="AUTOCOMMIT")
    name = "scorekeeper_test_empty"
    with admin.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    yield engine_url(ADMIN_URL).set(database=name).render_as_string(hide_password=False)
    with admin.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


@needs_postgresql
def test_processes_starting_together_on_an_empty_database_all_start(tmp_path, empty_database):
    """Each process migrates at start; the advisory lock lets one do it, the others wait."""
    code = (
        "import sys; from scorekeeper.app import create_app; "
        "create_app(instance_path=sys.argv[1]); print('started')"
    )
    env = {DATABASE_URL_ENV: empty_database, "PYTHONPATH": str(REPO_ROOT), "PATH": ""}
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(tmp_path / str(n))],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(6)
    ]
    outcomes = [process.communicate(timeout=120) for process in processes]
    assert [process.returncode for process in processes] == [0] * 6, outcomes
    store = Store(empty_database)
    try:
        assert games_in_progress(store, household=HOME_HOUSEHOLD) == []
    finally:
        store.dispose()


@needs_postgresql
def test_a_restarted_database_costs_no_request(app, client, database_url):
    """pool_pre_ping: a pooled connection that PostgreSQL closed is replaced unseen."""
    assert client.get("/").status_code == 200
    admin = create_engine(engine_url(ADMIN_URL), isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            killed = connection.scalar(
                text(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                    "WHERE datname = :name AND pid <> pg_backend_pid()"
                ),
                {"name": engine_url(database_url).database},
            )
    finally:
        admin.dispose()
    assert killed >= 1
    assert client.get("/").status_code == 200


@needs_postgresql
def test_a_forked_child_does_not_share_its_parents_connections(store):
    """gunicorn --preload forks workers from a parent that has already connected."""
    with store.engine.connect() as connection:
        parent_backend = connection.scalar(text("SELECT pg_backend_pid()"))
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child reports the backend it talks to, then leaves at once
        try:
            with store.engine.connect() as connection:
                backend = connection.scalar(text("SELECT pg_backend_pid()"))
            os.write(write, str(backend).encode())
        finally:
            os._exit(0)
    os.close(write)
    child_backend = int(os.read(read, 32) or b"0")
    os.waitpid(pid, 0)
    os.close(read)
    assert child_backend not in (0, parent_backend)
    with store.engine.connect() as connection:
        assert connection.scalar(text("SELECT pg_backend_pid()")) == parent_backend
