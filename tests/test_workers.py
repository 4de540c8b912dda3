"""The one pool of worker processes (scorekeeper/workers.py), as the Conseil's builds use it:
turns that hold their place for several jobs, in the order they were asked, each job in a
fresh niced worker that starts with what it inherits frozen; a job that exits is a failure,
not an exit of the server's thread; and stopped with the server, the jobs under way end at
once and no other starts."""

import gc
import os
import sys
import threading
import time
import weakref

import pytest

from scorekeeper.workers import (
    WORKER_NICENESS,
    WorkerFailed,
    Workers,
    WorkerSettings,
    WorkerStopped,
    shared_workers,
    stop_workers,
)
from tests.support.threads import WAIT_SECONDS, joined

# The Conseil's: one job at a time, a fresh process each, as many waiting as ask (spawned,
# so that these tests start no fork server of their own).
SETTINGS = WorkerSettings(
    workers=1,
    queue=None,
    jobs_per_worker=1,
    timeout_seconds=None,
    waiting_per_household=None,
    from_fork_server=False,
)


@pytest.fixture
def pool():
    workers = Workers(SETTINGS)
    yield workers
    workers.stop()


def test_a_turn_holds_its_place_for_its_jobs_and_turns_go_in_the_order_asked(pool):
    first, second = pool.enter("A"), pool.enter("A")
    other = pool.enter("B")
    here = os.getpriority(os.PRIO_PROCESS, 0)
    with pool.turn(first) as run:
        pids = [run(os.getpid), run(os.getpid)]
        assert run(os.getpriority, os.PRIO_PROCESS, 0) == here + WORKER_NICENESS
        assert pool.queue.running == 1 and pool.queue.waiting == 2
    assert len(set(pids)) == 2 and os.getpid() not in pids  # a fresh worker each job
    # A's first turn over, B's comes before A's second: the households take turns.
    assert other.granted and not second.granted
    with pool.turn(other):
        pass
    assert second.granted
    with pool.turn(second):
        pass
    assert pool.in_flight == 0


def test_a_worker_starts_with_what_it_inherits_frozen(pool):
    # Its first job's collections then skip the modules it started with (the fork server's
    # WeasyPrint) and leave their pages shared; a job's own garbage is still collected.
    frozen, collected = pool.run("A", _frozen_and_collected)
    assert frozen > 0 and collected


class _Node:
    pass


def _frozen_and_collected() -> tuple[int, bool]:
    node = _Node()
    node.itself = node  # a cycle: only the collector frees it
    freed = weakref.ref(node)
    del node
    gc.collect()
    return gc.get_freeze_count(), freed() is None


def test_a_job_that_exits_fails_without_ending_the_thread_that_waits(pool):
    with pytest.raises(WorkerFailed):
        pool.run("A", sys.exit, 3)
    assert pool.run("A", os.getpid) != os.getpid()


def test_stopped_the_jobs_under_way_end_at_once_and_no_other_starts(pool):
    ended = []

    def asleep() -> None:
        try:
            pool.run("A", time.sleep, 600)
        except WorkerStopped:
            ended.append(time.monotonic())

    thread = threading.Thread(target=asleep)
    thread.start()
    deadline = time.monotonic() + WAIT_SECONDS
    while pool.queue.running == 0:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    stopped = time.monotonic()
    pool.stop()
    joined([thread])
    assert ended and ended[0] - stopped < 60  # not the job's ten minutes
    with pytest.raises(WorkerStopped):
        pool.run("B", os.getpid)


def test_a_server_started_again_in_the_process_gets_shared_pools_that_run():
    # `serve` stops every pool as it ends; an app made after it in the same process must
    # not be handed the stopped ones.
    before = shared_workers(Workers, SETTINGS)
    stop_workers()
    with pytest.raises(WorkerStopped):
        before.run("A", os.getpid)
    after = shared_workers(Workers, SETTINGS)
    try:
        assert after is not before and after.run("A", os.getpid) != os.getpid()
    finally:
        after.stop()
