"""The app's store, its open sheets' hub and its households' quotas, for the views."""

from flask import current_app, g

from scorekeeper.play import load
from scorekeeper.rules import GameState
from scorekeeper.store import GameNotFound, GameRecord, Store
from scorekeeper.store.changes import GameChanges
from scorekeeper.store.quotas import Quotas
from scorekeeper.web.paging import no_game

# Where create_app keeps them among the app's extensions.
STORE_EXTENSION = "scorekeeper.store"
CHANGES_EXTENSION = "scorekeeper.changes"
QUOTAS_EXTENSION = "scorekeeper.quotas"


def store() -> Store:
    return current_app.extensions[STORE_EXTENSION]


def changes() -> GameChanges:
    """The open sheets of this process, woken by the store's writes."""
    return current_app.extensions[CHANGES_EXTENSION]


def quotas() -> Quotas:
    """What each household may keep and ask for (nothing counted at home)."""
    return current_app.extensions[QUOTAS_EXTENSION]


def household() -> int:
    """The household of the request, set before it by web/signin.py: the home one, or
    in hosted mode the one of the signed-in device. Never a default: a view reached without
    one fails rather than show another household's data."""
    return g.household_id


def load_or_404(game_id: int) -> tuple[GameRecord, GameState]:
    """A stored game of the request's household and the state its log replays to, or the
    404 page that names it."""
    try:
        return load(store(), game_id, household=household())
    except GameNotFound:
        no_game(game_id)
