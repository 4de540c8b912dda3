"""The end of a game other than its last box: abandoning it, taking it up again, deleting it."""

from __future__ import annotations

from sqlalchemy import Connection, delete, select, update

from scorekeeper.store.engine import Store, mark_changed, utc_now
from scorekeeper.store.errors import GameNotFound, StoreError
from scorekeeper.store.records import ABANDONED, IN_PROGRESS
from scorekeeper.store.results import forget_results
from scorekeeper.store.schema import games


class WrongStatus(StoreError):
    """The game is not in the state the action needs (abandoning a finished game, say)."""

    def __init__(self, game_id: int, status: str) -> None:
        super().__init__(f"game {game_id} is {status}")
        self.game_id = game_id
        self.status = status


def _own_game(game_id: int, household: int):
    return (games.c.id == game_id) & (games.c.household_id == household)


def _change_status(
    connection: Connection, game_id: int, household: int, before: str, after: str
) -> None:
    changed = connection.execute(
        update(games)
        .where(_own_game(game_id, household), games.c.status == before)
        .values(status=after, updated_at=utc_now())
    ).rowcount
    if not changed:
        status = connection.scalar(select(games.c.status).where(_own_game(game_id, household)))
        if status is None:
            raise GameNotFound(game_id)
        raise WrongStatus(game_id, status)
    mark_changed(connection, game_id, household=household)


def abandon_game(store: Store, game_id: int, *, household: int) -> None:
    """Put a game in progress aside for good: it leaves the home page and never gets ranked.

    Raises WrongStatus when the game is not in progress.
    """
    store.write(
        lambda connection: _change_status(connection, game_id, household, IN_PROGRESS, ABANDONED)
    )


def resume_game(store: Store, game_id: int, *, household: int) -> None:
    """Take an abandoned game up again. Raises WrongStatus when it was not abandoned."""
    store.write(
        lambda connection: _change_status(connection, game_id, household, ABANDONED, IN_PROGRESS)
    )


def delete_game(store: Store, game_id: int, *, household: int) -> None:
    """Delete a game, its log and its results; its players stay, with their other games."""

    def remove(connection: Connection) -> None:
        # Updating the row first takes the write lock, as every other write to a game does.
        if not connection.execute(
            update(games).where(_own_game(game_id, household)).values(updated_at=utc_now())
        ).rowcount:
            raise GameNotFound(game_id)
        mark_changed(connection, game_id, household=household)
        forget_results(connection, game_id)
        connection.execute(delete(games).where(games.c.id == game_id))

    store.write(remove)
