"""Shared fixtures: an app on a fresh instance folder, its clients, and its store."""

import pytest

from scorekeeper.app import DATABASE_FILE, DATABASE_URL_ENV, STORE_EXTENSION, create_app
from scorekeeper.store import Store


@pytest.fixture(autouse=True)
def _no_database_from_environment(monkeypatch):
    """A developer's SCOREKEEPER_DATABASE_URL must never reach the tests."""
    monkeypatch.delenv(DATABASE_URL_ENV, raising=False)


@pytest.fixture
def instance_path(tmp_path):
    return tmp_path / "instance"


@pytest.fixture
def app(instance_path):
    """The app with CSRF on, as in production: tests that POST must send the token."""
    app = create_app({"TESTING": True}, instance_path=instance_path)
    yield app
    app.extensions[STORE_EXTENSION].dispose()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def runner(app):
    return app.test_cli_runner()


@pytest.fixture
def store(instance_path):
    """A store on the same database file as the `app` fixture, usable without it."""
    instance_path.mkdir(parents=True, exist_ok=True)
    store = Store(f"sqlite:///{instance_path / DATABASE_FILE}")
    store.migrate()
    yield store
    store.dispose()
