"""Results of finished games: a cache of their replay, and the running aggregates built on it
(store/counters.py).

When a game finishes, the replay of its stored log gives each seat's result (totals, Yams,
barred boxes, rank), written in ``results``. Each result is added to the counters that the
player pages read (``player_stats``, ``player_box_stats``) and to its rule set's counts
(``rule_sets``). An undo that reopens the game, or deleting it, subtracts exactly what was
added, so reading a page never scans the history. Nothing here is a second truth: the tests
recompute every row from the replays (testing/tables.py) and compare.

Every function takes an open connection and runs inside the caller's transaction.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import asdict
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, bindparam, delete, exists, insert, select

from scorekeeper.rules import Entry, GameState, RuleError, Rules, replay
from scorekeeper.rules.results import canonical_rules, rules_key, seat_results
from scorekeeper.store.counters import ResultsDelta, restreak, stored_rules_texts
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
        select(
            entries.c.seat,
            entries.c.column,
            entries.c.box,
            entries.c.dice,
            entries.c.throw,
            entries.c.throws,
        )
        .where(entries.c.game_id == game_id)
        .order_by(entries.c.seq)
    ).all()
    state = replay(
        Rules.from_dict(rules),
        [seat.name for seat in seats],
        (
            Entry(
                row.seat,
                row.column,
                row.box,
                tuple(int(d) for d in row.dice),
                row.throw,
                row.throws,
            )
            for row in log
        ),
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
    rules_texts = stored_rules_texts(connection, (row["rules_key"] for row in rows))
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
    rules_texts = stored_rules_texts(connection, (row["rules_key"] for row in rows))
    ResultsDelta.of(rows, rules_texts, +1).add_to_players(connection)
    for player_id, key in sorted({(row["player_id"], row["rules_key"]) for row in rows}):
        restreak(connection, player_id, key, None)
