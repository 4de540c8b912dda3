"""PDF workers: a few processes that draw PDFs, so that a print never holds a request thread's
CPU nor grows the server.

WeasyPrint keeps about 0.2 MiB after each PDF and never gives it back, and a PDF takes 0.1 to
1.5 s of CPU. Renders therefore run in worker processes, each replaced after a number of PDFs
(its leak leaves with it), at most ``workers`` at once with ``queue`` more waiting; beyond
that the request is refused at once with PrintersBusy (a 503 that says to try again), rather
than holding one of the few threads the tablets need. Workers start from a fork server that
has already imported WeasyPrint, which keeps a new worker quick and shares no database
connection, lock or thread of the server with it.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path

# The worker side, imported by name only: the server never loads WeasyPrint itself.
RENDER_MODULE = "scorekeeper.sheets.render"
# A worker draws at a lower priority than the server's threads: on a small machine, the
# tablets' version polls and turns come before a PDF.
WORKER_NICENESS = 10


class PrintersBusy(Exception):
    """Every PDF worker is busy and the queue is full, or a worker failed: nothing was drawn,
    and the same request a few seconds later will be."""


@dataclass(frozen=True)
class WorkerSettings:
    """The PDF_* settings (scorekeeper/config.py says what each does, and its default)."""

    workers: int
    queue: int
    renders_per_worker: int
    # A render taking longer than this is given up (the worker finishes it in the background).
    timeout_seconds: float


class PdfWorkers:
    """A bounded pool of processes that render HTML into PDF."""

    def __init__(self, settings: WorkerSettings) -> None:
        self.settings = settings
        self._slots = threading.BoundedSemaphore(settings.workers + settings.queue)
        self._lock = threading.Lock()
        self._executor: ProcessPoolExecutor | None = None

    def render(self, html: str, static_folder: str | Path, copies: int = 1) -> bytes:
        """The PDF of ``html`` drawn by a worker (see render.render_pdf); PrintersBusy when
        none is free."""
        if not self._slots.acquire(blocking=False):
            raise PrintersBusy
        executor = self._pool()
        try:
            future = executor.submit(_render, html, str(static_folder), copies)
        except BaseException:
            self._slots.release()
            raise
        # The slot is given back when the worker is done, not when the request stops waiting:
        # a render given up still holds its worker.
        future.add_done_callback(lambda _future: self._slots.release())
        try:
            return future.result(timeout=self.settings.timeout_seconds)
        except BrokenProcessPool:
            # A worker died (killed, out of memory): start afresh for the next request.
            self._replace(executor)
            raise PrintersBusy from None
        except FutureTimeout:
            raise PrintersBusy from None

    @property
    def in_flight(self) -> int:
        """Renders being drawn or waiting for a worker."""
        return self.settings.workers + self.settings.queue - self._slots._value

    def shutdown(self) -> None:
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)

    def _pool(self) -> ProcessPoolExecutor:
        # Made on the first PDF: a server nobody prints from starts no worker.
        with self._lock:
            if self._executor is None:
                self._executor = ProcessPoolExecutor(
                    max_workers=self.settings.workers, mp_context=_context(),
                    max_tasks_per_child=self.settings.renders_per_worker,
                    initializer=_start_worker)
            return self._executor

    def _replace(self, broken: ProcessPoolExecutor) -> None:
        with self._lock:
            if self._executor is broken:
                self._executor = None
        broken.shutdown(wait=False, cancel_futures=True)


def _context() -> multiprocessing.context.BaseContext:
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload([RENDER_MODULE])
        return context
    return multiprocessing.get_context("spawn")


def _start_worker() -> None:
    os.nice(WORKER_NICENESS)


def _render(html: str, static_folder: str, copies: int) -> bytes:
    from scorekeeper.sheets.render import render_pdf

    return render_pdf(html, static_folder, copies)


_shared: dict[WorkerSettings, PdfWorkers] = {}
_shared_lock = threading.Lock()


def shared_workers(settings: WorkerSettings) -> PdfWorkers:
    """The process's pool for these settings: every app of a process (the tests make many)
    shares one, rather than each starting its own workers."""
    with _shared_lock:
        workers = _shared.get(settings)
        if workers is None:
            workers = _shared[settings] = PdfWorkers(settings)
        return workers
