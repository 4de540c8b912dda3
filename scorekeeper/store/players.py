"""Players as lasting identities: the same name, ignoring case, is the same player.

A player keeps their identity when renamed; two identities of one person are merged into one.
A game keeps the names as they were written on its sheet.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection, delete, func, select, update
from sqlalchemy.exc import IntegrityError

from scorekeeper.rules import check_players
from scorekeeper.store.engine import Store
from scorekeeper.store.errors import StoreError
from scorekeeper.store.games import player_key
from scorekeeper.store.paging import By, page_keys
from scorekeeper.store.results import rebuild_player_aggregates
from scorekeeper.store.schema import game_players, games, player_stats, players, results


@dataclass(frozen=True)
class PlayerRecord:
    id: int
    name: str
    created_at: datetime


@dataclass(frozen=True)
class PlayerSummary:
    """A line of the players' list: finished games and wins, over every rule set."""

    id: int
    name: str
    games: int
    wins: int


class PlayerNotFound(StoreError):
    def __init__(self, player_id: int) -> None:
        super().__init__(f"no player with id {player_id}")
        self.player_id = player_id


class NameTaken(StoreError):
    """Another player already has this name, ignoring case: merging them is the way."""

    def __init__(self, other: PlayerRecord) -> None:
        super().__init__(f"player {other.id} is already called {other.name!r}")
        self.other = other


class SharedGames(StoreError):
    """The two players sat at the same table: they cannot be one person."""

    def __init__(self, game_ids: list[int]) -> None:
        super().__init__(f"both players played games {game_ids}")
        self.game_ids = game_ids


class SamePlayer(StoreError):
    """A player cannot be merged into themselves."""


def _record(row) -> PlayerRecord:
    return PlayerRecord(row.id, row.name, row.created_at)


def _own(household: int):
    return players.c.household_id == household


def _get(connection: Connection, player_id: int, household: int) -> PlayerRecord:
    row = connection.execute(
        select(players).where(players.c.id == player_id, _own(household))
    ).one_or_none()
    if row is None:
        raise PlayerNotFound(player_id)
    return _record(row)


def get_player(store: Store, player_id: int, *, household: int) -> PlayerRecord | None:
    """The household's player of this id; None for another household's."""
    with store.engine.connect() as connection:
        row = connection.execute(
            select(players).where(players.c.id == player_id, _own(household))
        ).one_or_none()
    return None if row is None else _record(row)


def count_players(store: Store, *, household: int) -> int:
    with store.engine.connect() as connection:
        return connection.scalar(select(func.count()).select_from(players).where(_own(household)))


def list_players(
    store: Store,
    offset: int = 0,
    limit: int | None = None,
    *,
    household: int,
    count: int | None = None,
) -> list[PlayerSummary]:
    """Players by name, with their finished games and wins summed over the rule sets. With
    ``count``, how many there are, a page near the end is read from there (store/paging.py)."""
    with store.engine.connect() as connection:
        # The page's ids first, then the counts of those players only.
        ids = [
            row.id
            for row in page_keys(
                connection,
                select(players.c.id).where(_own(household)),
                (By(players.c.name_key), By(players.c.id)),
                offset,
                limit,
                count,
            )
        ]
        rows = connection.execute(
            select(
                players.c.id,
                players.c.name,
                func.coalesce(func.sum(player_stats.c.games), 0),
                func.coalesce(func.sum(player_stats.c.wins), 0),
            )
            .outerjoin(player_stats, player_stats.c.player_id == players.c.id)
            .where(players.c.id.in_(ids))
            .group_by(players.c.id, players.c.name)
        ).all()
    by_id = {row.id: PlayerSummary(*row) for row in rows}
    return [by_id[player_id] for player_id in ids]


def recent_players(store: Store, limit: int, *, household: int) -> list[str]:
    """The names of the household's players who sat at its latest games, the most recent
    first: one tap each on the new-game screen."""
    last_seen = func.max(games.c.created_at)
    query = (
        select(players.c.name)
        .join(game_players, game_players.c.player_id == players.c.id)
        .join(games, games.c.id == game_players.c.game_id)
        .where(_own(household), games.c.household_id == household)
        .group_by(players.c.id, players.c.name)
        .order_by(last_seen.desc(), players.c.id)
        .limit(limit)
    )
    with store.engine.connect() as connection:
        return list(connection.scalars(query))


def other_players(store: Store, player_id: int, *, household: int) -> list[PlayerRecord]:
    """Every player but this one, by name: the candidates to merge into them."""
    with store.engine.connect() as connection:
        rows = connection.execute(
            select(players)
            .where(players.c.id != player_id, _own(household))
            .order_by(players.c.name_key)
        ).all()
    return [_record(row) for row in rows]


def rename_player(store: Store, player_id: int, name: str, *, household: int) -> PlayerRecord:
    """Give a player a new name; RuleError for a name the rules refuse, NameTaken when
    another player has it (ignoring case). A game's sheet keeps the name it was played with."""
    check_players([name])
    name = name.strip()
    key = player_key(name)

    def rename(connection: Connection) -> PlayerRecord:
        player = _get(connection, player_id, household)
        other = connection.execute(
            select(players).where(
                players.c.name_key == key, players.c.id != player_id, _own(household)
            )
        ).one_or_none()
        if other is not None:
            raise NameTaken(_record(other))
        connection.execute(
            update(players).where(players.c.id == player_id).values(name=name, name_key=key)
        )
        return player

    try:
        # As every write: queued with this process's other SQLite writers, run again after
        # a PostgreSQL deadlock.
        player = store.write(rename)
    except IntegrityError:
        # Someone gave the name to another player meanwhile.
        with store.engine.connect() as connection:
            other = connection.execute(
                select(players).where(players.c.name_key == key, _own(household))
            ).one()
        raise NameTaken(_record(other)) from None
    return PlayerRecord(player.id, name, player.created_at)


def shared_games(connection: Connection, first: int, second: int) -> list[int]:
    # A Core alias, not sqlalchemy.orm.aliased: the ORM costs the start 0.2 s of imports.
    other_seat = game_players.alias()
    return list(
        connection.scalars(
            select(game_players.c.game_id)
            .join(other_seat, other_seat.c.game_id == game_players.c.game_id)
            .where(game_players.c.player_id == first, other_seat.c.player_id == second)
            .order_by(game_players.c.game_id)
        )
    )


def merge_players(store: Store, keep_id: int, other_id: int, *, household: int) -> PlayerRecord:
    """Make two identities one: the other player's games and results go to the kept one,
    and the other player is no more. Return the kept player.

    Raises SharedGames when both played in the same game, SamePlayer, PlayerNotFound.
    """
    if keep_id == other_id:
        raise SamePlayer("a player cannot be merged into themselves")

    def merge(connection: Connection) -> PlayerRecord:
        kept = _get(connection, keep_id, household)
        _get(connection, other_id, household)
        both = shared_games(connection, keep_id, other_id)
        if both:
            raise SharedGames(both)
        connection.execute(
            update(game_players)
            .where(game_players.c.player_id == other_id)
            .values(player_id=keep_id)
        )
        connection.execute(
            update(results).where(results.c.player_id == other_id).values(player_id=keep_id)
        )
        # Their histories interleave: counters and bonus streaks are counted again.
        rebuild_player_aggregates(connection, [keep_id, other_id])
        connection.execute(delete(players).where(players.c.id == other_id))
        return kept

    # It rewrites the counters of two players in another order than a finishing game:
    # on PostgreSQL the two may deadlock, and the merge is then run again.
    return store.write(merge)


def players_of_game(store: Store, game_id: int, *, household: int) -> list[PlayerRecord]:
    """The lasting players of a game, by seat."""
    with store.engine.connect() as connection:
        rows = connection.execute(
            select(players)
            .join(game_players, game_players.c.player_id == players.c.id)
            .where(game_players.c.game_id == game_id, _own(household))
            .order_by(game_players.c.seat)
        ).all()
    return [_record(row) for row in rows]
