"""How long an import of 12,000 games holds the write lock, and what a turn meanwhile gets.

    python -m bench.import_lock [--games 12000]

Makes random finished games (1 to 4 players of a household of 8, Classique; 500 distinct
ones, repeated), checks them as `scorekeeper import` does (no lock), then writes them with
``import_games``, timed: on SQLite the write lock is held from the transaction's first
write to its commit, timed too. Meanwhile another thread plays turns on a game of the same
database, each a transaction of its own, and counts the ones refused as locked.
Goal: the lock held within 2 s, and no turn refused.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import threading
import time
from pathlib import Path

from sqlalchemy import event
from sqlalchemy.exc import OperationalError

from scorekeeper.rules import Rules
from scorekeeper.store import Store
from scorekeeper.store.play import load, play_turn, start_game
from scorekeeper.store.samples import random_document
from scorekeeper.store.transfer import check_files, import_games

HOUSEHOLD = ("Mag", "Alix", "Sam", "Lou", "Jo", "Noé", "Tom", "Zoé")
GOAL_SECONDS = 2.0


# Distinct games made, then repeated up to the count: each is imported as a game of its own.
DISTINCT = 500


def documents(count: int, rng: random.Random) -> list[dict]:
    made = [random_document(Rules(), rng.sample(HOUSEHOLD, rng.randint(1, 4)), rng)
            for _ in range(min(count, DISTINCT))]
    return [made[number % len(made)] for number in range(count)]


class Turns(threading.Thread):
    """Turns played one after the other until stopped: their times and the refused ones."""

    def __init__(self, store: Store) -> None:
        super().__init__()
        self.store = store
        self.stop = threading.Event()
        self.times: list[float] = []
        self.locked = 0

    def run(self) -> None:
        rng = random.Random(1)
        game_id = start_game(self.store, Rules(), ["Mag", "Alix"])
        while not self.stop.is_set():
            record, state = load(self.store, game_id)
            if state.is_over:
                game_id = start_game(self.store, Rules(), ["Mag", "Alix"])
                continue
            dice = tuple(rng.randint(1, 6) for _ in range(5))
            box = state.placement(state.active_player, "free", dice).boxes[0]
            started = time.perf_counter()
            try:
                play_turn(self.store, game_id, len(record.entries), "free", box, dice)
            except OperationalError:
                self.locked += 1
            self.times.append(time.perf_counter() - started)
            self.stop.wait(0.05)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=12000)
    args = parser.parse_args()
    started = time.perf_counter()
    text = json.dumps(documents(args.games, random.Random(15)))
    made = time.perf_counter() - started
    started = time.perf_counter()
    checked = check_files([("games.json", text)])
    check_time = time.perf_counter() - started
    with tempfile.TemporaryDirectory(prefix="bench-import-") as folder:
        store = Store(f"sqlite:///{Path(folder, 'scorekeeper.sqlite3')}")
        store.migrate()
        first_write: list[float] = []
        importer = threading.get_ident()

        @event.listens_for(store.engine, "before_cursor_execute")
        def _writes(_connection, _cursor, statement, *_args) -> None:
            if threading.get_ident() == importer and not first_write and (
                    statement.startswith("INSERT")):
                first_write.append(time.perf_counter())

        turns = Turns(store)
        turns.start()
        time.sleep(0.5)
        started = time.perf_counter()
        ids = import_games(store, checked)
        ended = time.perf_counter()
        write_time = ended - started
        lock_time = ended - first_write[0]
        time.sleep(0.5)
        turns.stop.set()
        turns.join()
        store.dispose()
    assert len(ids) == args.games
    slowest = max(turns.times) if turns.times else 0.0
    print(f"import: {args.games} games, {len(text) / 1e6:.1f} MB of JSON "
          f"(made in {made:.1f} s)")
    print(f"  check (replays, no lock): {check_time:.1f} s")
    print(f"  import_games (rows made, then one transaction): {write_time:.2f} s")
    print(f"  write lock held (first insert to commit): {lock_time:.2f} s "
          f"(goal <= {GOAL_SECONDS:.0f} s): {lock_time / GOAL_SECONDS:.2f}x the goal")
    print(f"  turns played meanwhile: {len(turns.times)}, refused as locked: {turns.locked}, "
          f"slowest {slowest * 1000:.0f} ms")


if __name__ == "__main__":
    main()
