"""Benchmark of one household's pages in a database of 10 and of 10,000 households.

    PYTHONPATH=. python bench/households.py [--households 10000] [--small 10] [--games 3]

Budget (issue 16): the hall of fame, a player page and the home page of one household cost
the same whether the database holds 10 households or 10,000 (ratio <= 1.2x). Figures and
ratios measured in one run; not a test.

Both databases hold the same measured household (the home one: 1,000 finished games of 8
players, as bench/halloffame.py makes them, and 3 games in progress); every other household
has 8 players of its own, ``--games`` finished games of the same rule sets and one game in
progress, so that every table the pages read is shared with the others. Rows are inserted in
bulk; the counters come from the store's own rebuild. The two apps are then timed turn about
(median of ``--repeat``, test client), so that a busy machine weighs on both alike.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections import Counter
from datetime import timedelta
from pathlib import Path

from sqlalchemy import insert

from bench.halloffame import (
    ENTRIES_INSERT,
    HOUSEHOLD,
    PLAYER_COUNTS,
    RULE_SETS,
    SPACING,
    START,
    build_pool,
    fill,
    median_page_times,
)
from scorekeeper.app import DATABASE_FILE, STORE_EXTENSION, create_app
from scorekeeper.store import FINISHED, HOME_HOUSEHOLD, IN_PROGRESS, Store
from scorekeeper.store.results import canonical_rules, rebuild_player_aggregates, rules_key
from scorekeeper.store.schema import (
    entries,
    game_players,
    games,
    households,
    players,
    results,
    rule_sets,
)

BUDGET_RATIO = 1.2
HOME_GAMES = 1_000
HOUSEHOLD_BATCH = 500
PAGES = {"/hall-of-fame": "hall of fame", "/players/1": "player page", "/": "home page"}


def fill_others(store: Store, count: int, games_each: int, seed: int) -> None:
    """Add ``count`` households besides the home one, each with its players and games."""
    rng = random.Random(seed)
    pool = build_pool(rng)
    kinds = [index for index, (_options, weight) in enumerate(RULE_SETS) for _ in range(weight)]
    sizes = [size for size, share in PLAYER_COUNTS for _ in range(share)]
    stored_time = entries.c.created_at.type.bind_processor(store.engine.dialect)
    with store.engine.connect() as connection:
        next_game = connection.scalar(games.select().with_only_columns(games.c.id)
                                      .order_by(games.c.id.desc()).limit(1)) + 1
    for first in range(2, count + 2, HOUSEHOLD_BATCH):
        rows: dict[str, list] = {name: [] for name in (
            "households", "players", "rule_sets", "games", "seats", "entries", "results")}
        for household in range(first, min(first + HOUSEHOLD_BATCH, count + 2)):
            rows["households"].append({"id": household, "name": f"Maison {household}",
                                       "name_key": f"maison {household}",
                                       "passphrase_hash": None, "created_at": START})
            ids = [household * len(HOUSEHOLD) + seat for seat in range(len(HOUSEHOLD))]
            rows["players"].extend({"id": player_id, "household_id": household, "name": name,
                                    "name_key": name.casefold(), "created_at": START}
                                   for player_id, name in zip(ids, HOUSEHOLD, strict=True))
            counts: dict[str, Counter] = {}
            for number in range(games_each + 1):
                size = rng.choice(sizes)
                rules, log, seat_rows = rng.choice(pool[rng.choice(kinds), size])
                seated = rng.sample(ids, size)
                created = START + number * SPACING
                finished = created + timedelta(minutes=30)
                in_progress = number == games_each
                rows["games"].append({
                    "id": next_game, "household_id": household,
                    "rules": json.dumps(rules.to_dict(), sort_keys=True),
                    "status": IN_PROGRESS if in_progress else FINISHED,
                    "created_at": created, "updated_at": finished,
                    "finished_at": None if in_progress else finished})
                rows["seats"].extend({"game_id": next_game, "seat": seat, "player_id": player,
                                      "name": HOUSEHOLD[ids.index(player)]}
                                     for seat, player in enumerate(seated))
                played = log[:len(log) // 2] if in_progress else log
                rows["entries"].extend(
                    (next_game, seq, seat, column, box, dice, points, stored_time(finished))
                    for seq, (seat, column, box, dice, points) in enumerate(played))
                if not in_progress:
                    rows["results"].extend({**row, "game_id": next_game,
                                            "household_id": household, "finished_at": finished,
                                            "player_id": seated[row["seat"]]}
                                           for row in seat_rows)
                    key = seat_rows[0]["rules_key"]
                    counts.setdefault(key, Counter()).update(games=1, results=size)
                next_game += 1
            texts = {rules_key(options): canonical_rules(options) for options, _ in RULE_SETS}
            rows["rule_sets"].extend({"household_id": household, "key": key,
                                      "rules": texts[key], **counted}
                                     for key, counted in counts.items())
        with store.engine.begin() as connection:
            for table in (households, players, rule_sets, games):
                connection.execute(insert(table), rows[table.name])
            connection.execute(insert(game_players), rows["seats"])
            connection.exec_driver_sql(ENTRIES_INSERT, rows["entries"])
            if rows["results"]:
                connection.execute(insert(results), rows["results"])
        print(f"  {min(first + HOUSEHOLD_BATCH, count + 2) - 1:>6,} households", end="\r",
              file=sys.stderr)
    print(file=sys.stderr)
    with store.engine.begin() as connection:
        rebuild_player_aggregates(connection)


def build(folder: Path, households_count: int, games_each: int) -> tuple:
    app = create_app({"TESTING": True}, instance_path=folder)
    store = app.extensions[STORE_EXTENSION]
    start = time.perf_counter()
    fill(store, HOME_GAMES, seed=HOME_GAMES)
    for names in (["Mag", "Alix"], ["Bob"], ["Zoé", "Léa", "Paul"]):
        store.create_game({}, names, household=HOME_HOUSEHOLD)
    fill_others(store, households_count - 1, games_each, seed=households_count)
    figures = {"households": households_count, "fill_s": time.perf_counter() - start,
               "size_mb": (folder / DATABASE_FILE).stat().st_size / 1e6}
    return app, figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--households", type=int, default=10_000)
    parser.add_argument("--small", type=int, default=10)
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-households-") as folder:
        built = [build(Path(folder) / "small", args.small, args.games),
                 build(Path(folder) / "large", args.households, args.games)]
        medians = median_page_times([app for app, _figures in built], PAGES, args.repeat)
    print(f"{'households':>11} {'fill (s)':>9} {'db (MB)':>8} "
          + " ".join(f"{name + ' (ms)':>18}" for name in PAGES.values()))
    for (_app, figures), median in zip(built, medians, strict=True):
        print(f"{figures['households']:>11,} {figures['fill_s']:>9.1f} "
              f"{figures['size_mb']:>8.1f} " + " ".join(f"{median[url]:>18.1f}" for url in PAGES))
    ratios = {url: medians[1][url] / medians[0][url] for url in PAGES}
    print(f"{'ratio':>11} {'':>9} {'':>8} " + " ".join(f"{ratios[url]:>17.2f}x" for url in PAGES)
          + f"   (budget {BUDGET_RATIO:.1f}x)")
    within = max(ratios.values()) <= BUDGET_RATIO
    print("within budget" if within else "OVER BUDGET")
    sys.exit(0 if within else 1)


if __name__ == "__main__":
    main()
