"""The strategy tables of one server: loaded on demand, a bounded number kept, and the
missing ones built in a worker process, one build at a time, while requests go on.

A rule set needs one table per column kind (Triple: three). A build takes seconds of numpy
work (3 s for a free column, 6 s for Yatzy, a fraction of a second for an ordered column,
minutes with Plus et Moins, on one quiet core) and hundreds of MB: it runs in a worker
process of the server's (scorekeeper/workers.py: at a lower priority than the request
threads, ended with the server), a fresh one for each build so that its memory leaves with
it, spawned rather than forked from the PDF workers' fork server (a build needs numpy, not
WeasyPrint). The builds households asked for wait in the pool's fair queue, in the order
they were asked: one household asking for many tables gets one built in its turn, between
the others'. A lock file in the instance folder makes the builds one at a time across
processes too (gunicorn).

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
import math
import os
import struct
import tempfile
import threading
import time
from collections.abc import Callable, Hashable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from scorekeeper.advisor.tables import CACHE_GLOB, cache_path, has_win_chances, tables_saved
from scorekeeper.fairness import Ticket
from scorekeeper.lru import LruCache
from scorekeeper.rules.rule_set import Rules
from scorekeeper.workers import Workers, WorkerSettings, WorkerStopped

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
# How often the thread that builds ahead looks whether a build has ended.
POLL_SECONDS = 0.2
# One build at a time in a process, each in a fresh worker, for as many households as ask,
# and as long as it takes.
BUILD_WORKERS = WorkerSettings(
    workers=1,
    queue=None,
    jobs_per_worker=1,
    timeout_seconds=None,
    waiting_per_household=None,
    from_fork_server=False,
)
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


class Progress:
    """The share of a build done, written by its worker process and read by the server: the
    eight bytes of a small file of its own (the pool's worker starts before the build is
    asked, so it inherits nothing of it). Pickled, the file's path goes to the worker."""

    def __init__(self) -> None:
        handle, self.path = tempfile.mkstemp(prefix="scorekeeper-build-", suffix=".progress")
        os.close(handle)
        self.value = 0.0

    @property
    def value(self) -> float:
        try:
            with open(self.path, "rb") as file:
                data = file.read(8)
        except FileNotFoundError:  # the build has just ended
            return 1.0
        share = struct.unpack("d", data)[0] if len(data) == 8 else 0.0
        # A value read while it was written may be neither: a share all the same.
        return min(max(share, 0.0), 1.0) if not math.isnan(share) else 0.0

    @value.setter
    def value(self, share: float) -> None:
        handle = os.open(self.path, os.O_WRONLY)
        try:
            os.pwrite(handle, struct.pack("d", share), 0)
        finally:
            os.close(handle)

    def discard(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)


def build_in_worker(rules: Rules, instance_dir: str, done: Progress) -> None:
    """The job of the worker process: build the table (unless another process just did)
    and save it, publishing the share of states solved in ``done``."""
    reuse_freed_memory()
    Path(instance_dir).mkdir(parents=True, exist_ok=True)
    with open(Path(instance_dir) / LOCK_FILE, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)

        def progress(solved: int, total: int) -> None:
            done.value = solved / total

        from scorekeeper.advisor.strategy import load_or_build

        load_or_build(rules, instance_dir, progress)


def build_spreads_in_worker(rules: Rules, instance_dir: str, done: Progress) -> None:
    """The job of the worker process that builds the spreads of a table already built (the
    chances to win need them), publishing the share of states done in ``done``."""
    reuse_freed_memory()
    with open(Path(instance_dir) / LOCK_FILE, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)

        def progress(solved: int, total: int) -> None:
            done.value = solved / total

        from scorekeeper.advisor.spreads import load_or_build_spreads
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
        self.kept_on_disk = kept_on_disk
        self.loaded: LruCache[Rules, Strategy] = LruCache(kept_in_memory)
        self.chances_loaded: LruCache[Rules, WinChances] = LruCache(kept_in_memory)
        # Rule sets waiting or being built, with the progress of the part under way (None
        # while they wait).
        self.building: dict[Rules, Progress | None] = {}
        # When the job of each build under way was handed to its worker (its pace tells
        # the time left).
        self.started: dict[Rules, float] = {}
        self.lock = threading.Lock()
        # One build at a time; the households that asked take turns.
        self.workers = Workers(BUILD_WORKERS)
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
        strategy = self.loaded.get(rules)
        if strategy is not None:
            return strategy
        with self.lock:
            building = rules in self.building
        # A build under way may be that of the spreads, once the table is saved.
        if building and not tables_saved(rules, self.instance_path, with_chances=False):
            return None
        return self._load(rules)

    def chances(self, rules: Rules) -> WinChances | None:
        """The chances to win of these rules, from memory or disk; None while their table or
        its spreads are missing (or being built), and for rules without them."""
        chances = self.chances_loaded.get(rules)
        if chances is not None:
            return chances
        with self.lock:
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
            self.building[rules] = None
            # In the queue now, not when a thread comes to it: a household's builds are
            # made in the order it asked for them.
            ticket = self.workers.enter(household)
        threading.Thread(
            target=self._build_in_turn, args=(rules, ticket, with_chances, ahead), daemon=True
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
            progress, started = self.building.get(rules), self.started.get(rules)
        if progress is None or started is None:
            return None
        done = progress.value
        if done < PACE_AFTER_SHARE:
            return None
        return (time.monotonic() - started) * (1 - done) / done

    def progress(self, rules: Rules) -> float | None:
        """The share of the build done (0 while it waits for another one), or None when no
        build of these rules is queued."""
        with self.lock:
            if rules not in self.building:
                return None
            progress = self.building[rules]
        return 0.0 if progress is None else progress.value

    def _load(self, rules: Rules) -> Strategy | None:
        # Imported at the first advice asked for: a server nobody asks starts and idles
        # without numpy (a sixth of a second, and a third of its memory).
        from scorekeeper.advisor.maxi import MaxiStrategy
        from scorekeeper.advisor.strategy import load

        if rules.saves_throws:  # Maxi Yatzy's policy: no table, made at once
            strategy = MaxiStrategy(rules)
            self.loaded.put(rules, strategy)
            return strategy
        strategy = load(rules, self.instance_path)
        if strategy is None:
            return None
        for kind in rules.columns:  # the disk's recently used order
            with contextlib.suppress(OSError):
                os.utime(cache_path(rules, self.instance_path, kind))
        self.loaded.put(rules, strategy)
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
        # One per rule set, whose kept futures every request shares.
        return self.chances_loaded.setdefault(rules, WinChances(rules, values, spreads))

    def _build_in_turn(self, rules: Rules, ticket: Ticket, with_chances: bool, ahead: bool) -> None:
        """A waiting build's thread: the build, in the household's turn."""
        try:
            with self.workers.turn(ticket) as run:
                # Another process may have built it meanwhile.
                if ahead:
                    missing = not tables_saved(rules, self.instance_path, with_chances=False)
                else:
                    missing = self._load(rules) is None
                if missing:
                    self._build(rules, run, self.worker)
                self._tell_built(rules)
                # The spreads once the table is there, in the same turn.
                if with_chances and has_win_chances(rules):
                    if ahead:
                        missing = not tables_saved(rules, self.instance_path, with_chances=True)
                    else:
                        missing = self.get(rules) is not None and not self._load_chances(rules)
                    if missing:
                        self._build(rules, run, self.spreads_worker)
        except WorkerStopped:
            # The server is stopping, and its workers with it: the next start builds what
            # is still missing; no error to report.
            logger.info("the advisor's build stopped with the server")
        except Exception:
            # A failed build (a full disk, say) is retried by the next request that asks.
            logger.exception("the advisor's table could not be built")
        finally:
            with self.lock:
                del self.building[rules]

    def _build(self, rules: Rules, run: Callable, job: Callable) -> None:
        """``job`` in a worker of the turn under way, its progress told from 0."""
        progress = Progress()
        with self.lock:
            self.building[rules] = progress
            self.started[rules] = time.monotonic()
        try:
            run(job, rules, self.instance_path, progress)
        finally:
            with self.lock:
                self.building[rules] = None
                self.started.pop(rules, None)
            progress.discard()
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
