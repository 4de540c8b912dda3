"""The fair queue: households served in turn, one job each at a time, seats shared out."""

import threading
import time

import pytest

from scorekeeper.fairness import Busy, FairQueue

WAIT_SECONDS = 10


class Jobs:
    """Jobs in threads: each waits for a place, says so, and holds it until told to end."""

    def __init__(self, queue: FairQueue) -> None:
        self.queue = queue
        self.started: list[str] = []
        self.refused: list[str] = []
        self.ends: dict[str, threading.Event] = {}

    def submit(self, owner: str, name: str) -> None:
        """A job of ``owner``, once it is running or waiting (so that arrivals are ordered)."""
        self.ends[name] = threading.Event()
        before = self._events()
        thread = threading.Thread(target=self._run, args=(owner, name), daemon=True)
        thread.start()
        self._until(lambda: self._events() > before)

    def _events(self) -> int:
        # Each arrival adds a job to the queue, or refuses one (itself or a waiter it
        # displaced).
        return self.queue.running + self.queue.waiting + len(self.refused)

    def end(self, name: str) -> None:
        self.ends[name].set()

    def until_started(self, count: int) -> None:
        self._until(lambda: len(self.started) >= count)

    def drain(self) -> None:
        """End the running job and wait until nothing runs or waits."""
        self.end(self.started[-1])
        self._until(lambda: self.queue.running + self.queue.waiting == 0)

    def _run(self, owner: str, name: str) -> None:
        try:
            with self.queue.place(owner, timeout=WAIT_SECONDS):
                self.started.append(name)
                self.ends[name].wait(WAIT_SECONDS)
        except Busy:
            self.refused.append(name)

    def _until(self, condition) -> None:
        # The queue changes under its own lock, in the jobs' threads: look again and again.
        deadline = time.monotonic() + WAIT_SECONDS
        while not condition():
            assert time.monotonic() < deadline, (self.started, self.refused)
            time.sleep(0.001)


def test_households_are_served_in_turn():
    queue = FairQueue(places=1)
    jobs = Jobs(queue)
    jobs.submit("other", "X")
    jobs.until_started(1)
    for name in ("A1", "A2", "A3"):
        jobs.submit("A", name)
    for name in ("B1", "B2"):
        jobs.submit("B", name)
    jobs.submit("C", "C1")
    # A came first and asked three times, yet B and C each get a turn between A's jobs.
    for count in range(2, 8):
        jobs.end(jobs.started[-1])
        jobs.until_started(count)
    jobs.drain()
    assert jobs.started == ["X", "A1", "B1", "C1", "A2", "B2", "A3"]


def test_a_household_that_asked_during_anothers_job_goes_before_that_ones_next():
    queue = FairQueue(places=1)
    jobs = Jobs(queue)
    jobs.submit("A", "A1")
    jobs.until_started(1)
    jobs.submit("A", "A2")
    jobs.submit("B", "B1")
    jobs.end("A1")
    jobs.until_started(2)
    assert jobs.started == ["A1", "B1"]
    jobs.end("B1")
    jobs.until_started(3)
    jobs.drain()


def test_one_running_job_per_household_leaves_a_place_for_another():
    queue = FairQueue(places=2)
    jobs = Jobs(queue)
    jobs.submit("A", "A1")
    jobs.submit("A", "A2")
    jobs.until_started(1)
    assert queue.running == 1 and queue.waiting == 1
    jobs.submit("B", "B1")
    jobs.until_started(2)
    assert jobs.started == ["A1", "B1"]
    for name in ("A1", "B1"):
        jobs.end(name)
    jobs.until_started(3)
    jobs.drain()


def test_a_burst_gives_up_its_newest_seat_to_another_household():
    queue = FairQueue(places=1, capacity=3)
    jobs = Jobs(queue)
    for name in ("A1", "A2", "A3"):
        jobs.submit("A", name)
    jobs.until_started(1)
    started = time.monotonic()
    with pytest.raises(Busy):
        queue.admit("A")  # A holds every seat already: its fourth job is refused at once
    assert time.monotonic() - started < 1
    jobs.submit("B", "B1")
    assert jobs.refused == ["A3"]  # the newest of A's waiting jobs gave B its seat
    jobs.submit("C", "C1")
    assert jobs.refused == ["A3", "A2"]
    # Now each holds one seat: a second job of B finds none, and takes none from the others.
    with pytest.raises(Busy):
        queue.admit("B")
    for count in (2, 3):
        jobs.end(jobs.started[-1])
        jobs.until_started(count)
    jobs.drain()
    assert jobs.started == ["A1", "B1", "C1"]


def test_a_job_that_waits_too_long_is_refused_and_leaves_no_trace():
    queue = FairQueue(places=1, capacity=2)
    ticket = queue.admit("A")
    with pytest.raises(Busy):
        queue.admit("B", timeout=0.05)
    assert queue.waiting == 0
    queue.release(ticket)
    with queue.place("B", timeout=1):
        assert queue.running == 1
    assert queue.running == queue.waiting == 0


def test_a_household_holds_one_running_and_a_few_waiting_jobs_at_most():
    queue = FairQueue(places=2, capacity=4, waiting_per_owner=1)
    jobs = Jobs(queue)
    jobs.submit("A", "A1")
    jobs.submit("A", "A2")
    jobs.until_started(1)
    with pytest.raises(Busy):
        queue.admit("A")  # seats are left, but A holds its share
    jobs.submit("B", "B1")
    jobs.until_started(2)
    assert jobs.started == ["A1", "B1"] and not jobs.refused
    for name in ("A1", "B1"):
        jobs.end(name)
    jobs.until_started(3)
    jobs.drain()
