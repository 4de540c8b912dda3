"""Worker processes for the heavy work of the server (drawing PDFs, importing games, building
the Conseil's tables): a few processes at a lower priority, replaced after some jobs, and the
households queued fairly in front of them.

A job takes a core for up to seconds (a table of the Conseil, minutes) and leaves memory
behind (WeasyPrint keeps about 0.2 MiB after each PDF, an import its thousands of replays,
a build hundreds of MB). In a worker process it holds neither a request thread's CPU nor
Python's lock in the server, the memory leaves with the process, and it runs at a lower
priority than the tablets' turns and polls. Workers start from a fork server that has
imported what they run (the server process never imports WeasyPrint), or afresh for work
that needs none of it, and share no database connection, lock or thread of the server. A
worker ends with the server, and so does its job: the job is for nobody then.

At most ``workers`` jobs run at once, one per household, and ``queue`` more wait (of them,
one per household); a place that frees up goes to the households in turn, and beyond that
the request is refused at once with Busy rather than holding one of the few threads the
tablets need (fairness.FairQueue).
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import select
import sys
import threading
import time
import weakref
from collections.abc import Callable, Hashable, Iterator
from concurrent.futures import CancelledError, Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from scorekeeper.fairness import Busy, FairQueue, Ticket

# A worker works at a lower priority than the server's threads: on a small machine, the
# tablets' version polls and turns come before a PDF or an import.
WORKER_NICENESS = 10

T = TypeVar("T")

__all__ = [
    "Busy",
    "WorkerFailed",
    "WorkerSettings",
    "WorkerStopped",
    "Workers",
    "preload",
    "shared_workers",
    "start_fork_server",
    "stop_workers",
]

# What the fork server imports before it forks the first worker: the modules of the work
# the workers run, named by the modules that hand it to them (``preload``). Nothing of a
# floor above is named here.
_preloaded: dict[str, None] = {}


def preload(*modules: str) -> None:
    """Have the fork server import these modules (by their ``__name__``) before it forks a
    worker: every worker then finds them imported, without the import's time and memory of
    its own. Called by the modules whose work runs in workers, as they are imported, so
    before the server starts the fork server. A module the server itself must not import
    (WeasyPrint's) is named by the module that runs it, in its own part of the package."""
    _preloaded.update(dict.fromkeys(modules))


class WorkerFailed(Exception):
    """The job's worker died (killed, out of memory), or the job outlasted its time: the
    request gets no result, and the same request a little later will."""


class WorkerStopped(WorkerFailed):
    """The pool was stopped (the server stops) while the job ran or waited: it is for
    nobody, and the next start does what is still to do."""


@dataclass(frozen=True)
class WorkerSettings:
    workers: int
    # Jobs that may wait for a worker, over and above those running; None: any number.
    queue: int | None
    # Jobs a worker does before it is replaced (1: a fresh process for each).
    jobs_per_worker: int
    # The longest a request waits for a place and then for its job; None: as long as it
    # takes. A job given up still holds its worker until it ends.
    timeout_seconds: float | None
    # Jobs of one household that may wait, over and above its one running; None: any.
    waiting_per_household: int | None = 1
    # Forked from the fork server, with what it preloaded; False: each worker a fresh
    # interpreter (spawn), for work that comes seldom and needs none of it, so that it
    # starts no fork server.
    from_fork_server: bool = True


class Workers:
    """A bounded pool of worker processes in front of which households take turns."""

    def __init__(self, settings: WorkerSettings) -> None:
        self.settings = settings
        capacity = None if settings.queue is None else settings.workers + settings.queue
        self.queue = FairQueue(
            settings.workers, capacity, waiting_per_owner=settings.waiting_per_household
        )
        self._lock = threading.Lock()
        self._executor: ProcessPoolExecutor | None = None
        self._stopped = False
        _pools.add(self)

    def run(self, household: Hashable, job: Callable[..., T], *args: object) -> T:
        """``job(*args)`` in a worker, once it is ``household``'s turn: what it returns or
        raises (both must pickle). Busy when every place and seat is taken, WorkerFailed
        when the worker died or the job outlasted the settings' timeout."""
        ticket = self.queue.admit(household, self.settings.timeout_seconds)
        try:
            executor, future = self._submit(job, args)
        except BaseException:
            self.queue.release(ticket)
            raise
        # The place is given back when the worker is done, not when the request stops
        # waiting: a job given up still holds its worker.
        future.add_done_callback(lambda _future: self.queue.release(ticket))
        return self._result(executor, future, self.settings.timeout_seconds)

    def enter(self, household: Hashable) -> Ticket:
        """A seat in the queue for a turn of ``household``'s, taken now (its turns come in
        the order it asked for them), for ``turn``; Busy when there is none."""
        return self.queue.enter(household)

    @contextlib.contextmanager
    def turn(self, ticket: Ticket) -> Iterator[Callable[..., object]]:
        """Wait for the place of ``ticket`` (from ``enter``), then hold it for the block:
        the function it gets runs a job in a worker and returns what the job returns, one
        job after the other, as long as the block lasts. Busy when the seat was taken or
        the wait outlasted the settings' timeout; WorkerFailed as ``run``."""
        self.queue.wait(ticket, self.settings.timeout_seconds)
        try:
            yield self._run_now
        finally:
            self.queue.release(ticket)

    @property
    def in_flight(self) -> int:
        """Jobs running or waiting for a worker."""
        return self.queue.running + self.queue.waiting

    def shutdown(self) -> None:
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)

    def stop(self) -> None:
        """The server stops: end the jobs under way with their workers, at once, and refuse
        any other with WorkerStopped. (Python waits at exit for the jobs of every pool,
        minutes for a build.)"""
        # Under the lock that jobs are handed over under: a job is either refused, or handed
        # to a worker that is listed already.
        with self._lock:
            self._stopped = True
            executor, self._executor = self._executor, None
            if executor is None:
                return
            # ProcessPoolExecutor.terminate_workers() from Python 3.14; before, no public way.
            for process in list(executor._processes.values()):
                process.terminate()
        # Their jobs fail at once (BrokenProcessPool: WorkerStopped for their callers).
        executor.shutdown(wait=True, cancel_futures=True)

    def _run_now(self, job: Callable[..., T], *args: object) -> T:
        executor, future = self._submit(job, args)
        return self._result(executor, future, None)

    def _submit(self, job: Callable, args: tuple) -> tuple[ProcessPoolExecutor, Future]:
        with self._lock:
            executor = self._pool()
            return executor, executor.submit(job, *args)

    def _result(self, executor: ProcessPoolExecutor, future: Future, timeout: float | None):
        try:
            return future.result(timeout=timeout)
        except (BrokenProcessPool, CancelledError):
            if self._stopped:
                raise WorkerStopped from None
            # A worker died: start afresh for the next job.
            self._replace(executor)
            raise WorkerFailed from None
        except FutureTimeout:
            raise WorkerFailed from None
        except SystemExit as exited:
            # The job ended its process's interpreter: a failure of the job, never an exit
            # of the server's thread that waited for it.
            raise WorkerFailed(f"the job exited with {exited.code!r}") from None

    def _pool(self) -> ProcessPoolExecutor:
        # Made on the first job: a server that nobody prints or imports from starts none.
        if self._stopped:
            raise WorkerStopped
        if self._executor is None:
            self._executor = ProcessPoolExecutor(
                max_workers=self.settings.workers,
                mp_context=_context(self.settings.from_fork_server),
                max_tasks_per_child=self.settings.jobs_per_worker,
                initializer=_start_worker,
                initargs=(os.getpid(),),
            )
        return self._executor

    def _replace(self, broken: ProcessPoolExecutor) -> None:
        with self._lock:
            if self._executor is broken:
                self._executor = None
        broken.shutdown(wait=False, cancel_futures=True)


# Every pool of the process, for stop_workers.
_pools: weakref.WeakSet[Workers] = weakref.WeakSet()


def stop_workers() -> None:
    """The server stops: end every pool's jobs and workers at once (see Workers.stop). The
    process's shared pools are forgotten with them, so that a server started again in the
    same process (the tests start many) gets pools that run."""
    with _shared_lock:
        _shared.clear()
    for pool in list(_pools):
        pool.stop()


def start_fork_server() -> None:
    """Start the workers' fork server now, in the background, rather than at the first job:
    the first print or import after a start would otherwise wait for it to start and import
    the modules preloaded (about a second, WeasyPrint most of it).

    It imports at the workers' priority, so that it never delays the first pages: on Linux
    a nice value belongs to one thread, and the process that thread starts inherits it. A
    job that comes first waits for the same start (multiprocessing starts one fork server a
    process, under a lock). Where there is no fork server (workers spawned), nothing.
    """
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return

    def start() -> None:
        from multiprocessing import forkserver

        if sys.platform == "linux":
            os.nice(WORKER_NICENESS)  # this thread's, elsewhere the whole server's
        _context(from_fork_server=True)  # the modules to preload
        forkserver.ensure_running()

    threading.Thread(target=start, name="start-fork-server", daemon=True).start()


def _context(from_fork_server: bool) -> multiprocessing.context.BaseContext:
    if from_fork_server and "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(list(_preloaded))
        return context
    # A fresh interpreter: no copy of the server's threads, nothing imported but the job's.
    return multiprocessing.get_context("spawn")


def _start_worker(server_pid: int) -> None:
    # What a worker starts with (from the fork server: WeasyPrint and the modules preloaded)
    # lives as long as the worker. Frozen, out of the collector's way, it is not walked by
    # the first job's collections (40 ms of a first print), and its pages, never written,
    # stay shared with the fork server (a worker's private memory 47 -> 33 MiB).
    gc.freeze()
    lower_priority()
    end_with(server_pid)


def end_with(server_pid: int) -> None:
    """End the calling worker as soon as the server process ``server_pid`` ends, however it
    ends (SIGKILL, a crash, SIGTERM without a handler).

    A pool's worker holds its own job queue's pipe and the fork server's open, so neither
    sees the server go: without this, a server that could not shut its pool down left its
    workers waiting for a job forever, adopted by PID 1, and the fork server waiting for
    them. Once the workers end, the fork server and multiprocessing's resource tracker end
    too: nobody holds their pipes any more.
    """
    threading.Thread(
        target=_exit_when_ended, args=(server_pid,), name="end-with-server", daemon=True
    ).start()


# How often a system without pidfd_open (not Linux) looks whether the server is still there.
SERVER_POLL_SECONDS = 1.0


def _exit_when_ended(server_pid: int) -> None:
    try:
        handle = os.pidfd_open(server_pid)
    except ProcessLookupError:
        os._exit(0)  # gone already
    except (AttributeError, OSError):
        while _is_running(server_pid):
            time.sleep(SERVER_POLL_SECONDS)
    else:
        select.select([handle], [], [])  # readable once the process has ended
    # The job under way is for nobody now: no clean-up is owed to a server that is gone.
    os._exit(0)


def _is_running(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # no signal sent: only whether the process exists
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, under another user
        pass
    return True


def lower_priority() -> None:
    """Make the calling process work only on what the server leaves of the CPU.

    Niced, it yields to the server's threads. Linux with autogroups (Debian's and Ubuntu's
    kernels) first shares the CPU out between sessions, whatever the nice values inside
    them: in the server's session a worker still took that session's share from
    PostgreSQL and the other processes a turn needs. In a session of its own, whose
    autogroup is niced too, it takes only what they leave.
    """
    os.nice(WORKER_NICENESS)
    if sys.platform == "linux":
        with contextlib.suppress(OSError):
            os.setsid()
            Path("/proc/self/autogroup").write_text(str(WORKER_NICENESS))


W = TypeVar("W", bound=Workers)
_shared: dict[tuple[type, WorkerSettings], Workers] = {}
_shared_lock = threading.Lock()


def shared_workers(kind: type[W], settings: WorkerSettings) -> W:
    """The process's pool of this kind for these settings: every app of a process (the
    tests make many) shares one, rather than each starting its own workers and queue."""
    with _shared_lock:
        workers = _shared.get((kind, settings))
        if workers is None:
            workers = _shared[kind, settings] = kind(settings)
        return workers
