"""The app's store, for the views."""

from flask import current_app

from scorekeeper.store import Store

# Where create_app keeps the Store among the app's extensions.
STORE_EXTENSION = "scorekeeper.store"


def store() -> Store:
    return current_app.extensions[STORE_EXTENSION]
