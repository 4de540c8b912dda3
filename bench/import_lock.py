"""How long an import of 12,000 games holds the write lock, and what a turn meanwhile gets.

    python -m bench.import_lock [--games 12000] [--database-url URL]

Makes random finished games (1 to 4 players of a household of 8, Classique; 500 distinct
ones, repeated), checks them as `scorekeeper import` does (no lock), then writes them with
``import_games``, timed. The write lock is timed too: in every transaction of the import,
from its first write to a table of the games (on SQLite that takes the database's write
lock; temporary tables are another database) to the end of its commit. Meanwhile another
thread plays turns on a game of the same database, each a transaction of its own, and
counts the ones refused as locked.

A temporary SQLite file by default; ``--database-url`` names an empty database instead
(PostgreSQL: there no lock is global, and the time is that of the transaction's writes).
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

from scorekeeper.play import load, play_turn, start_game
from scorekeeper.rules import Rules
from scorekeeper.store import HOME_HOUSEHOLD, Store
from scorekeeper.store.documents import check_files
from scorekeeper.store.quotas import NO_QUOTAS
from scorekeeper.store.transfer import import_games
from testing.samples import random_document

HOUSEHOLD = ("Mag", "Alix", "Sam", "Lou", "Jo", "Noé", "Tom", "Zoé")
GOAL_SECONDS = 2.0


# Distinct games made, then repeated up to the count: each is imported as a game of its own.
DISTINCT = 500


def documents(count: int, rng: random.Random) -> list[dict]:
    made = [
        random_document(Rules(), rng.sample(HOUSEHOLD, rng.randint(1, 4)), rng)
        for _ in range(min(count, DISTINCT))
    ]
    return [made[number % len(made)] for number in range(count)]


class LockClock:
    """The times the current thread's transactions held the write lock, from the first
    write to a table of the games to the end of the commit; and the counter rows that a
    finishing game updates too, from the first upsert of a counter to the commit."""

    def __init__(self, store: Store) -> None:
        self.thread = threading.get_ident()
        self.held: list[float] = []
        self.counters_held: list[float] = []
        self.since: float | None = None
        self.counters_since: float | None = None
        dialect = store.engine.dialect
        commit = dialect.do_commit

        def timed_commit(dbapi_connection) -> None:
            commit(dbapi_connection)
            if threading.get_ident() != self.thread:
                return
            ended = time.perf_counter()
            if self.since is not None:
                self.held.append(ended - self.since)
            if self.counters_since is not None:
                self.counters_held.append(ended - self.counters_since)
            self.since = self.counters_since = None

        dialect.do_commit = timed_commit
        event.listen(store.engine, "before_cursor_execute", self._statement)

    def _statement(self, _connection, _cursor, statement: str, *_args) -> None:
        if threading.get_ident() != self.thread:
            return
        words = statement.split(None, 3)
        writes = words[0] in ("INSERT", "UPDATE", "DELETE")
        # The staging tables of an import are temporary: no lock on the games' database.
        if (
            writes
            and self.since is None
            and not any(word.startswith("import_") for word in words[1:3])
        ):
            self.since = time.perf_counter()
        if self.counters_since is None and "DO UPDATE" in statement:
            self.counters_since = time.perf_counter()


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
        game_id = start_game(
            self.store, Rules(), ["Mag", "Alix"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS
        )
        while not self.stop.is_set():
            record, state = load(self.store, game_id, household=HOME_HOUSEHOLD)
            if state.is_over:
                game_id = start_game(
                    self.store, Rules(), ["Mag", "Alix"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS
                )
                continue
            dice = tuple(rng.randint(1, 6) for _ in range(5))
            box = state.placement(state.active_player, "free", dice).boxes[0]
            started = time.perf_counter()
            try:
                play_turn(
                    self.store,
                    game_id,
                    len(record.entries),
                    "free",
                    box,
                    dice,
                    household=HOME_HOUSEHOLD,
                )
            except OperationalError:
                self.locked += 1
            self.times.append(time.perf_counter() - started)
            self.stop.wait(0.05)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=12000)
    parser.add_argument(
        "--database-url", help="an empty database (default: a temporary SQLite file)"
    )
    args = parser.parse_args()
    started = time.perf_counter()
    text = json.dumps(documents(args.games, random.Random(15)))
    made = time.perf_counter() - started
    started = time.perf_counter()
    checked = check_files([("games.json", text)])
    check_time = time.perf_counter() - started
    with tempfile.TemporaryDirectory(prefix="bench-import-") as folder:
        store = Store(args.database_url or f"sqlite:///{Path(folder, 'scorekeeper.sqlite3')}")
        store.migrate()
        locked = LockClock(store)
        turns = Turns(store)
        turns.start()
        try:
            time.sleep(0.5)
            started = time.perf_counter()
            ids = import_games(store, checked, household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
            write_time = time.perf_counter() - started
            time.sleep(0.5)
        finally:
            turns.stop.set()
            turns.join()
            store.dispose()
    lock_time = sum(locked.held)
    assert len(ids) == args.games
    slowest = max(turns.times) if turns.times else 0.0
    print(f"import: {args.games} games, {len(text) / 1e6:.1f} MB of JSON (made in {made:.1f} s)")
    print(f"  check (replays, no lock): {check_time:.1f} s")
    print(f"  import_games (rows made and staged, then one transaction): {write_time:.2f} s")
    print(
        f"  write lock held (first write to commit, {len(locked.held)} transactions): "
        f"{lock_time:.2f} s "
        f"(goal <= {GOAL_SECONDS:.0f} s): {lock_time / GOAL_SECONDS:.2f}x the goal"
    )
    print(
        f"  counter rows a finishing game also updates, locked: {sum(locked.counters_held):.2f} s"
    )
    print(
        f"  turns played meanwhile: {len(turns.times)}, refused as locked: {turns.locked}, "
        f"slowest {slowest * 1000:.0f} ms"
    )


if __name__ == "__main__":
    main()
