"""The coach: what counting a finished game costs, and what it costs the turn that finishes it.

    python -m bench.coach [--games 300] [--tables DIR]

Builds the classique table in a temporary folder (a few seconds), or reads it from ``--tables``
(a folder holding it, such as an instance's). Then, on a fresh SQLite file:

- the review of two-player classique games as the coach's worker makes it, timed in this
  process (CPU): the first one with numpy imported and the table loaded, then each one;
- ``--games`` finished games imported, then counted by the app's coach through its worker
  process: the wall time, and the server process's CPU a game (loading it, writing it);
- the POST of a finishing turn against an ordinary one (bench.finish), the coach on and
  off, in turns: the ratio of their medians with it, and without it.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from bench.finish import run as finishing_turns
from scorekeeper.app import STORE_EXTENSION, create_app
from scorekeeper.coach import review_games
from scorekeeper.rules import Rules
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.documents import check_files
from scorekeeper.store.quotas import NO_QUOTAS
from scorekeeper.store.records import EntryRecord, GameRecord
from scorekeeper.store.transfer import import_games
from scorekeeper.web.conseil import COACH_EXTENSION
from testing.samples import random_document, random_state

PLAYERS = ["Mag", "Alix"]
TABLE_GLOB = "advisor-*.npy"


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def records(count: int, rng: random.Random) -> list[GameRecord]:
    now = datetime.now(UTC)
    found = []
    for number in range(count):
        state = random_state(Rules(), PLAYERS, rng)
        entries = tuple(
            EntryRecord(seq, entry.player, entry.column, entry.box, tuple(entry.dice), 0)
            for seq, entry in enumerate(state.entries)
        )
        found.append(
            GameRecord(
                number, state.rules.to_dict(), state.players, entries, "finished", now, now, now
            )
        )
    return found


def review_cost(tables: Path) -> str:
    games = records(101, random.Random(1))
    start = cpu()
    review_games(str(tables), games[:1])
    first = cpu() - start
    start = cpu()
    review_games(str(tables), games[1:])
    each = (cpu() - start) / 100
    return (
        f"review in the worker: first game {first * 1000:.0f} ms of CPU (numpy, the table), "
        f"then {each * 1000:.2f} ms a two-player game"
    )


def sweep_cost(tables: Path, games: int) -> str:
    with tempfile.TemporaryDirectory() as folder:
        for table in tables.glob(TABLE_GLOB):
            shutil.copy(table, Path(folder) / table.name)
        app = create_app({"COACH_AFTER_GAMES": True}, instance_path=Path(folder))
        store = app.extensions[STORE_EXTENSION]
        rng = random.Random(3)
        documents = [random_document(Rules(), PLAYERS, rng) for _ in range(games)]
        files = check_files([("games.json", json.dumps(documents))])
        import_games(store, files, household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
        coach = app.extensions[COACH_EXTENSION]
        start, wall = cpu(), time.perf_counter()
        coach.sweep_household(household=HOME_HOUSEHOLD)
        assert coach.wait_idle(3600), "the coach did not finish"
        wall, server = time.perf_counter() - wall, cpu() - start
        coach.workers.shutdown()
        store.dispose()
    return (
        f"{games} games counted in {wall:.1f} s; the server process's CPU "
        f"{server / games * 1000:.2f} ms a game (the worker's, at a lower priority, apart)"
    )


def finishing_cost() -> str:
    lines = []
    for coach in (False, True, False, True):
        with tempfile.TemporaryDirectory() as folder:
            config = {"WTF_CSRF_ENABLED": False, "COACH_AFTER_GAMES": coach}
            app = create_app(config, instance_path=Path(folder))
            try:
                lines.append(("coach on: " if coach else "coach off: ") + finishing_turns(app, 60))
                # Its last game looked at before the folder goes.
                assert app.extensions[COACH_EXTENSION].wait_idle(60)
            finally:
                app.extensions[STORE_EXTENSION].dispose()
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--tables", type=Path, help="a folder with the classique table")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as built:
        tables = args.tables
        if tables is None:
            from scorekeeper.advisor.strategy import load_or_build

            tables = Path(built)
            load_or_build(Rules(), tables)
        print(review_cost(tables))
        print(sweep_cost(tables, args.games))
    print(finishing_cost())


if __name__ == "__main__":
    main()
