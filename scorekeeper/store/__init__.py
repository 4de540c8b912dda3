"""Persistence: games, players and entries, in SQLite by default, portable to PostgreSQL."""

from scorekeeper.store.engine import Store
from scorekeeper.store.errors import (
    GameNotFound,
    InvalidPlayers,
    NothingToUndo,
    StaleSheet,
    StoreError,
)
from scorekeeper.store.games import player_key
from scorekeeper.store.records import (
    ABANDONED,
    FINISHED,
    GAME_STATUSES,
    HOME_HOUSEHOLD,
    IN_PROGRESS,
    MAX_NAME_LENGTH,
    EntryRecord,
    GameRecord,
    GameSummary,
    GameVersion,
)

__all__ = [
    "ABANDONED",
    "FINISHED",
    "GAME_STATUSES",
    "IN_PROGRESS",
    "MAX_NAME_LENGTH",
    "EntryRecord",
    "GameNotFound",
    "GameRecord",
    "GameSummary",
    "GameVersion",
    "HOME_HOUSEHOLD",
    "InvalidPlayers",
    "NothingToUndo",
    "StaleSheet",
    "Store",
    "StoreError",
    "player_key",
]
