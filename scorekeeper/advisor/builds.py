"""The strategy tables of one server: loaded on demand, a bounded number kept, and the
missing ones built in a worker process, one build at a time, while requests go on.

A rule set needs one table per column kind (Triple: three). A build takes seconds of numpy
work (3 s for a free column, 6 s for Yatzy, a fraction of a second for an ordered column,
minutes with Plus et Moins, on one quiet core): in its own process, its memory leaves with
it and it runs at a lower priority than the request threads. The builds households asked for
wait in a fair queue (scorekeeper/fairness.py): one household asking for many tables gets
one built in its turn, between the others'. A lock file in the instance folder makes the
builds one at a time across processes too (gunicorn).

Where the chances to win are computed (``winning.has_win_chances``), the same turn then
builds the table's *spreads* (the moments of the points to come, tens of seconds), in a
second worker process: the Conseil is there as soon as its table is, « Pour gagner » once
the spreads are. One ``WinChances`` per rule set is kept beside its strategy, bounded too.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import logging
import multiprocessing
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import TYPE_CHECKING

from scorekeeper.advisor.tables import CACHE_GLOB, cache_path, has_win_chances
from scorekeeper.fairness import FairQueue
from scorekeeper.rules.options import Rules
from scorekeeper.workers import end_with, lower_priority

if TYPE_CHECKING:
    from scorekeeper.advisor.strategy import Strategy
    from scorekeeper.advisor.winning import WinChances

logger = logging.getLogger(__name__)

# Strategies kept loaded (their tables are mapped from their files, shared by the server's
# processes), and files kept on disk: 3 MB for a free column's table and 9 MB for its
# spreads, 80 MB with Plus et Moins, a few kB for an ordered one. Hundreds of rule sets
# exist, few are played. As many chances to win are kept as strategies.
KEPT_IN_MEMORY = 4
KEPT_ON_DISK = 16
# How often the watching thread reads the worker's progress.
POLL_SECONDS = 0.2
LOCK_FILE = "advisor-build.lock"
# glibc's mallopt parameters, and what the build's arrays need: tens of megabytes.
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
REUSED_BYTES = 1 << 30


def reuse_freed_memory() -> None:
    """Keep freed arrays in the process's heap instead of handing them back to the system.

    The build frees and allocates arrays of megabytes thousands of times; each one mapped
    afresh costs page faults, a quarter of the build's CPU as system time. Only for a
    process that ends with its build: its memory leaves with it. Without glibc, nothing.
    """
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(M_MMAP_THRESHOLD, REUSED_BYTES)
        libc.mallopt(M_TRIM_THRESHOLD, REUSED_BYTES)
    except (OSError, AttributeError):
        pass


def build_in_worker(rules: Rules, instance_dir: str, done: ctypes.c_double) -> None:
    """The body of the worker process: build the table (unless another process just did)
    and save it, publishing the share of states solved in ``done``."""
    lower_priority()  # a turn played during a build keeps its speed
    end_with(os.getppid())  # spawned by the server itself: a build for nobody stops
    reuse_freed_memory()
    Path(instance_dir).mkdir(parents=True, exist_ok=True)
    with open(Path(instance_dir) / LOCK_FILE, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)

        def progress(solved: int, total: int) -> None:
            done.value = solved / total

        from scorekeeper.advisor.strategy import load_or_build

        load_or_build(rules, instance_dir, progress)


def build_spreads_in_worker(rules: Rules, instance_dir: str, done: ctypes.c_double) -> None:
    """The body of the worker process that builds the spreads of a table already built (the
    chances to win need them), publishing the share of states done in ``done``."""
    lower_priority()
    reuse_freed_memory()
    with open(Path(instance_dir) / LOCK_FILE, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)

        def progress(solved: int, total: int) -> None:
            done.value = solved / total

        from scorekeeper.advisor.futures import load_or_build_spreads
        from scorekeeper.advisor.strategy import load

        strategy = load(rules, instance_dir)
        load_or_build_spreads(rules, strategy.tables["free"], instance_dir, progress)


class Strategies:
    """The tables of one app. ``get`` never waits for a build, nor starts one: ``build``
    queues one, and ``progress`` then tells how far it went."""

    def __init__(
        self,
        instance_path: str,
        worker: Callable = build_in_worker,
        kept_in_memory: int = KEPT_IN_MEMORY,
        kept_on_disk: int = KEPT_ON_DISK,
        spreads_worker: Callable = build_spreads_in_worker,
    ) -> None:
        self.instance_path = instance_path
        self.worker = worker
        self.spreads_worker = spreads_worker
        self.kept_in_memory = kept_in_memory
        self.kept_on_disk = kept_on_disk
        self.loaded: OrderedDict[Rules, Strategy] = OrderedDict()  # least recently used first
        self.chances_loaded: OrderedDict[Rules, WinChances] = OrderedDict()
        # Rule sets waiting or being built, with the share of states solved.
        self.building: dict[Rules, float] = {}
        self.lock = threading.Lock()
        # One build at a time; the households that asked take turns.
        self.queue = FairQueue(places=1)

    def get(self, rules: Rules) -> Strategy | None:
        """The strategy for these rules, from memory or disk; None while it is missing."""
        with self.lock:
            if rules in self.loaded:
                self.loaded.move_to_end(rules)
                return self.loaded[rules]
            if rules in self.building:
                return None
        return self._load(rules)

    def chances(self, rules: Rules) -> WinChances | None:
        """The chances to win of these rules, from memory or disk; None while their table or
        its spreads are missing (or being built), and for rules without them."""
        with self.lock:
            if rules in self.chances_loaded:
                self.chances_loaded.move_to_end(rules)
                return self.chances_loaded[rules]
            if rules in self.building:
                return None
        return self._load_chances(rules)

    def build(self, rules: Rules, *, household: Hashable, with_chances: bool = True) -> bool:
        """Queue a build of these rules' table, then of its spreads where the chances to
        win need them (unless ``with_chances`` is False: a game of one player), in
        ``household``'s turn; False when it is queued or being built already."""
        with self.lock:
            if rules in self.building:
                return False
            self.building[rules] = 0.0
        threading.Thread(
            target=self._build_in_turn, args=(rules, household, with_chances), daemon=True
        ).start()
        return True

    def progress(self, rules: Rules) -> float | None:
        """The share of the build done (0 while it waits for another one), or None when no
        build of these rules is queued."""
        with self.lock:
            return self.building.get(rules)

    def _load(self, rules: Rules) -> Strategy | None:
        # Imported at the first advice asked for: a server nobody asks starts and idles
        # without numpy (a sixth of a second, and a third of its memory).
        from scorekeeper.advisor.strategy import load

        strategy = load(rules, self.instance_path)
        if strategy is None:
            return None
        for kind in rules.columns:  # the disk's recently used order
            with contextlib.suppress(OSError):
                os.utime(cache_path(rules, self.instance_path, kind))
        with self.lock:
            self.loaded[rules] = strategy
            self.loaded.move_to_end(rules)
            while len(self.loaded) > self.kept_in_memory:
                self.loaded.popitem(last=False)
        return strategy

    def _load_chances(self, rules: Rules) -> WinChances | None:
        from scorekeeper.advisor.futures import load_spreads, spreads_path
        from scorekeeper.advisor.winning import WinChances

        if not has_win_chances(rules):
            return None
        strategy = self.get(rules)
        if strategy is None:
            return None
        values = strategy.tables["free"]
        spreads = load_spreads(rules, values, self.instance_path)
        if spreads is None:
            return None
        with contextlib.suppress(OSError):  # the disk's recently used order
            os.utime(spreads_path(rules, self.instance_path))
        chances = WinChances(rules, values, spreads)
        with self.lock:
            chances = self.chances_loaded.setdefault(rules, chances)
            self.chances_loaded.move_to_end(rules)
            while len(self.chances_loaded) > self.kept_in_memory:
                self.chances_loaded.popitem(last=False)
        return chances

    def _build_in_turn(self, rules: Rules, household: Hashable, with_chances: bool) -> None:
        """A waiting build's thread: the build, in the household's turn."""
        try:
            with self.queue.place(household):
                if self._load(rules) is None:  # another process may have built it meanwhile
                    self._build(rules, self.worker)
                # The spreads once the table is there, in the same turn.
                wanted = with_chances and has_win_chances(rules)
                if wanted and self.get(rules) and not self._load_chances(rules):
                    with self.lock:
                        self.building[rules] = 0.0
                    self._build(rules, self.spreads_worker)
        except Exception:
            # A failed build (a full disk, say) is retried by the next request that asks.
            logger.exception("the advisor's table could not be built")
        finally:
            with self.lock:
                del self.building[rules]

    def _build(self, rules: Rules, worker: Callable) -> None:
        context = multiprocessing.get_context("spawn")  # no copy of the server's threads
        done = context.Value("d", 0.0, lock=False)
        process = context.Process(
            target=worker, args=(rules, self.instance_path, done), daemon=True
        )
        process.start()
        while process.is_alive():
            process.join(POLL_SECONDS)
            with self.lock:
                self.building[rules] = done.value
        if process.exitcode != 0:
            raise RuntimeError(f"the build process ended with code {process.exitcode}")
        self._load(rules)
        self._forget_old_files()

    def _forget_old_files(self) -> None:
        """The least recently used tables beyond ``kept_on_disk`` are deleted (rebuilt if
        asked for again); a strategy loaded keeps reading its mapped files."""
        used = []
        for path in Path(self.instance_path).glob(CACHE_GLOB):
            with contextlib.suppress(FileNotFoundError):  # another process deleted it
                used.append((path.stat().st_mtime, path))
        used.sort(reverse=True)
        for _mtime, path in used[self.kept_on_disk :]:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
