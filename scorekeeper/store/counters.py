"""The running aggregates built on the results of finished games: each player's counters
(``player_stats``, ``player_box_stats``), each rule set's counts (``rule_sets``), and the
players' runs of upper bonuses. A finishing game adds its results' share, an undo or a
deletion subtracts exactly it, an import adds many at once (store/results.py says when).

Every function takes an open connection and runs inside the caller's transaction.
"""

from __future__ import annotations

import functools
import importlib
import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Table, bindparam, select, tuple_, update

from scorekeeper.rules import Rules
from scorekeeper.store.schema import player_box_stats, player_stats, results, rule_sets

PLAYER_COUNTERS = (
    "games",
    "duels",
    "wins",
    "total_sum",
    "column_count",
    "bonus_columns",
    "yams_games",
    "yams_count",
    "cells",
    "barred_count",
)
BOX_COUNTERS = ("filled", "barred")
RULE_SET_COUNTERS = ("games", "results")


@dataclass(frozen=True)
class ResultsDelta:
    """What some results rows add to (or, signed -1, take from) every aggregate: the rows
    of the upserts, and where each player's bonus streaks must be recounted from.

    Made without the database, so that an import makes it before its transaction; a player
    is whatever the results rows hold in ``player_id``, an id or, until the ids are known,
    any other key that ``for_players`` later maps to them.
    """

    rule_sets: list[dict[str, Any]]
    player_stats: list[dict[str, Any]]
    player_box_stats: list[dict[str, Any]]
    # (player, rules key, (finished_at, game_id) of the earliest of their rows).
    streaks_since: list[tuple[Any, str, tuple]]

    @classmethod
    def of(
        cls, rows: Iterable[Mapping[str, Any]], rules_texts: Mapping[str, str], sign: int
    ) -> ResultsDelta:
        rows = list(rows)
        sets: dict[tuple[int, str], Counter] = defaultdict(Counter)
        earliest: dict[tuple[Any, str], tuple] = {}
        for row in rows:
            sets[row["household_id"], row["rules_key"]]["results"] += 1
            sets[row["household_id"], row["rules_key"]]["games"] += row["seat"] == 0
            pair = (row["player_id"], row["rules_key"])
            point = (row["finished_at"], row["game_id"])
            if pair not in earliest or point < earliest[pair]:
                earliest[pair] = point
        stats, boxes = player_deltas(rows, _boxes_of(rules_texts))
        return cls(
            rule_sets=[
                {
                    "household_id": household,
                    "key": key,
                    "rules": rules_texts[key],
                    "games": sign * delta["games"],
                    "results": sign * delta["results"],
                }
                for (household, key), delta in sets.items()
            ],
            player_stats=[
                {
                    "player_id": player,
                    "rules_key": key,
                    **{name: sign * delta[name] for name in PLAYER_COUNTERS},
                }
                for (player, key), delta in stats.items()
            ],
            player_box_stats=[
                {
                    "player_id": player,
                    "rules_key": key,
                    "box": box,
                    **{name: sign * delta[name] for name in BOX_COUNTERS},
                }
                for (player, key, box), delta in boxes.items()
            ],
            streaks_since=[
                (player, key, since) for (player, key), since in sorted(earliest.items())
            ],
        )

    def for_players(self, ids: Mapping[Any, int]) -> ResultsDelta:
        """The same delta, each player given by ``ids[player]``."""
        return ResultsDelta(
            self.rule_sets,
            [{**row, "player_id": ids[row["player_id"]]} for row in self.player_stats],
            [{**row, "player_id": ids[row["player_id"]]} for row in self.player_box_stats],
            sorted((ids[player], key, since) for player, key, since in self.streaks_since),
        )

    def open_rule_sets(self, connection: Connection) -> None:
        """Make the rule sets that have no row yet, nothing counted, without locking the
        others: results, which refer to them, can then be written before the counters are
        locked (an import locks them only for its last statements)."""
        if self.rule_sets:
            statement = dialect_insert(connection.dialect.name)(rule_sets)
            connection.execute(
                statement.on_conflict_do_nothing(index_elements=["household_id", "key"]),
                [{**row, "games": 0, "results": 0} for row in self.rule_sets],
            )

    def add_to_counters(self, connection: Connection) -> None:
        # Counter rows always in the same order (rule sets, then players), whoever adds or
        # takes away: two games finishing or reopening at once wait on each other instead
        # of deadlocking.
        _add_counters(
            connection, rule_sets, ("household_id", "key"), RULE_SET_COUNTERS, self.rule_sets
        )
        self.add_to_players(connection)

    def add_to_players(self, connection: Connection) -> None:
        _add_counters(
            connection, player_stats, ("player_id", "rules_key"), PLAYER_COUNTERS, self.player_stats
        )
        _add_counters(
            connection,
            player_box_stats,
            ("player_id", "rules_key", "box"),
            BOX_COUNTERS,
            self.player_box_stats,
        )

    def restreak(self, connection: Connection) -> None:
        """Recount the bonus streaks the rows change, once they are written (or deleted)."""
        for player_id, key, since in self.streaks_since:
            restreak(connection, player_id, key, since)


def player_deltas(
    rows: Iterable[Mapping[str, Any]], boxes_of: Mapping[str, tuple[str, ...]]
) -> tuple[dict[tuple, Counter], dict[tuple, Counter]]:
    """What results rows add to ``player_stats`` and ``player_box_stats``, by primary key."""
    stats: dict[tuple, Counter] = defaultdict(Counter)
    boxes: dict[tuple, Counter] = defaultdict(Counter)
    for row in rows:
        pair = (row["player_id"], row["rules_key"])
        counters = stats[pair]
        counters["games"] += 1
        counters["duels"] += row["player_count"] > 1
        counters["wins"] += bool(row["won"])
        counters["total_sum"] += row["total"]
        counters["column_count"] += row["column_count"]
        counters["bonus_columns"] += row["bonus_columns"]
        counters["yams_games"] += row["yams_count"] > 0
        counters["yams_count"] += row["yams_count"]
        empty = row["empty_cells"].split()
        counters["cells"] += row["column_count"] * len(boxes_of[row["rules_key"]]) - len(empty)
        counters["barred_count"] += row["barred_count"]
        # A finished game fills every box of every column once, but those a game won at once
        # (a Generala servida) left empty.
        for box in boxes_of[row["rules_key"]]:
            boxes[pair + (box,)]["filled"] += row["column_count"]
        for cell in empty:
            boxes[pair + (cell.partition(":")[2],)]["filled"] -= 1
        for cell in row["barred_cells"].split():
            boxes[pair + (cell.partition(":")[2],)]["barred"] += 1
    return stats, boxes


def stored_rules_texts(connection: Connection, keys: Iterable[str]) -> dict[str, str]:
    return dict(
        connection.execute(
            select(rule_sets.c.key, rule_sets.c.rules)
            .where(rule_sets.c.key.in_(set(keys)))
            .distinct()
        ).all()
    )


def _boxes_of(rules_texts: Mapping[str, str]) -> dict[str, tuple[str, ...]]:
    return {key: Rules.from_dict(json.loads(text)).boxes for key, text in rules_texts.items()}


def _add_counters(
    connection: Connection,
    table: Table,
    key_names: tuple[str, ...],
    counters: tuple[str, ...],
    rows: list[dict[str, Any]],
) -> None:
    """Add each row's counters to the stored row of the same key, making the rows missing.

    One upsert for every row, so that two transactions adding to one row both count; the
    rows go in key order, so that every transaction locks rows in one order. Rows whose
    count falls to 0 are left for the caller to delete.
    """
    if rows:
        connection.execute(
            _upsert(connection.dialect.name, table, key_names, counters),
            sorted(rows, key=lambda row: [row[name] for name in key_names]),
        )


def dialect_insert(dialect: str):
    """The INSERT that has ON CONFLICT, on the store's two engines: imported from the
    dialect in use, so that a start on SQLite never loads PostgreSQL's (a twentieth of a
    second)."""
    return importlib.import_module(f"sqlalchemy.dialects.{dialect}").insert


@functools.cache
def _upsert(dialect: str, table: Table, key_names: tuple[str, ...], counters: tuple[str, ...]):
    # Built once: building it costs more than running it.
    statement = dialect_insert(dialect)(table)
    # RETURNING makes SQLAlchemy send the rows as one multi-row statement ("insertmanyvalues")
    # where the driver would send one statement a row: one round trip instead of thirty.
    return statement.on_conflict_do_update(
        index_elements=key_names,
        set_={name: table.c[name] + statement.excluded[name] for name in counters},
    ).returning(table.c[key_names[0]])


# The statements of restreak, built once. The start point is typed like the columns, so
# that the datetime is written as the column stores it.
_PAIR = (results.c.player_id == bindparam("player_id")) & (
    results.c.rules_key == bindparam("rules_key")
)
_ORDER = (results.c.finished_at, results.c.game_id)
_START = tuple_(
    bindparam("since_at", type_=results.c.finished_at.type),
    bindparam("since_game", type_=results.c.game_id.type),
)
_STREAK_BEFORE = (
    select(results.c.bonus_streak)
    .where(_PAIR, tuple_(*_ORDER) < _START)
    .order_by(*(column.desc() for column in _ORDER))
    .limit(1)
)
_STREAK_ROWS = select(
    results.c.game_id,
    results.c.seat,
    results.c.column_count,
    results.c.bonus_columns,
    results.c.bonus_streak,
).where(_PAIR)
_STREAK_ROWS_SINCE = _STREAK_ROWS.where(tuple_(*_ORDER) >= _START).order_by(*_ORDER)
_STREAK_ROWS = _STREAK_ROWS.order_by(*_ORDER)
_SET_STREAK = (
    update(results)
    .where(results.c.game_id == bindparam("g"), results.c.seat == bindparam("s"))
    .values(bonus_streak=bindparam("streak"))
)


def restreak(connection: Connection, player_id: int, key: str, since: tuple | None) -> None:
    """Recount the bonus streaks of one player's games of one rule set from ``since`` on."""
    pair = {"player_id": player_id, "rules_key": key}
    streak = 0
    later = _STREAK_ROWS
    if since is not None:
        pair.update(since_at=since[0], since_game=since[1])
        streak = connection.scalar(_STREAK_BEFORE, pair) or 0
        later = _STREAK_ROWS_SINCE
    changes = []
    for row in connection.execute(later, pair):
        streak = streak + 1 if row.bonus_columns == row.column_count else 0
        if streak != row.bonus_streak:
            changes.append({"g": row.game_id, "s": row.seat, "streak": streak})
    if changes:
        connection.execute(_SET_STREAK, changes)
