"""What the hall of fame shows, read from the cached results (a player's page:
store/player_stats.py).

Every query walks an index from one end or reads a stored counter, so a page costs the
same with a hundred finished games or a hundred thousand.
"""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Connection, and_, exists, func, select

from scorekeeper.rules import Rules
from scorekeeper.store.engine import Store
from scorekeeper.store.paging import By, page_keys
from scorekeeper.store.records import FINISHED
from scorekeeper.store.schema import (
    games,
    players,
    results,
    rule_sets,
)

# The records of a rule set: the column that holds each, highest first.
RECORDS = {
    "total": results.c.total,
    "yams_count": results.c.yams_count,
    "upper": results.c.upper,
    "bonus_streak": results.c.bonus_streak,
}


@dataclass(frozen=True)
class RuleSet:
    key: str
    rules: Rules
    games: int
    results: int


@dataclass(frozen=True)
class ResultLine:
    """One player's result in one finished game."""

    game_id: int
    player_id: int
    name: str
    rules_key: str
    finished_at: datetime
    total: int
    upper: int
    yams_count: int
    bonus_streak: int
    rank: int
    won: bool
    player_count: int


@dataclass(frozen=True)
class FinishedGame:
    """A finished game and its players, best first."""

    id: int
    finished_at: datetime
    rules_key: str
    lines: tuple[ResultLine, ...]
    started_at: datetime | None = None  # None where it is not known (migration 0016)

    @property
    def length(self) -> timedelta | None:
        return None if self.started_at is None else self.finished_at - self.started_at


_LINE_COLUMNS = (
    results.c.game_id,
    results.c.player_id,
    players.c.name,
    results.c.rules_key,
    results.c.finished_at,
    results.c.total,
    results.c.upper,
    results.c.yams_count,
    results.c.bonus_streak,
    results.c.rank,
    results.c.won,
    results.c.player_count,
)


def lines_query():
    return select(*_LINE_COLUMNS).join(players, players.c.id == results.c.player_id)


def _rule_set(row) -> RuleSet:
    return RuleSet(row.key, Rules.from_dict(json.loads(row.rules)), row.games, row.results)


def list_rule_sets(store: Store, *, household: int) -> list[RuleSet]:
    """The rule sets of the household's finished games, the most played first."""
    with store.engine.connect() as connection:
        rows = connection.execute(
            select(rule_sets)
            .where(rule_sets.c.household_id == household)
            .order_by(rule_sets.c.games.desc(), rule_sets.c.key)
        ).all()
    return [_rule_set(row) for row in rows]


# The order of best totals: the (household, rules_key, total DESC, finished_at, game_id,
# seat) index holds it, so a page's keys are read from the index alone (migration 0014).
TOP_ORDER = (
    By(results.c.total, descending=True),
    By(results.c.finished_at),
    By(results.c.game_id),
    By(results.c.seat),
)


def top_results(
    store: Store, key: str, offset: int, limit: int, *, household: int, count: int | None = None
) -> list[ResultLine]:
    """The household's best single-game totals under one rule set; equal totals, the
    earliest first, and in one game in seat order. With ``count``, the rule set's number of
    results, a page near the end is read from there (store/paging.py)."""
    of_rule_set = (results.c.household_id == household, results.c.rules_key == key)
    with store.engine.connect() as connection:
        keys = page_keys(
            connection,
            select(results.c.game_id, results.c.seat).where(*of_rule_set),
            TOP_ORDER,
            offset,
            limit,
            count,
        )
        # A game has at most 10 players: its lines are read whole and the page's picked out.
        # By the games' ids alone, which the household's query gave: with the rule set's
        # condition too, SQLite would walk the rule set's index instead of the primary key.
        lines = {
            (row.game_id, row.seat): ResultLine(*row[:-1])
            for row in connection.execute(
                select(*_LINE_COLUMNS, results.c.seat)
                .join(players, players.c.id == results.c.player_id)
                .where(results.c.game_id.in_({found.game_id for found in keys}))
            )
        }
    return [lines[key.game_id, key.seat] for key in keys]


# The holders of a shared record named on the page; beyond, « and others ». The ties read
# to find them are bounded too: a player may hold a record in many games.
RECORD_HOLDERS_NAMED = 6
RECORD_ROWS_READ = 200


@dataclass(frozen=True)
class Record:
    """A record of a rule set and every player who holds it, each at the game where they
    first reached it, the earliest first; ``others`` when more hold it than are named."""

    holders: tuple[ResultLine, ...]
    others: bool


def records(store: Store, key: str, *, household: int) -> dict[str, Record]:
    """Each record of a rule set with the players who hold it (two Yams in one game may be
    anyone's): the best value, then the results that equal it, earliest first.

    A record still at 0 (no Yams yet, no upper bonus yet) is no record and is left out.
    """
    found = {}
    of_rule_set = and_(results.c.household_id == household, results.c.rules_key == key)
    with store.engine.connect() as connection:
        for name, column in RECORDS.items():
            # Walks the (household, rules_key, record DESC, finished_at, game_id) index: the
            # best value, then its equals in order, until enough players are named.
            best = connection.scalar(
                select(column).where(of_rule_set).order_by(column.desc()).limit(1)
            )
            if not best:
                continue
            holders: dict[int, ResultLine] = {}
            equals = (
                lines_query()
                .where(of_rule_set, column == best)
                .order_by(results.c.finished_at, results.c.game_id)
            )
            for row in connection.execute(equals.limit(RECORD_ROWS_READ)):
                holders.setdefault(row.player_id, ResultLine(*row))
                if len(holders) == RECORD_HOLDERS_NAMED:
                    break
            named = list(holders.values())
            # Whether anyone not named holds it too, however many games the named ones have.
            others = connection.scalar(
                select(results.c.player_id)
                .where(of_rule_set, column == best, results.c.player_id.not_in(holders))
                .limit(1)
            )
            found[name] = Record(tuple(named), others is not None)
    return found


# The games a rule set's usual length is taken from: its latest, as a family's pace changes.
USUAL_LENGTH_OVER = 20


def latest_lengths_query(key: str, *, household: int):
    """The start and end of the rule set's latest USUAL_LENGTH_OVER finished games, read
    from the (household, rules_key, finished_at) index."""
    return (
        select(games.c.started_at, results.c.finished_at)
        .join(games, games.c.id == results.c.game_id)
        .where(
            results.c.household_id == household,
            results.c.rules_key == key,
            results.c.seat == 0,
        )
        .order_by(results.c.finished_at.desc(), results.c.game_id.desc())
        .limit(USUAL_LENGTH_OVER)
    )


def usual_length(store: Store, key: str, *, household: int) -> timedelta | None:
    """How long a game of this rule set usually takes: the median length of its latest
    USUAL_LENGTH_OVER finished games, among those whose start is known; None if none is."""
    with store.engine.connect() as connection:
        rows = connection.execute(latest_lengths_query(key, household=household)).all()
    lengths = [finished - started for started, finished in rows if started is not None]
    return statistics.median_low(lengths) if lengths else None


def finished_count(store: Store, *, household: int) -> int:
    with store.engine.connect() as connection:
        return connection.scalar(
            select(func.coalesce(func.sum(rule_sets.c.games), 0)).where(
                rule_sets.c.household_id == household
            )
        )


def _finished_games(connection: Connection, ids: list[int]) -> list[FinishedGame]:
    rows = connection.execute(
        lines_query().where(results.c.game_id.in_(ids)).order_by(results.c.rank, results.c.seat)
    ).all()
    started = dict(
        connection.execute(select(games.c.id, games.c.started_at).where(games.c.id.in_(ids))).all()
    )
    lines: dict[int, list[ResultLine]] = {game_id: [] for game_id in ids}
    for row in rows:
        lines[row.game_id].append(ResultLine(*row))
    return [
        FinishedGame(
            game_id, found[0].finished_at, found[0].rules_key, tuple(found), started.get(game_id)
        )
        for game_id, found in lines.items()
        if found
    ]


def finished_games(
    store: Store,
    offset: int,
    limit: int,
    *,
    household: int,
    player_id: int | None = None,
    count: int | None = None,
) -> list[FinishedGame]:
    """The household's finished games, or only those `player_id` played, the latest first,
    each with every player's result. With ``count``, how many there are, a page near the
    end is read from there (store/paging.py)."""
    # The same page either way; each is read from the table whose index holds it in order.
    if player_id is None:
        page = select(games.c.id).where(
            games.c.household_id == household, games.c.status == FINISHED
        )
        order = (By(games.c.finished_at, descending=True), By(games.c.id, descending=True))
    else:
        # The household is checked on the player, once, rather than on each result: the
        # page's ids then come from the (player, finished_at, game_id) index alone.
        page = select(results.c.game_id).where(
            results.c.player_id == player_id,
            exists().where(players.c.id == player_id, players.c.household_id == household),
        )
        order = (
            By(results.c.finished_at, descending=True),
            By(results.c.game_id, descending=True),
        )
    with store.engine.connect() as connection:
        ids = [row[0] for row in page_keys(connection, page, order, offset, limit, count)]
        return _finished_games(connection, ids)
