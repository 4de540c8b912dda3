"""Benchmark of the hall of fame and a player page at 1,000 and at 100,000 finished games,
and of the first, middle and last page of every paged list at 100,000.

    python bench/halloffame.py [--games 100000] [--small 1000] [--repeat 30]
        [--in-progress 20000] [--admin-url postgresql://USER@HOST/postgres]

Budgets: with 100,000 finished games each page answers in at most 2x its time at 1,000
games (issue 5), and the last page of every list in at most 1.2x its first (issue 29).
Figures and ratios measured in one run; not a test. With --admin-url both instances are
PostgreSQL databases made (and dropped) on that server, else SQLite files.

The data is a household of 8 players, so that a player's history grows with the number of
games: the worst case for the player page. Games are of four rule sets (classique 70 %,
triple 15 %, yatzy 10 %, classique with la vache 5 %), 1 to 4 players, one every 45
minutes. Each game is a random legal game that the rules engine played (drawn from a pool,
so that generating 100,000 games takes seconds, not hours), with its players and dates of
its own. Games, entries and results are inserted in bulk; the results come from the same
seat_results() the store uses when a game finishes, and the players' counters and streaks
from the store's own rebuild_player_aggregates(). For the small instance, the cache is then
compared with a replay of every game.

The large instance also holds --in-progress games left open (by a ninth player, so that
the eight players' pages stay as they were), for the list of games in progress.

Both instances are built first, then measured turn about (small, large, small, ...), so
that the other work of a shared machine weighs on both alike: the ratio of the medians
is what the budget is about. The pages of the lists are measured the same way, the first,
middle and last page of each taken turn about on the large instance.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import create_engine, func, insert, select, text, update

from scorekeeper.app import DATABASE_FILE, STORE_EXTENSION, create_app
from scorekeeper.rules import Rules
from scorekeeper.rules.results import canonical_rules, rules_key
from scorekeeper.store import FINISHED, HOME_HOUSEHOLD, IN_PROGRESS, Store
from scorekeeper.store.engine import engine_url
from scorekeeper.store.results import rebuild_player_aggregates, result_rows
from scorekeeper.store.schema import (
    entries,
    game_players,
    games,
    player_stats,
    players,
    results,
    rule_sets,
)
from testing.samples import random_state
from testing.tables import expected_tables, stored_tables

BUDGET_RATIO = 2.0
DEEP_BUDGET_RATIO = 1.2
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


def insert_entries(connection, rows: list[tuple]) -> None:
    """The entries' rows straight to the driver: SQLite's executemany, PostgreSQL's COPY
    (an INSERT a row would take the fill from minutes to an hour)."""
    if connection.dialect.name == "sqlite":
        connection.exec_driver_sql(ENTRIES_INSERT, rows)
        return
    columns = ENTRIES_INSERT[len("INSERT INTO entries ") : ENTRIES_INSERT.index(" VALUES")]
    with connection.connection.driver_connection.cursor() as cursor:
        with cursor.copy(f"COPY entries {columns} FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)


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
            insert_entries(connection, rows["entries"])
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


def fill_in_progress(store: Store, count: int, first_id: int) -> None:
    """``count`` games in progress of a ninth player, changed in the last hours (so that
    the list shows them) and never played."""
    now = datetime.now(UTC)
    with store.engine.begin() as connection:
        guest = len(HOUSEHOLD) + 1
        connection.execute(
            insert(players),
            [
                {
                    "id": guest,
                    "household_id": HOME_HOUSEHOLD,
                    "name": "Invité",
                    "name_key": "invité",
                    "created_at": START,
                }
            ],
        )
        ids = range(first_id, first_id + count)
        changed = [now - timedelta(seconds=index) for index in range(count)]
        connection.execute(
            insert(games),
            [
                {
                    "id": game_id,
                    "household_id": HOME_HOUSEHOLD,
                    "rules": json.dumps(Rules().to_dict(), sort_keys=True),
                    "status": IN_PROGRESS,
                    "created_at": at,
                    "updated_at": at,
                    "finished_at": None,
                }
                for game_id, at in zip(ids, changed, strict=True)
            ],
        )
        connection.execute(
            insert(game_players),
            [
                {"game_id": game_id, "seat": 0, "player_id": guest, "name": "Invité"}
                for game_id in ids
            ],
        )


def fresh_database(admin_url: str, name: str, drop: bool = False) -> str:
    """A new empty database on the server (dropped first if it exists), or with ``drop``
    only dropped; its URL."""
    admin = create_engine(engine_url(admin_url), isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            if not drop:
                connection.execute(text(f'CREATE DATABASE "{name}"'))
    finally:
        admin.dispose()
    return engine_url(admin_url).set(database=name).render_as_string(hide_password=False)


def build(
    folder: Path, count: int, check: bool, in_progress: int = 0, database_url: str | None = None
) -> tuple:
    """An app on a new instance holding ``count`` finished games (and ``in_progress``
    open ones), and its figures."""
    config = {"TESTING": True}
    if database_url:
        # The fill's statements (a COPY of 150,000 entries) run longer than a request's may.
        config.update(DATABASE_URL=database_url, DATABASE_STATEMENT_TIMEOUT_SECONDS=3600)
    app = create_app(config, instance_path=folder)
    store = app.extensions[STORE_EXTENSION]
    start = time.perf_counter()
    fill(store, count, seed=count)
    if in_progress:
        fill_in_progress(store, in_progress, first_id=count + 1)
    if database_url:
        # What autovacuum would have done by then: statistics, and the visibility map that
        # lets an index be read without the table.
        with store.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.execute(text("VACUUM ANALYZE"))
            size = connection.scalar(text("SELECT pg_database_size(current_database())"))
    else:
        size = (folder / DATABASE_FILE).stat().st_size
    figures = {
        "games": count,
        "fill_s": time.perf_counter() - start,
        "size_mb": size / 1e6,
    }
    if check:
        with store.engine.connect() as connection:
            assert stored_tables(connection) == expected_tables(connection), "cache differs"
        print(f"{count:,} games: the cache equals a replay of every game", file=sys.stderr)
    return app, figures


def paged_lists(app) -> dict[str, tuple[str, int]]:
    """Each paged list of the app's household: its URL without the page, and its last page
    (from the counts the pages themselves are numbered by, and their sizes)."""
    store = app.extensions[STORE_EXTENSION]
    with store.engine.connect() as connection:
        most_played = connection.execute(
            select(rule_sets.c.key, rule_sets.c.results)
            .where(rule_sets.c.household_id == HOME_HOUSEHOLD)
            .order_by(rule_sets.c.games.desc(), rule_sets.c.key)
            .limit(1)
        ).one()
        finished = connection.scalar(select(func.sum(rule_sets.c.games)))
        player_games = connection.scalar(
            select(func.sum(player_stats.c.games)).where(player_stats.c.player_id == 1)
        )
        player_count = connection.scalar(select(func.count()).select_from(players))
        open_games = connection.scalar(
            select(func.count()).select_from(games).where(games.c.status == IN_PROGRESS)
        )

    def last(count: int, size: int) -> int:
        return max(1, -(-count // size))

    return {
        "best totals": ("/hall-of-fame?page=", last(most_played.results, 10)),
        "latest games": ("/hall-of-fame?recent=", last(finished, 10)),
        "a player's games": ("/players/1?page=", last(player_games, 20)),
        "players": ("/players?page=", last(player_count, 50)),
        "games in progress": ("/games/in-progress?page=", last(open_games, 50)),
    }


def timed_ms(client, url: str) -> float:
    start = time.perf_counter()
    response = client.get(url)
    elapsed = (time.perf_counter() - start) * 1000
    assert response.status_code == 200, url
    return elapsed


def page_times(apps, urls, repeat: int) -> list[dict[str, list[float]]]:
    """Each app's times of each page in ms: the apps and pages taken turn about, so that
    whatever else the machine does slows them alike (three warm-up requests each)."""
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
    return times


def median_page_times(apps, urls, repeat: int) -> list[dict[str, float]]:
    """Each app's median time of each page in ms, measured by page_times."""
    return [
        {url: statistics.median(measured[url]) for url in urls}
        for measured in page_times(apps, urls, repeat)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--small", type=int, default=1_000)
    parser.add_argument("--in-progress", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--admin-url", help="a PostgreSQL server's URL (else SQLite)")
    args = parser.parse_args()
    pages = {"/hall-of-fame": "hall", "/players/1": "player"}
    # Named after the process, so that two runs (before and after a change) may share a server.
    names = tuple(
        f"scorekeeper_bench_halloffame_{size}_{os.getpid()}" for size in ("small", "large")
    )
    urls = (
        [fresh_database(args.admin_url, name) for name in names] if args.admin_url else [None, None]
    )
    try:
        with tempfile.TemporaryDirectory(prefix="bench-halloffame-") as folder:
            built = [
                build(Path(folder) / "small", args.small, check=True, database_url=urls[0]),
                build(
                    Path(folder) / "large",
                    args.games,
                    check=False,
                    in_progress=args.in_progress,
                    database_url=urls[1],
                ),
            ]
            large_app = built[1][0]
            lists = paged_lists(large_app)
            deep = {
                name: [f"{url}{number}" for number in (1, (last + 1) // 2, last)]
                for name, (url, last) in lists.items()
            }
            medians = median_page_times([app for app, _figures in built], pages, args.repeat)
            deep_times = page_times(
                [large_app], [url for found in deep.values() for url in found], args.repeat
            )[0]
    finally:
        for name in names if args.admin_url else ():
            fresh_database(args.admin_url, name, drop=True)
    engine = "PostgreSQL" if args.admin_url else "SQLite"
    print(f"{engine}, load average {' '.join(f'{load:.1f}' for load in os.getloadavg())}")
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
    print(
        f"\nPages of each list at {args.games:,} finished games and {args.in_progress:,} in"
        f" progress, ms: median, then lowest of {args.repeat} (the page with the least of the"
        " machine's other work on top); each page's ratio to the first of the same kind,"
        f" budget {DEEP_BUDGET_RATIO:.1f} for the last"
    )
    print(f"{'list':>18} {'pages':>6} {'first':>15} {'middle':>29} {'last':>29}")
    deep_ratios = []
    for name, urls_of_list in deep.items():
        first = deep_times[urls_of_list[0]]
        cells = [f"{statistics.median(first):>7.1f} {min(first):>7.1f}"]
        for url in urls_of_list[1:]:
            median, lowest = statistics.median(deep_times[url]), min(deep_times[url])
            ratios = (median / statistics.median(first), lowest / min(first))
            cells.append(f"{median:>7.1f} {lowest:>7.1f} {ratios[0]:>5.2f}x {ratios[1]:>5.2f}x")
        deep_ratios.append(ratios[0])
        print(f"{name:>18} {lists[name][1]:>6,} " + " ".join(cells))
    within = max(hall_ratio, player_ratio) <= BUDGET_RATIO and max(deep_ratios) <= DEEP_BUDGET_RATIO
    print("within budget" if within else "OVER BUDGET")
    sys.exit(0 if within else 1)


if __name__ == "__main__":
    main()
