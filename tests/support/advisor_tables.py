"""The Conseil's real tables, built once per run and shared by every test process.

The classique table takes a few seconds of a core and its spreads about a minute; Triple,
Yams 6 and Sec a few seconds each. Each test process built its own, or waited for another
to build them while its core stood idle. They are built in one folder beside the test
processes' own (pytest-xdist's pattern for data shared by its workers), under a file lock:
whoever holds it builds what is missing, the others wait for it and read what it saved.

The build starts with the run, in a background process, as soon as the collected tests
show that some need the tables: it fills the cores' idle time (tests waiting for a server,
a browser, a worker), and the tests that need the tables come later. It is not niced: on a
machine that other work keeps busy, a niced build got no CPU while tests waited for it.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from filelock import FileLock

from scorekeeper.advisor.builds import Strategies
from scorekeeper.advisor.spreads import load_or_build_spreads
from scorekeeper.advisor.strategy import load_or_build
from scorekeeper.advisor.tables import cache_path
from scorekeeper.rules import Rules

CLASSIQUE = Rules()
# Rule sets whose pages are checked on their real tables, beside the classique one: Triple
# (Descendante, Montante, Libre), Yams 6, Sec, Yahtzee with Verhoeff's joker and Kniffel
# (Plus et Moins takes minutes, tests/advisor checks its table on end-game sheets). La vache,
# and Yahtzee with its official joker, play on the classique table.
MORE_RULES = (
    Rules.from_dict({"preset": "triple"}),
    Rules(dice=6),
    Rules(columns=("free", "sec")),
    Rules.from_dict({"preset": "yahtzee", "joker": "free_choice"}),
    Rules.from_dict({"preset": "kniffel"}),
)
# The fixture (tests/conftest.py) of the tests that read the shared tables: a run that
# collects none of them builds nothing.
FIXTURE = "shared_tables"
FOLDER = "advisor-tables"
# The longest a test waits for the build: the spreads on a core that other work keeps busy.
WAIT_SECONDS = 900


def shared_folder(basetemp: Path) -> Path:
    """The folder of the shared tables for a test process whose own folder is ``basetemp``."""
    root = basetemp.parent if os.environ.get("PYTEST_XDIST_WORKER") else basetemp
    folder = root / FOLDER
    folder.mkdir(exist_ok=True)
    return folder


def _lock(folder: Path) -> FileLock:
    return FileLock(folder.with_suffix(".lock"), timeout=WAIT_SECONDS)


def build(folder: Path) -> Path:
    """Every shared table in ``folder``, built now if missing; the classique table's path.

    The classique table is built by the server's own worker process (Strategies.build), and
    its spreads here, rather than in that worker, which yields to every other process."""
    with _lock(folder):
        strategies = Strategies(str(folder))
        if strategies.get(CLASSIQUE) is None:
            assert strategies.build(CLASSIQUE, household=1, with_chances=False)
            deadline = time.monotonic() + WAIT_SECONDS
            while strategies.progress(CLASSIQUE) is not None:
                assert time.monotonic() < deadline, "the classique table was not built"
                time.sleep(0.2)
        load_or_build_spreads(CLASSIQUE, strategies.get(CLASSIQUE).tables["free"], folder)
        for rules in MORE_RULES:
            load_or_build(rules, folder)
    return cache_path(CLASSIQUE, folder)


def tables_of(rules: Rules, folder: Path) -> list[Path]:
    """The files of the tables of ``rules`` (one a column kind) in the shared ``folder``."""
    return sorted({cache_path(rules, folder, kind) for kind in rules.columns})


@contextlib.contextmanager
def built_early(basetemp: Path, fixturenames: set[str]) -> Iterator[None]:
    """The build started in the background when the collected tests need it (by the first
    test process to come, the others find it started), and ended with the run, finished or
    not."""
    folder = shared_folder(basetemp)
    if FIXTURE not in fixturenames:
        yield
        return
    try:
        os.close(os.open(folder / "started", os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        yield
        return
    early = subprocess.Popen(
        [sys.executable, "-m", "tests.support.advisor_tables", str(folder)],
        cwd=Path(__file__).resolve().parents[2],
    )
    try:
        yield
    finally:
        early.kill()
        early.wait(timeout=10)


if __name__ == "__main__":
    build(Path(sys.argv[1]))
