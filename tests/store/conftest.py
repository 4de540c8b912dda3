"""Fixtures of the store's tests."""

import pytest

from scorekeeper.store import Store


@pytest.fixture
def other_store(tmp_path, another_database):
    """A second store on a database of its own (a new server, another instance), migrated."""
    store = Store(another_database(tmp_path / "other"))
    store.migrate()
    yield store
    store.dispose()
