"""What a player's page shows, read from the cached results and the counters: their figures
under each rule set, their boxes, their latest totals and their games in progress.

Every query walks an index from one end or reads a stored counter, so a page costs the
same with a hundred finished games or a hundred thousand.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from sqlalchemy import and_, select

from scorekeeper.rules import Rules
from scorekeeper.store.engine import Store, utc_now
from scorekeeper.store.games import game_summaries, listed
from scorekeeper.store.halloffame import ResultLine, RuleSet, lines_query
from scorekeeper.store.records import ABANDONED, IN_PROGRESS, GameSummary
from scorekeeper.store.schema import (
    game_players,
    games,
    player_box_stats,
    player_stats,
    results,
    rule_sets,
)


@dataclass(frozen=True)
class BoxStats:
    box: str
    filled: int
    barred: int

    @property
    def barred_rate(self) -> float:
        # A box a Generala servida left empty in every game was never filled, nor barred.
        return self.barred / self.filled if self.filled else 0.0


@dataclass(frozen=True)
class PlayerRuleSetStats:
    """A player's figures under one rule set."""

    rule_set: RuleSet
    games: int
    duels: int
    wins: int
    total_sum: int
    column_count: int
    bonus_columns: int
    yams_games: int
    yams_count: int
    cells: int
    barred_count: int
    best: ResultLine
    worst: ResultLine

    @property
    def average(self) -> float:
        return self.total_sum / self.games

    @property
    def bonus_rate(self) -> float:
        return self.bonus_columns / self.column_count

    @property
    def yams_rate(self) -> float:
        return self.yams_games / self.games

    @property
    def barred_rate(self) -> float:
        # A player whose only games were won at once before their first turn filled no box.
        return self.barred_count / self.cells if self.cells else 0.0


def player_rule_set_stats(
    store: Store, player_id: int, *, household: int
) -> list[PlayerRuleSetStats]:
    """A player's figures under each rule set they finished a game of, the most played first."""
    with store.engine.connect() as connection:
        rows = connection.execute(
            select(
                player_stats,
                rule_sets.c.key,
                rule_sets.c.rules,
                rule_sets.c.games.label("set_games"),
                rule_sets.c.results,
            )
            .join(
                rule_sets,
                and_(
                    rule_sets.c.household_id == household,
                    rule_sets.c.key == player_stats.c.rules_key,
                ),
            )
            .where(player_stats.c.player_id == player_id)
            .order_by(player_stats.c.games.desc(), player_stats.c.rules_key)
        ).all()
        found = []
        for row in rows:
            mine = lines_query().where(
                results.c.player_id == player_id,
                results.c.household_id == household,
                results.c.rules_key == row.key,
            )
            by_total = (results.c.total, results.c.finished_at, results.c.game_id)
            worst = connection.execute(mine.order_by(*by_total).limit(1)).one()
            # The best total, then the first game that reached it: both ends of one index.
            top = connection.scalar(
                select(results.c.total)
                .where(results.c.player_id == player_id, results.c.rules_key == row.key)
                .order_by(results.c.total.desc())
                .limit(1)
            )
            best = connection.execute(
                mine.where(results.c.total == top).order_by(*by_total).limit(1)
            ).one()
            found.append(
                PlayerRuleSetStats(
                    rule_set=RuleSet(
                        row.key, Rules.from_dict(json.loads(row.rules)), row.set_games, row.results
                    ),
                    games=row.games,
                    duels=row.duels,
                    wins=row.wins,
                    total_sum=row.total_sum,
                    column_count=row.column_count,
                    bonus_columns=row.bonus_columns,
                    yams_games=row.yams_games,
                    yams_count=row.yams_count,
                    cells=row.cells,
                    barred_count=row.barred_count,
                    best=ResultLine(*best),
                    worst=ResultLine(*worst),
                )
            )
    return found


def player_box_stats_of(
    store: Store, player_id: int, key: str, *, household: int
) -> list[BoxStats]:
    """How often a player barred each box under one rule set, in sheet order."""
    with store.engine.connect() as connection:
        rows = connection.execute(
            select(
                player_box_stats.c.box, player_box_stats.c.filled, player_box_stats.c.barred
            ).where(player_box_stats.c.player_id == player_id, player_box_stats.c.rules_key == key)
        ).all()
        rules_text = connection.scalar(
            select(rule_sets.c.rules).where(
                rule_sets.c.household_id == household, rule_sets.c.key == key
            )
        )
    if rules_text is None:
        return []
    order = {box: index for index, box in enumerate(Rules.from_dict(json.loads(rules_text)).boxes)}
    return sorted((BoxStats(*row) for row in rows), key=lambda stats: order[stats.box])


def player_recent_totals(
    store: Store, player_id: int, key: str, limit: int, *, household: int
) -> list[ResultLine]:
    """A player's latest results under one rule set, oldest first (for the chart)."""
    with store.engine.connect() as connection:
        rows = connection.execute(
            lines_query()
            .where(
                results.c.player_id == player_id,
                results.c.household_id == household,
                results.c.rules_key == key,
            )
            .order_by(results.c.finished_at.desc(), results.c.game_id.desc())
            .limit(limit)
        ).all()
    return [ResultLine(*row) for row in reversed(rows)]


def player_open_games(store: Store, player_id: int, *, household: int) -> list[GameSummary]:
    """A player's games in progress and abandoned ones, the latest played first; those never
    played are left out once a day has passed, as in the list of games in progress."""
    with store.engine.connect() as connection:
        ids = list(
            connection.scalars(
                select(games.c.id)
                .join(
                    game_players,
                    and_(
                        game_players.c.game_id == games.c.id,
                        game_players.c.player_id == player_id,
                    ),
                )
                .where(
                    games.c.household_id == household,
                    games.c.status.in_((IN_PROGRESS, ABANDONED)),
                    listed(utc_now()),
                )
                .order_by(games.c.updated_at.desc(), games.c.id.desc())
            )
        )
        return game_summaries(connection, ids)
