"""Results of finished games: a cache of their replay, and the running aggregates built on it.

When a game finishes, the replay of its stored log gives each seat's result (totals, Yams,
barred boxes, rank), written in ``results``. Each result is added to the counters that the
player pages read (``player_stats``, ``player_box_stats``) and to its rule set's counts
(``rule_sets``). An undo that reopens the game, or deleting it, subtracts exactly what was
added, so reading a page never scans the history. Nothing here is a second truth: the tests
recompute every row from the replays (testing/tables.py) and compare.

Every function takes an open connection and runs inside the caller's transaction.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import json
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Mapping
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Table, bindparam, delete, exists, insert, select, tuple_, update

from scorekeeper.rules import Entry, GameState, RuleError, Rules, replay
from scorekeeper.rules.results import seat_results
from scorekeeper.store.records import FINISHED
from scorekeeper.store.schema import (
    entries,
    game_players,
    games,
    player_box_stats,
    player_stats,
    results,
    rule_sets,
)

RULES_KEY_LENGTH = 16

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


def canonical_rules(rules: Mapping[str, Any]) -> str:
    """The one JSON text of a set of rules, whatever defaults its dict left implicit."""
    return json.dumps(Rules.from_dict(dict(rules)).to_dict(), sort_keys=True, separators=(",", ":"))


def rules_key(rules: Mapping[str, Any]) -> str:
    """The key grouping comparable games: equal rules give equal keys in every instance."""
    digest = hashlib.sha256(canonical_rules(rules).encode("utf-8")).hexdigest()
    return digest[:RULES_KEY_LENGTH]


def result_rows(
    game_id: int,
    household: int,
    rules: Mapping[str, Any],
    finished_at: datetime,
    player_ids: list[int],
    state: GameState,
) -> list[dict[str, Any]]:
    """The ``results`` rows of a finished game of ``household``, its players' ids given by
    seat."""
    key = rules_key(rules)
    return [
        {
            **asdict(result),
            "game_id": game_id,
            "household_id": household,
            "player_id": player_ids[result.seat],
            "rules_key": key,
            "finished_at": finished_at,
            "bonus_streak": 0,
        }
        for result in seat_results(state)
    ]


_SEATED_PLAYER_IDS = (
    select(game_players.c.player_id)
    .where(game_players.c.game_id == bindparam("game_id"))
    .order_by(game_players.c.seat)
)


def _seated_player_ids(connection: Connection, game_id: int) -> list[int]:
    return list(connection.scalars(_SEATED_PLAYER_IDS, {"game_id": game_id}))


def stored_state(connection: Connection, game_id: int) -> tuple[dict, list[int], GameState]:
    """A stored game's rules (as stored), its players' ids by seat, and the replay of its log."""
    rules = json.loads(connection.scalar(select(games.c.rules).where(games.c.id == game_id)))
    seats = connection.execute(
        select(game_players.c.player_id, game_players.c.name)
        .where(game_players.c.game_id == game_id)
        .order_by(game_players.c.seat)
    ).all()
    log = connection.execute(
        select(entries.c.seat, entries.c.column, entries.c.box, entries.c.dice)
        .where(entries.c.game_id == game_id)
        .order_by(entries.c.seq)
    ).all()
    state = replay(
        Rules.from_dict(rules),
        [seat.name for seat in seats],
        (Entry(row.seat, row.column, row.box, tuple(int(d) for d in row.dice)) for row in log),
    )
    return rules, [seat.player_id for seat in seats], state


def record_results(
    connection: Connection,
    game_id: int,
    finished_at: datetime,
    state: GameState | None = None,
    *,
    household: int,
) -> None:
    """Cache the results of a game of ``household`` that has just finished, from a replay
    of its stored log.

    ``state`` is that replay when the caller has just made it (the turn that finished the
    game, on the log it checked was still the stored one); else the log is replayed here.
    A log that does not replay to the end has no results: only finished games are ranked.
    """
    if state is None:
        rules, player_ids, state = stored_state(connection, game_id)
    else:
        rules, player_ids = state.rules.to_dict(), _seated_player_ids(connection, game_id)
    if not state.is_over:
        return
    rows = result_rows(game_id, household, rules, finished_at, player_ids, state)
    insert_results(connection, rows, {rows[0]["rules_key"]: canonical_rules(rules)})


def insert_results(
    connection: Connection, rows: list[dict[str, Any]], rules_texts: Mapping[str, str]
) -> None:
    """Write results rows and add them to every aggregate; ``rules_texts`` maps their keys
    to canonical rules."""
    if not rows:
        return
    delta = ResultsDelta.of(rows, rules_texts, +1)
    delta.add_to_counters(connection)
    connection.execute(insert(results), rows)
    delta.restreak(connection)


def forget_results(connection: Connection, game_id: int) -> None:
    """Remove a game's results and take them out of every aggregate (an undo, a deletion)."""
    rows = [
        dict(row._mapping)
        for row in connection.execute(select(results).where(results.c.game_id == game_id))
    ]
    if not rows:
        return
    rules_texts = _rules_texts(connection, (row["rules_key"] for row in rows))
    delta = ResultsDelta.of(rows, rules_texts, -1)
    delta.add_to_counters(connection)
    connection.execute(delete(results).where(results.c.game_id == game_id))
    delta.restreak(connection)
    # Emptied counter rows go last: rule sets are referenced by the results.
    player_ids = {row["player_id"] for row in rows}
    connection.execute(
        delete(player_box_stats).where(
            player_box_stats.c.player_id.in_(player_ids), player_box_stats.c.filled == 0
        )
    )
    connection.execute(
        delete(player_stats).where(
            player_stats.c.player_id.in_(player_ids), player_stats.c.games == 0
        )
    )
    connection.execute(
        delete(rule_sets).where(
            rule_sets.c.household_id == rows[0]["household_id"],
            rule_sets.c.key.in_(rules_texts),
            rule_sets.c.games == 0,
        )
    )


def backfill_results(connection: Connection) -> None:
    """Cache the results of the finished games that have none (those finished before the
    results existed); a no-op once every finished game has them."""
    missing = connection.execute(
        select(games.c.id, games.c.household_id, games.c.finished_at, games.c.updated_at)
        .where(games.c.status == FINISHED)
        .where(~exists().where(results.c.game_id == games.c.id))
        .order_by(games.c.finished_at, games.c.id)
    ).all()
    for game in missing:
        try:
            record_results(
                connection,
                game.id,
                game.finished_at or game.updated_at,
                household=game.household_id,
            )
        except RuleError:
            # A log the rules refuse cannot be ranked; it must not stop the app starting.
            continue


def rebuild_player_aggregates(
    connection: Connection, player_ids: Collection[int] | None = None
) -> None:
    """Recompute the counters and streaks of some players (all when None) from their results.

    Used where many results change owner or arrive at once (a merge, a bulk load), where
    adding them one by one would cost more than starting again.
    """
    stats_delete, boxes_delete = delete(player_stats), delete(player_box_stats)
    query = select(results)
    if player_ids is not None:
        stats_delete = stats_delete.where(player_stats.c.player_id.in_(player_ids))
        boxes_delete = boxes_delete.where(player_box_stats.c.player_id.in_(player_ids))
        query = query.where(results.c.player_id.in_(player_ids))
    connection.execute(boxes_delete)
    connection.execute(stats_delete)
    rows = [dict(row._mapping) for row in connection.execute(query)]
    rules_texts = _rules_texts(connection, (row["rules_key"] for row in rows))
    ResultsDelta.of(rows, rules_texts, +1).add_to_players(connection)
    for player_id, key in sorted({(row["player_id"], row["rules_key"]) for row in rows}):
        _restreak(connection, player_id, key, None)


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
            _restreak(connection, player_id, key, since)


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
        counters["cells"] += row["column_count"] * len(boxes_of[row["rules_key"]])
        counters["barred_count"] += row["barred_count"]
        # A finished game fills every box of every column once.
        for box in boxes_of[row["rules_key"]]:
            boxes[pair + (box,)]["filled"] += row["column_count"]
        for cell in row["barred_cells"].split():
            boxes[pair + (cell.partition(":")[2],)]["barred"] += 1
    return stats, boxes


def _rules_texts(connection: Connection, keys: Iterable[str]) -> dict[str, str]:
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


# The statements of _restreak, built once. The start point is typed like the columns, so
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


def _restreak(connection: Connection, player_id: int, key: str, since: tuple | None) -> None:
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
