"""Errors raised by the store; the web layer turns each into a clear French message."""


class StoreError(Exception):
    """Base class of every error the store raises on purpose."""


class GameNotFound(StoreError):
    """No game has this id."""

    def __init__(self, game_id: int) -> None:
        super().__init__(f"no game with id {game_id}")
        self.game_id = game_id


class StaleSheet(StoreError):
    """The client saw another version of the game's log than the one stored now."""

    def __init__(self, game_id: int, expected_seq: int, actual_seq: int | None = None) -> None:
        super().__init__(
            f"game {game_id}: expected {expected_seq} entries, found {actual_seq}"
            if actual_seq is not None
            else f"game {game_id}: entry {expected_seq} was written by someone else"
        )
        self.game_id = game_id
        self.expected_seq = expected_seq
        self.actual_seq = actual_seq


class NothingToUndo(StoreError):
    """The game has no entry to take back."""

    def __init__(self, game_id: int) -> None:
        super().__init__(f"game {game_id} has no entry to undo")
        self.game_id = game_id


class InvalidPlayers(StoreError, ValueError):
    """The list of names cannot make a game (empty, blank, too long or repeated)."""
