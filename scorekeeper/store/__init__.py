"""Persistence: games, players and entries, in SQLite by default, portable to PostgreSQL."""

from scorekeeper.store.errors import (
    GameNotFound,
    InvalidPlayers,
    NothingToUndo,
    StaleSheet,
    StoreError,
)
from scorekeeper.store.records import (
    ABANDONED,
    FINISHED,
    GAME_STATUSES,
    IN_PROGRESS,
    MAX_NAME_LENGTH,
    EntryRecord,
    GameRecord,
    GameSummary,
    GameVersion,
)
from scorekeeper.store.store import HOME_HOUSEHOLD, Store, player_key

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
