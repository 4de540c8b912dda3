"""The turn that finishes a game against an ordinary turn.

    python -m bench.finish [--games 60] [--database-url URL]

Plays whole random games of two players through the app's entry form (Flask's test client,
no network), on a fresh SQLite file or on the given database, which must be empty, and
times every POST of an entry. The finishing turn also writes the game's results and adds
them to the counters of the hall of fame and the player pages. Prints the median and p95 of
both kinds of turn and the ratio of the medians (goal <= 2x).
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from bench.server import percentile
from scorekeeper.app import STORE_EXTENSION, create_app
from scorekeeper.play import start_game
from scorekeeper.rules import Rules, read_document
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.games import game_version
from scorekeeper.store.quotas import NO_QUOTAS
from testing.samples import random_document

PLAYERS = ["Mag", "Alix"]


def run(app, games: int) -> str:
    store = app.extensions[STORE_EXTENSION]
    rng = random.Random(13)
    ordinary: list[float] = []
    finishing: list[float] = []
    for _ in range(games):
        parsed = read_document(random_document(Rules(), PLAYERS, rng))
        game_id = start_game(
            store, parsed.rules, parsed.players, household=HOME_HOUSEHOLD, quotas=NO_QUOTAS
        )
        # A client per game, as a table has: the session keeps a little of each game seen.
        client = app.test_client()
        for seq, entry in enumerate(parsed.entries):
            version = game_version(store, game_id, household=HOME_HOUSEHOLD)
            form = {
                "seq": seq,
                "version": version.token,
                "dice": "".join(map(str, entry.dice)),
                "target": f"{entry.column}:{entry.box}",
                "confirm": "1",
            }
            start = time.perf_counter()
            response = client.post(f"/games/{game_id}/entries", data=form)
            elapsed = (time.perf_counter() - start) * 1000
            assert response.status_code == 303, response.status
            (finishing if seq == len(parsed.entries) - 1 else ordinary).append(elapsed)
    ratio = statistics.median(finishing) / statistics.median(ordinary)
    return (
        f"{store.engine.dialect.name}, {games} games: "
        f"ordinary turn p50 {statistics.median(ordinary):.2f} ms "
        f"p95 {percentile(ordinary, 0.95):.2f} ms; "
        f"finishing turn p50 {statistics.median(finishing):.2f} ms "
        f"p95 {percentile(finishing, 0.95):.2f} ms; ratio {ratio:.2f}x (goal <= 2x)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--database-url", help="an empty database (default: a new SQLite file)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        config = {"WTF_CSRF_ENABLED": False}
        if args.database_url:
            config["DATABASE_URL"] = args.database_url
        app = create_app(config, instance_path=Path(folder))
        try:
            print(run(app, args.games))
        finally:
            app.extensions[STORE_EXTENSION].dispose()


if __name__ == "__main__":
    main()
