"""The PDF workers: real processes, recycled, bounded, and never loading WeasyPrint here."""

import os
import signal
import threading
import time

import pytest

from scorekeeper.sheets.workers import PdfWorkers, PrintersBusy, WorkerSettings

STATIC = "static"
PAGE = "<!doctype html><p>Yams</p>"
# A few seconds of layout: many pages of text.
SLOW_PAGE = "<!doctype html>" + "<p>" + "Yams à la table de cuisine. " * 40 + "</p>" * 1 * 1500


@pytest.fixture
def workers():
    pool = PdfWorkers(WorkerSettings(workers=1, queue=0, renders_per_worker=2,
                                     timeout_seconds=120.0))
    yield pool
    pool.shutdown()


def test_workers_draw_pdfs_and_are_replaced_after_their_quota(workers):
    # Five renders by workers that each draw two: three workers in turn, every PDF whole.
    for _ in range(5):
        pdf = workers.render(PAGE, STATIC)
        assert pdf.startswith(b"%PDF-") and pdf.rstrip().endswith(b"%%EOF")
    assert workers.in_flight == 0


def test_a_full_pool_refuses_at_once_and_serves_again_after(workers):
    drawn = []
    first = threading.Thread(target=lambda: drawn.append(workers.render(SLOW_PAGE, STATIC)))
    first.start()
    deadline = time.monotonic() + 30
    while workers.in_flight == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    started = time.monotonic()
    with pytest.raises(PrintersBusy):
        workers.render(PAGE, STATIC)
    assert time.monotonic() - started < 0.5, "a full pool must answer at once"
    first.join()
    assert drawn and drawn[0].startswith(b"%PDF-")
    assert workers.render(PAGE, STATIC).startswith(b"%PDF-")


def test_a_worker_that_dies_costs_one_render_not_the_pool(workers):
    failures = []

    def render() -> None:
        try:
            workers.render(SLOW_PAGE, STATIC)
        except PrintersBusy as error:
            failures.append(error)

    first = threading.Thread(target=render)
    first.start()
    deadline = time.monotonic() + 30
    # The pool starts with the first render, in the thread.
    while (workers._executor is None or not workers._executor._processes) \
            and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.2)
    # As the kernel's out-of-memory killer would.
    for pid in list(workers._executor._processes):
        os.kill(pid, signal.SIGKILL)
    first.join()
    assert len(failures) == 1
    assert workers.render(PAGE, STATIC).startswith(b"%PDF-")
    assert workers.in_flight == 0
