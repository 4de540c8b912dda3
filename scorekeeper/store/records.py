"""Plain values handed out by the store, so no caller ever holds a live database row."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from scorekeeper.rules.players import MAX_NAME_LENGTH  # noqa: F401 (the store's, too)
from scorekeeper.rules.sheet import progress

IN_PROGRESS = "in_progress"
FINISHED = "finished"
ABANDONED = "abandoned"
GAME_STATUSES = (IN_PROGRESS, FINISHED, ABANDONED)


# The household of an installation at home: the one that exists from the first start. No
# function defaults to it (tests/test_household_argument.py): what a household owns is
# reached by passing its household by keyword, the home one like any other, so that a
# forgotten one is a TypeError rather than a write into this household.
HOME_HOUSEHOLD = 1
HOME_NAME = "Maison"


@dataclass(frozen=True)
class EntryRecord:
    """One filled box: the dice typed by the player at seat `seat`, and the replayed score."""

    seq: int
    seat: int
    column: str
    box: str
    dice: tuple[int, ...]
    score: int
    # The key the tablet made for the turn, when it sent one (store/schema.py).
    turn_key: str | None = None
    # The throw the dice came from, when the entry said it (a Generala servida: 1).
    throw: int | None = None
    # The throws the turn used, when the entry said it (Maxi Yatzy: 4 spends one saved).
    throws: int | None = None


@dataclass(frozen=True)
class GameVersion:
    """What tells one state of a game from every other: each entry, undo and status change
    moves ``updated_at``, and the count says whose turn it is."""

    entry_count: int
    status: str
    updated_at: datetime

    @property
    def token(self) -> str:
        """The version as text, for a page to say which state of the game it shows."""
        return f"{self.entry_count}:{self.updated_at.isoformat()}"


@dataclass(frozen=True)
class GameRecord:
    """A whole game: its rules, its players by seat (0-based) and its log of entries."""

    id: int
    rules: dict[str, Any]
    players: tuple[str, ...]
    entries: tuple[EntryRecord, ...]
    status: str
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None
    # When the first entry was written; None where it is not known: games played before it
    # was kept (migration 0016), and games imported without it.
    started_at: datetime | None = None

    @property
    def length(self) -> timedelta | None:
        """How long the game took, first entry to last: only for a finished game whose
        start is known."""
        if self.started_at is None or self.finished_at is None:
            return None
        return self.finished_at - self.started_at

    @property
    def version(self) -> GameVersion:
        return GameVersion(len(self.entries), self.status, self.updated_at)


@dataclass(frozen=True)
class GameSummary:
    """What a list of games not finished says about each: its players, whose turn it is
    and in which round, without replaying it."""

    id: int
    players: tuple[str, ...]
    entry_count: int
    created_at: datetime
    updated_at: datetime
    status: str
    turns_per_player: int

    @property
    def turn(self) -> int:
        return progress(self.entry_count, len(self.players))[0]

    @property
    def next_player(self) -> str:
        return self.players[progress(self.entry_count, len(self.players))[1]]
