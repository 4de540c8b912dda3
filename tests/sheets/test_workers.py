"""The PDF workers: real processes, recycled, bounded, and never loading WeasyPrint here."""

import os
import signal
import threading
import time

import pytest

from scorekeeper.sheets.workers import PdfWorkers, PrintersBusy, WorkerSettings
from tests.support.threads import joined

STATIC = "static"
PAGE = "<!doctype html><p>Yams</p>"
# A few seconds of layout: many pages of text.
SLOW_PAGE = "<!doctype html>" + "<p>" + "Yams à la table de cuisine. " * 40 + "</p>" * 1 * 1500


@pytest.fixture
def workers():
    pool = PdfWorkers(WorkerSettings(workers=1, queue=0, jobs_per_worker=2, timeout_seconds=120.0))
    yield pool
    pool.shutdown()


def test_workers_draw_pdfs_and_are_replaced_after_their_quota(workers):
    # Five renders by workers that each draw two: three workers in turn, every PDF whole.
    for _ in range(5):
        pdf = workers.render(PAGE, STATIC, household=1)
        assert pdf.startswith(b"%PDF-") and pdf.rstrip().endswith(b"%%EOF")
    assert workers.in_flight == 0


def test_a_full_pool_refuses_at_once_and_serves_again_after(workers):
    drawn = []
    first = threading.Thread(
        target=lambda: drawn.append(workers.render(SLOW_PAGE, STATIC, household=1))
    )
    first.start()
    deadline = time.monotonic() + 30
    while workers.in_flight == 0:
        assert time.monotonic() < deadline, "the first render never started"
        time.sleep(0.01)
    started = time.monotonic()
    with pytest.raises(PrintersBusy):
        workers.render(PAGE, STATIC, household=1)
    assert time.monotonic() - started < 0.5, "a full pool must answer at once"
    joined([first])
    assert drawn and drawn[0].startswith(b"%PDF-")
    assert workers.render(PAGE, STATIC, household=1).startswith(b"%PDF-")


def test_a_worker_that_dies_costs_one_render_not_the_pool(workers):
    failures = []

    def render() -> None:
        try:
            workers.render(SLOW_PAGE, STATIC, household=1)
        except PrintersBusy as error:
            failures.append(error)

    first = threading.Thread(target=render)
    first.start()
    deadline = time.monotonic() + 30
    # The pool starts with the first render, in the thread; its job is then in the worker,
    # or queued for it: either way the worker's death fails it.
    while workers._executor is None or not workers._executor._processes:
        assert time.monotonic() < deadline, "the pool never started"
        time.sleep(0.01)
    # As the kernel's out-of-memory killer would.
    for pid in list(workers._executor._processes):
        os.kill(pid, signal.SIGKILL)
    joined([first])
    assert len(failures) == 1
    assert workers.render(PAGE, STATIC, household=1).startswith(b"%PDF-")
    assert workers.in_flight == 0


def test_one_households_prints_are_drawn_one_at_a_time_and_anothers_go_between():
    pool = PdfWorkers(WorkerSettings(workers=2, queue=1, jobs_per_worker=25, timeout_seconds=120.0))
    ended: dict[str, float] = {}

    def render(name: str, household: str, page: str) -> None:
        pool.render(page, STATIC, household=household)
        ended[name] = time.monotonic()

    def until(condition) -> None:
        deadline = time.monotonic() + 30
        while not condition():
            assert time.monotonic() < deadline
            time.sleep(0.01)

    try:
        pool.render(PAGE, STATIC, household="warm")  # the workers' fork server started
        slow = threading.Thread(target=render, args=("A1", "A", SLOW_PAGE))
        slow.start()
        until(lambda: pool.queue.running == 1)
        second = threading.Thread(target=render, args=("A2", "A", PAGE))
        second.start()
        until(lambda: pool.queue.waiting == 1)
        # A worker is free, but household A draws one PDF at a time: B's is drawn at once.
        with pytest.raises(PrintersBusy):
            pool.render(PAGE, STATIC, household="A")  # A's share of the seats is taken
        render("B1", "B", PAGE)
        assert "A1" not in ended and "A2" not in ended
        joined([slow, second])
        assert ended["B1"] < ended["A1"] <= ended["A2"]
    finally:
        pool.shutdown()
