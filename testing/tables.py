"""The aggregate tables of the results, as stored and as they should be: the hall of fame's
counters (scorekeeper.store.results) are a cache of the replays, never a second truth, and
the tests and the hall-of-fame bench compare the two.
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any

from sqlalchemy import Connection, select

from scorekeeper.rules import Rules
from scorekeeper.rules.results import canonical_rules, rules_key
from scorekeeper.store.counters import PLAYER_COUNTERS, player_deltas
from scorekeeper.store.records import FINISHED
from scorekeeper.store.results import result_rows, stored_state
from scorekeeper.store.schema import games, player_box_stats, player_stats, results, rule_sets


def expected_tables(connection: Connection) -> dict[str, list[dict[str, Any]]]:
    """Every aggregate row recomputed from scratch by replaying every finished game.

    What the incremental writes must always equal; the tests compare the two.
    """
    finished = connection.execute(
        select(games.c.id, games.c.household_id, games.c.finished_at).where(
            games.c.status == FINISHED
        )
    ).all()
    rows: list[dict[str, Any]] = []
    texts: dict[str, str] = {}
    for game in finished:
        rules, player_ids, state = stored_state(connection, game.id)
        if state.is_over:
            texts[rules_key(rules)] = canonical_rules(rules)
            rows.extend(
                result_rows(game.id, game.household_id, rules, game.finished_at, player_ids, state)
            )
    by_pair: dict[tuple, list[dict]] = defaultdict(list)
    for row in rows:
        by_pair[row["player_id"], row["rules_key"]].append(row)
    for pair_rows in by_pair.values():
        streak = 0
        for row in sorted(pair_rows, key=lambda row: (row["finished_at"], row["game_id"])):
            streak = streak + 1 if row["bonus_columns"] == row["column_count"] else 0
            row["bonus_streak"] = streak
    boxes_of = {key: Rules.from_dict(json.loads(text)).boxes for key, text in texts.items()}
    stats, boxes = player_deltas(rows, boxes_of)
    return {
        "results": sorted(rows, key=lambda row: (row["game_id"], row["seat"])),
        "rule_sets": sorted(
            (
                {
                    "household_id": household,
                    "key": key,
                    "rules": texts[key],
                    "games": sum(
                        1
                        for row in rows
                        if (row["household_id"], row["rules_key"]) == (household, key)
                        and row["seat"] == 0
                    ),
                    "results": sum(
                        1
                        for row in rows
                        if (row["household_id"], row["rules_key"]) == (household, key)
                    ),
                }
                for household, key in {(row["household_id"], row["rules_key"]) for row in rows}
            ),
            key=lambda row: (row["household_id"], row["key"]),
        ),
        "player_stats": sorted(
            (
                {
                    "player_id": player_id,
                    "rules_key": key,
                    **{name: counters[name] for name in PLAYER_COUNTERS},
                }
                for (player_id, key), counters in stats.items()
            ),
            key=lambda row: (row["player_id"], row["rules_key"]),
        ),
        "player_box_stats": sorted(
            (
                {
                    "player_id": player_id,
                    "rules_key": key,
                    "box": box,
                    "filled": counters["filled"],
                    "barred": counters["barred"],
                }
                for (player_id, key, box), counters in boxes.items()
            ),
            key=lambda row: (row["player_id"], row["rules_key"], row["box"]),
        ),
    }


def stored_tables(connection: Connection) -> dict[str, list[dict[str, Any]]]:
    """The aggregate tables as stored, in the shape and order of ``expected_tables``."""
    orders = {
        "results": (results, (results.c.game_id, results.c.seat)),
        "rule_sets": (rule_sets, (rule_sets.c.household_id, rule_sets.c.key)),
        "player_stats": (player_stats, (player_stats.c.player_id, player_stats.c.rules_key)),
        "player_box_stats": (
            player_box_stats,
            (player_box_stats.c.player_id, player_box_stats.c.rules_key, player_box_stats.c.box),
        ),
    }
    return {
        name: [dict(row._mapping) for row in connection.execute(select(table).order_by(*order))]
        for name, (table, order) in orders.items()
    }
