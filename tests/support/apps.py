"""Apps started by the tests: on the test's instance folder and database, with CSRF on as in
production unless a test's settings turn it off."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from flask import Flask

from scorekeeper.app import STORE_EXTENSION, create_app

# A hosted server: many households, whose links name the address the test client asks for.
HOSTED = {"HOUSEHOLDS": True, "EXTERNAL_URL": "http://localhost"}
# The passphrase of the households the tests make on it.
PASSPHRASE = "correct horse battery"
# The household PIN of the web tests' `pin_app`.
PIN = "2580"


@contextlib.contextmanager
def app_on(instance_path: Path, database_url: str, **settings) -> Iterator[Flask]:
    """The app of ``settings`` on the instance folder and database; its store closed at the
    end."""
    # An open sheet's stream of changes ends after its first event, as a poll: a test that
    # reads every page's body would otherwise wait on it (tests/web/test_live.py sets more).
    app = create_app(
        {"TESTING": True, "DATABASE_URL": database_url, "LIVE_STREAM_SECONDS": 0, **settings},
        instance_path=instance_path,
    )
    try:
        yield app
    finally:
        app.extensions[STORE_EXTENSION].dispose()
