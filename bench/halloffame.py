"""Benchmark of the hall of fame and a player page at 1,000 and at 100,000 finished games.

    python bench/halloffame.py [--games 100000] [--small 1000] [--repeat 30]

Budget (issue 5): with 100,000 finished games each page answers in at most 2x its time at
1,000 games. Figures and ratio measured in one run; not a test.

The data is a household of 8 players, so that a player's history grows with the number of
games: the worst case for the player page. Games are of four rule sets (classique 70 %,
triple 15 %, yatzy 10 %, classique with la vache 5 %), 1 to 4 players, one every 45
minutes. Each game is a random legal game that the rules engine played (drawn from a pool,
so that generating 100,000 games takes seconds, not hours), with its players and dates of
its own. Games, entries and results are inserted in bulk; the results come from the same
seat_results() the store uses when a game finishes, and the players' counters and streaks
from the store's own rebuild_player_aggregates(). For the small instance, the cache is then
compared with a replay of every game.

Both instances are built first, then measured turn about (small, large, small, ...), so
that the other work of a shared machine weighs on both alike: the ratio of the medians
is what the budget is about.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import insert, update

from scorekeeper.app import DATABASE_FILE, STORE_EXTENSION, create_app
from scorekeeper.rules import Rules
from scorekeeper.store import FINISHED, HOME_HOUSEHOLD, Store
from scorekeeper.store.results import (
    canonical_rules,
    rebuild_player_aggregates,
    result_rows,
    rules_key,
)
from scorekeeper.store.schema import entries, game_players, games, players, results, rule_sets
from testing.samples import random_state
from testing.tables import expected_tables, stored_tables

BUDGET_RATIO = 2.0
HOUSEHOLD = ["Mag", "Alix", "Bob", "Zoé", "Jean", "Léa", "Paul", "Inès"]
RULE_SETS = [
    ({"preset": "classique"}, 70),
    ({"preset": "triple"}, 15),
    ({"preset": "yatzy"}, 10),
    ({"vache": True}, 5),
]
PLAYER_COUNTS = [(1, 10), (2, 45), (3, 30), (4, 15)]
POOL_PER_KIND = 12
BATCH = 5000
START = datetime(2016, 1, 1, 19, tzinfo=UTC)
SPACING = timedelta(minutes=45)
ENTRIES_INSERT = (
    'INSERT INTO entries (game_id, seq, seat, "column", box, dice, score, created_at)'
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)


def build_pool(rng: random.Random) -> dict[tuple[int, int], list]:
    """Random finished games per (rule set, player count): their log and seat results."""
    pool = {}
    for index, (options, _weight) in enumerate(RULE_SETS):
        rules = Rules.from_dict(options)
        for count, _share in PLAYER_COUNTS:
            games_of_kind = []
            for _ in range(POOL_PER_KIND):
                state = random_state(rules, [f"P{seat}" for seat in range(count)], rng)
                log = [
                    (
                        entry.player,
                        entry.column,
                        entry.box,
                        "".join(map(str, entry.dice)),
                        state.sheets[entry.player].columns[entry.column].cells[entry.box].points,
                    )
                    for entry in state.entries
                ]
                # Player ids are given later; seats stand in for them here.
                rows = result_rows(
                    0, HOME_HOUSEHOLD, rules.to_dict(), START, list(range(count)), state
                )
                games_of_kind.append((rules, log, rows))
            pool[index, count] = games_of_kind
    return pool


def fill(store: Store, count: int, seed: int) -> None:
    """Insert ``count`` finished games in bulk, then rebuild the players' aggregates."""
    rng = random.Random(seed)
    pool = build_pool(rng)
    kinds = [index for index, (_options, weight) in enumerate(RULE_SETS) for _ in range(weight)]
    sizes = [size for size, share in PLAYER_COUNTS for _ in range(share)]
    counts = {rules_key(options): [0, 0] for options, _weight in RULE_SETS}
    # Entries are most of the rows: they go straight to the driver, their date written by
    # the column type's own bind processor, as the store writes it.
    stored_time = entries.c.created_at.type.bind_processor(store.engine.dialect)
    with store.engine.begin() as connection:
        connection.execute(
            insert(players),
            [
                {
                    "id": number,
                    "household_id": HOME_HOUSEHOLD,
                    "name": name,
                    "name_key": name.casefold(),
                    "created_at": START,
                }
                for number, name in enumerate(HOUSEHOLD, start=1)
            ],
        )
        connection.execute(
            insert(rule_sets),
            [
                {
                    "household_id": HOME_HOUSEHOLD,
                    "key": rules_key(options),
                    "rules": canonical_rules(options),
                    "games": 0,
                    "results": 0,
                }
                for options, _weight in RULE_SETS
            ],
        )
    for first in range(0, count, BATCH):
        rows: dict[str, list] = {"games": [], "seats": [], "entries": [], "results": []}
        for game_id in range(first + 1, min(first + BATCH, count) + 1):
            size = rng.choice(sizes)
            rules, log, seat_rows = rng.choice(pool[rng.choice(kinds), size])
            seated = rng.sample(range(1, len(HOUSEHOLD) + 1), size)
            created = START + (game_id - 1) * SPACING
            finished = created + timedelta(minutes=30)
            rows["games"].append(
                {
                    "id": game_id,
                    "household_id": HOME_HOUSEHOLD,
                    "rules": json.dumps(rules.to_dict(), sort_keys=True),
                    "status": FINISHED,
                    "created_at": created,
                    "updated_at": finished,
                    "finished_at": finished,
                }
            )
            rows["seats"].extend(
                {
                    "game_id": game_id,
                    "seat": seat,
                    "player_id": player_id,
                    "name": HOUSEHOLD[player_id - 1],
                }
                for seat, player_id in enumerate(seated)
            )
            written = stored_time(finished)
            rows["entries"].extend(
                (game_id, seq, seat, column, box, dice, points, written)
                for seq, (seat, column, box, dice, points) in enumerate(log)
            )
            rows["results"].extend(
                {
                    **row,
                    "game_id": game_id,
                    "finished_at": finished,
                    "player_id": seated[row["seat"]],
                }
                for row in seat_rows
            )
            key = seat_rows[0]["rules_key"]
            counts[key][0] += 1
            counts[key][1] += size
        with store.engine.begin() as connection:
            connection.execute(insert(games), rows["games"])
            connection.execute(insert(game_players), rows["seats"])
            connection.exec_driver_sql(ENTRIES_INSERT, rows["entries"])
            connection.execute(insert(results), rows["results"])
        print(f"  {min(first + BATCH, count):>7,} games", end="\r", file=sys.stderr)
    print(file=sys.stderr)
    with store.engine.begin() as connection:
        for key, (game_count, result_count) in counts.items():
            connection.execute(
                update(rule_sets)
                .where(rule_sets.c.key == key)
                .values(games=game_count, results=result_count)
            )
        connection.execute(rule_sets.delete().where(rule_sets.c.games == 0))
        rebuild_player_aggregates(connection)


def build(folder: Path, count: int, check: bool) -> tuple:
    """An app on a new instance holding ``count`` finished games, and its figures."""
    app = create_app({"TESTING": True}, instance_path=folder)
    store = app.extensions[STORE_EXTENSION]
    start = time.perf_counter()
    fill(store, count, seed=count)
    figures = {
        "games": count,
        "fill_s": time.perf_counter() - start,
        "size_mb": (folder / DATABASE_FILE).stat().st_size / 1e6,
    }
    if check:
        with store.engine.connect() as connection:
            assert stored_tables(connection) == expected_tables(connection), "cache differs"
        print(f"{count:,} games: the cache equals a replay of every game", file=sys.stderr)
    return app, figures


def timed_ms(client, url: str) -> float:
    start = time.perf_counter()
    response = client.get(url)
    elapsed = (time.perf_counter() - start) * 1000
    assert response.status_code == 200, url
    return elapsed


def median_page_times(apps, urls, repeat: int) -> list[dict[str, float]]:
    """Each app's median time of each page in ms: the apps and pages taken turn about, so
    that whatever else the machine does slows them alike (three warm-up requests each)."""
    clients = [app.test_client() for app in apps]
    times = [{url: [] for url in urls} for _ in apps]
    for url in urls:
        for client in clients:
            for _ in range(3):
                timed_ms(client, url)
    for _ in range(repeat):
        for url in urls:
            for client, measured in zip(clients, times, strict=True):
                measured[url].append(timed_ms(client, url))
    for app in apps:
        app.extensions[STORE_EXTENSION].dispose()
    return [{url: statistics.median(measured[url]) for url in urls} for measured in times]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--small", type=int, default=1_000)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    pages = {"/hall-of-fame": "hall", "/players/1": "player"}
    with tempfile.TemporaryDirectory(prefix="bench-halloffame-") as folder:
        built = [
            build(Path(folder) / "small", args.small, check=True),
            build(Path(folder) / "large", args.games, check=False),
        ]
        medians = median_page_times([app for app, _figures in built], pages, args.repeat)
    rows = [
        {**figures, **{name: median[url] for url, name in pages.items()}}
        for (_app, figures), median in zip(built, medians, strict=True)
    ]
    small, large = rows
    print(
        f"{'finished games':>16} {'fill (s)':>9} {'db (MB)':>8} "
        f"{'/hall-of-fame (ms)':>19} {'/players/1 (ms)':>16}"
    )
    for figures in rows:
        print(
            f"{figures['games']:>16,} {figures['fill_s']:>9.1f} {figures['size_mb']:>8.1f} "
            f"{figures['hall']:>19.1f} {figures['player']:>16.1f}"
        )
    hall_ratio = large["hall"] / small["hall"]
    player_ratio = large["player"] / small["player"]
    print(
        f"{'ratio':>16} {'':>9} {'':>8} {hall_ratio:>19.2f} {player_ratio:>16.2f}"
        f"   (budget {BUDGET_RATIO:.1f})"
    )
    within = max(hall_ratio, player_ratio) <= BUDGET_RATIO
    print("within budget" if within else "OVER BUDGET")
    sys.exit(0 if within else 1)


if __name__ == "__main__":
    main()
