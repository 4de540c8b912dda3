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

Built ahead, the first Conseil of a game answers at once: a new game's missing tables are
queued as soon as it is created (web/advice.py), and after a start the tables of the rule
sets most played (``build_ahead``), one process of the server doing it for all of them.
While a build runs, ``remaining`` tells how long it should still take, from its pace.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from scorekeeper.advisor.tables import CACHE_GLOB, cache_path, has_win_chances, tables_saved
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
# Held by the one process of a server (gunicorn runs several) that builds ahead after a start.
AHEAD_LOCK_FILE = "advisor-ahead.lock"
# Who asks for the builds made ahead after a start, in the fair queue beside the households.
AHEAD = "built ahead"
# The rule sets built ahead after a start: classique and Yatzy, the games most played (la
# vache plays on the classique table).
AHEAD_RULES = (Rules(), Rules.from_dict({"preset": "yatzy"}))
# The share of a build done before its pace tells the time left: before that, the start of
# the process (numpy imported) weighs too much in it.
PACE_AFTER_SHARE = 0.02
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
    end_with(os.getppid())
    reuse_freed_memory()
    with open(Path(instance_dir) / LOCK_FILE, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)

        def progress(solved: int, total: int) -> None:
            done.value = solved / total

        from scorekeeper.advisor.spreads import load_or_build_spreads
        from scorekeeper.advisor.strategy import load

        strategy = load(rules, instance_dir)
        load_or_build_spreads(rules, strategy.tables["free"], instance_dir, progress)


class BuildStopped(Exception):
    """A build process ended by SIGTERM: the server stops, and ends its builds with it."""


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
        # When the process of each build under way started (its pace tells the time left).
        self.started: dict[Rules, float] = {}
        self.lock = threading.Lock()
        # One build at a time; the households that asked take turns.
        self.queue = FairQueue(places=1)
        # Told each rule set whose table a build has just saved (``when_built``).
        self.built_listeners: list[Callable[[Rules], None]] = []

    def when_built(self, listener: Callable[[Rules], None]) -> None:
        """Have ``listener(rules)`` called, from the build's thread, once a build has saved
        the table of ``rules`` (or found it saved by another process): what waited for it
        (the coach's counts, scorekeeper/coach.py) can be done now."""
        self.built_listeners.append(listener)

    def _tell_built(self, rules: Rules) -> None:
        for listener in self.built_listeners:
            try:
                listener(rules)
            except Exception:
                logger.exception("a listener of the advisor's builds failed")

    def get(self, rules: Rules) -> Strategy | None:
        """The strategy for these rules, from memory or disk; None while it is missing."""
        with self.lock:
            if rules in self.loaded:
                self.loaded.move_to_end(rules)
                return self.loaded[rules]
            building = rules in self.building
        # A build under way may be that of the spreads, once the table is saved.
        if building and not tables_saved(rules, self.instance_path, with_chances=False):
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

    def build(
        self, rules: Rules, *, household: Hashable, with_chances: bool = True, ahead: bool = False
    ) -> bool:
        """Queue a build of these rules' table, then of its spreads where the chances to
        win need them (unless ``with_chances`` is False: a game of one player), in
        ``household``'s turn; False when it is queued or being built already.

        ``ahead``: built before anyone asks, by what is saved in the folder alone (the
        server then imports no numpy for it); else the tables saved are read first, and a
        damaged file is built again."""
        with self.lock:
            if rules in self.building:
                return False
            self.building[rules] = 0.0
        threading.Thread(
            target=self._build_in_turn, args=(rules, household, with_chances, ahead), daemon=True
        ).start()
        return True

    def build_ahead(self, rule_sets: Sequence[Rules] = AHEAD_RULES) -> threading.Thread:
        """Build the tables of ``rule_sets`` that are missing, in the background and in the
        fair queue's turn (every table first, then their spreads: the Conseil needs only
        the table); done by one process of the instance at a time, the others skip it."""
        thread = threading.Thread(
            target=self._ahead, args=(tuple(rule_sets),), name="advisor-ahead", daemon=True
        )
        thread.start()
        return thread

    def _ahead(self, rule_sets: tuple[Rules, ...]) -> None:
        Path(self.instance_path).mkdir(parents=True, exist_ok=True)
        with open(Path(self.instance_path) / AHEAD_LOCK_FILE, "w") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return  # another process of this server builds them
            for with_chances in (False, True):
                for rules in rule_sets:
                    if tables_saved(rules, self.instance_path, with_chances=with_chances):
                        continue
                    self.build(rules, household=AHEAD, with_chances=with_chances, ahead=True)
                    while self.progress(rules) is not None:
                        time.sleep(POLL_SECONDS)

    def remaining(self, rules: Rules) -> float | None:
        """The seconds the build of these rules should still take (its part under way, the
        table or its spreads), from its pace so far; None while it waits for another build,
        has only just started, or when none is queued."""
        with self.lock:
            done, started = self.building.get(rules), self.started.get(rules)
        if done is None or started is None or done < PACE_AFTER_SHARE:
            return None
        return (time.monotonic() - started) * (1 - done) / done

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
        from scorekeeper.advisor.spreads import load_spreads
        from scorekeeper.advisor.tables import spreads_path
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

    def _build_in_turn(
        self, rules: Rules, household: Hashable, with_chances: bool, ahead: bool
    ) -> None:
        """A waiting build's thread: the build, in the household's turn."""
        try:
            with self.queue.place(household):
                # Another process may have built it meanwhile.
                if ahead:
                    missing = not tables_saved(rules, self.instance_path, with_chances=False)
                else:
                    missing = self._load(rules) is None
                if missing:
                    self._build(rules, self.worker)
                self._tell_built(rules)
                # The spreads once the table is there, in the same turn.
                if with_chances and has_win_chances(rules):
                    if ahead:
                        missing = not tables_saved(rules, self.instance_path, with_chances=True)
                    else:
                        missing = self.get(rules) is not None and not self._load_chances(rules)
                    if missing:
                        with self.lock:
                            self.building[rules] = 0.0
                        self._build(rules, self.spreads_worker)
        except BuildStopped:
            # The server is stopping (multiprocessing ends its build processes with SIGTERM
            # at exit): the next start builds what is still missing; no error to report.
            logger.info("the advisor's build stopped with the server")
        except Exception:
            # A failed build (a full disk, say) is retried by the next request that asks.
            logger.exception("the advisor's table could not be built")
        finally:
            with self.lock:
                del self.building[rules]
                self.started.pop(rules, None)

    def _build(self, rules: Rules, worker: Callable) -> None:
        context = multiprocessing.get_context("spawn")  # no copy of the server's threads
        done = context.Value("d", 0.0, lock=False)
        process = context.Process(
            target=worker, args=(rules, self.instance_path, done), daemon=True
        )
        with self.lock:
            self.started[rules] = time.monotonic()
        process.start()
        while process.is_alive():
            process.join(POLL_SECONDS)
            with self.lock:
                self.building[rules] = done.value
        if process.exitcode == -signal.SIGTERM:
            raise BuildStopped(rules)
        if process.exitcode != 0:
            raise RuntimeError(f"the build process ended with code {process.exitcode}")
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
