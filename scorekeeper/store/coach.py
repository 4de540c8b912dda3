"""The coach's figures: what each player of a finished game left to the Conseil, written by
the coach (scorekeeper/coach.py) after the game's results, and read by the player pages and
the hall of fame.

A figure belongs to a result (its game and seat): an undo that reopens the game, or
deleting it, takes the result away and its figure with it (the foreign key cascades). The
player is the result's, so a merge of two players moves their figures too. Every query
walks an index from one end, so a page costs the same with any number of games.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection, and_, exists, select, tuple_
from sqlalchemy.exc import IntegrityError

from scorekeeper.store.counters import dialect_insert
from scorekeeper.store.engine import Store
from scorekeeper.store.games import version_on
from scorekeeper.store.records import GameVersion
from scorekeeper.store.schema import coach_figures, players, results

# The hall of fame's most precise player of a rule set is read over its latest games: a
# family's play changes over the months.
PRECISE_OVER = 20


@dataclass(frozen=True)
class SeatFigure:
    """What one player left to the Conseil in one game: the points of expectation given away
    over the turns judged, and the turns played on the best box."""

    given_away: float
    turns: int
    best_turns: int


@dataclass(frozen=True)
class CoachFigure:
    """A player's figure in one finished game."""

    game_id: int
    finished_at: datetime
    given_away: float
    turns: int
    best_turns: int


@dataclass(frozen=True)
class CoachSeries:
    """A player's figures in their latest games of a rule set, oldest first, and how many of
    those games the coach has not counted yet."""

    figures: tuple[CoachFigure, ...]
    waiting: int


@dataclass(frozen=True)
class MostPrecise:
    """The player who left the fewest points to the Conseil in a game, on average over the
    rule set's latest ``over`` games counted, of which they played ``games``."""

    player_id: int
    name: str
    games: int
    given_away: float  # a game, on average
    over: int


def record_coach_figures(
    store: Store,
    game_id: int,
    version: GameVersion,
    figures: Sequence[SeatFigure],
    *,
    household: int,
) -> bool:
    """Write each seat's figure of a finished game of ``household``, as reviewed at
    ``version``; False, writing nothing, when the game is not that one any more (undone,
    finished again, deleted, another household's) or has its figures already."""

    def write(connection: Connection) -> bool:
        if version_on(connection, game_id, household=household) != version:
            return False
        seats = connection.execute(
            select(results.c.seat, results.c.rules_key, results.c.finished_at)
            .where(results.c.game_id == game_id, results.c.household_id == household)
            .order_by(results.c.seat)
        ).all()
        if [seat.seat for seat in seats] != list(range(len(figures))):
            return False
        if connection.scalar(select(exists().where(coach_figures.c.game_id == game_id))):
            return False
        rows = [
            {
                "game_id": game_id,
                "seat": seat.seat,
                "household_id": household,
                "rules_key": seat.rules_key,
                "finished_at": seat.finished_at,
                "given_away": figure.given_away,
                "turns": figure.turns,
                "best_turns": figure.best_turns,
            }
            for seat, figure in zip(seats, figures, strict=True)
        ]
        # Another process may write the same game's at the same moment: the first one stays.
        statement = dialect_insert(connection.dialect.name)(coach_figures)
        connection.execute(
            statement.on_conflict_do_nothing(index_elements=["game_id", "seat"]), rows
        )
        return True

    try:
        return store.write(write)
    except IntegrityError:
        # Its results were taken away meanwhile (an undo committed first): nothing to count.
        return False


def games_awaiting_coach(
    store: Store,
    key: str,
    limit: int,
    *,
    household: int,
    before: tuple[datetime, int] | None = None,
) -> list[tuple[datetime, int]]:
    """The (end, id) of up to ``limit`` finished games of the household's rule set ``key``
    that have no figures yet, the latest first; with ``before``, those that ended before
    that (end, id) only, to walk them all in batches."""
    query = select(results.c.finished_at, results.c.game_id).where(
        results.c.household_id == household,
        results.c.rules_key == key,
        results.c.seat == 0,
        ~exists().where(coach_figures.c.game_id == results.c.game_id),
    )
    if before is not None:
        query = query.where(tuple_(results.c.finished_at, results.c.game_id) < before)
    with store.engine.connect() as connection:
        rows = connection.execute(
            query.order_by(results.c.finished_at.desc(), results.c.game_id.desc()).limit(limit)
        ).all()
    return [(row.finished_at, row.game_id) for row in rows]


def player_coach_series(
    store: Store, player_id: int, key: str, limit: int, *, household: int
) -> CoachSeries:
    """A player's figures in their latest ``limit`` finished games of a rule set, oldest
    first (for the chart), and how many of those the coach has not counted yet."""
    with store.engine.connect() as connection:
        rows = connection.execute(
            select(
                results.c.game_id,
                results.c.finished_at,
                coach_figures.c.given_away,
                coach_figures.c.turns,
                coach_figures.c.best_turns,
            )
            .outerjoin(
                coach_figures,
                and_(
                    coach_figures.c.game_id == results.c.game_id,
                    coach_figures.c.seat == results.c.seat,
                ),
            )
            .where(
                results.c.player_id == player_id,
                results.c.household_id == household,
                results.c.rules_key == key,
            )
            .order_by(results.c.finished_at.desc(), results.c.game_id.desc())
            .limit(limit)
        ).all()
    counted = [CoachFigure(*row) for row in reversed(rows) if row.given_away is not None]
    return CoachSeries(tuple(counted), len(rows) - len(counted))


def most_precise(store: Store, key: str, *, household: int) -> MostPrecise | None:
    """The player of the household who left the fewest points to the Conseil a game, on
    average over the rule set's latest PRECISE_OVER games counted; among equals, who played
    more of them, then the first player made. None before any game is counted."""
    with store.engine.connect() as connection:
        # Seat 0's row stands for its game: the (household, rules_key, finished_at) index
        # gives the latest games in order.
        game_ids = list(
            connection.scalars(
                select(coach_figures.c.game_id)
                .where(
                    coach_figures.c.household_id == household,
                    coach_figures.c.rules_key == key,
                    coach_figures.c.seat == 0,
                )
                .order_by(coach_figures.c.finished_at.desc(), coach_figures.c.game_id.desc())
                .limit(PRECISE_OVER)
            )
        )
        if not game_ids:
            return None
        rows = connection.execute(
            select(results.c.player_id, players.c.name, coach_figures.c.given_away)
            .select_from(coach_figures)
            .join(
                results,
                and_(
                    results.c.game_id == coach_figures.c.game_id,
                    results.c.seat == coach_figures.c.seat,
                ),
            )
            .join(players, players.c.id == results.c.player_id)
            .where(coach_figures.c.game_id.in_(game_ids))
        ).all()
    played: dict[int, list[float]] = {}
    names: dict[int, str] = {}
    for row in rows:
        played.setdefault(row.player_id, []).append(row.given_away)
        names[row.player_id] = row.name
    player_id = min(
        played,
        key=lambda player: (
            sum(played[player]) / len(played[player]),
            -len(played[player]),
            player,
        ),
    )
    figures = played[player_id]
    return MostPrecise(
        player_id, names[player_id], len(figures), sum(figures) / len(figures), len(game_ids)
    )
