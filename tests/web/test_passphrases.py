"""Passphrases hashed a few at a time: by niced worker processes, in turn, never more at
once on the machine than the setting says, and a sign-up with no seat left refused at once."""

import os
import sys
import threading
import time

import pytest

from scorekeeper.app import STORE_EXTENSION, create_app
from scorekeeper.fairness import Busy
from scorekeeper.store.households import count_households
from scorekeeper.web.passphrases import STRANGERS, PassphraseWorkers, hashers
from scorekeeper.workers import WORKER_NICENESS, WorkerSettings
from tests.support.apps import HOSTED
from tests.support.forms import csrf_token
from tests.support.games import every_row
from tests.support.threads import WAIT_SECONDS, joined

SETTINGS = WorkerSettings(workers=1, queue=1, jobs_per_worker=10, timeout_seconds=30.0)


def held(seconds: float) -> tuple[float, float]:
    """Runs in a worker: a hash that takes ``seconds``; when it began and ended."""
    began = time.time()
    time.sleep(seconds)
    return began, time.time()


def held_until(release: str) -> None:
    """Runs in a worker: a hash that holds its seat until the file ``release`` exists (a
    minute at most), however slow the machine is meanwhile."""
    deadline = time.monotonic() + 60
    while not os.path.exists(release) and time.monotonic() < deadline:
        time.sleep(0.01)


def priority() -> int:
    """Runs in a worker: its nice value."""
    return os.getpriority(os.PRIO_PROCESS, 0)


@pytest.fixture
def pools():
    made = []

    def make() -> PassphraseWorkers:
        made.append(PassphraseWorkers(SETTINGS))
        return made[-1]

    yield make
    for pool in made:
        pool.shutdown()


def test_two_server_processes_hash_one_passphrase_at_a_time_between_them(tmp_path, pools):
    # Two processes' workers share the instance folder's lock file, as gunicorn's do.
    first, second = pools(), pools()
    spans, start = [], threading.Barrier(2)

    def hash_for(pool: PassphraseWorkers) -> None:
        start.wait(timeout=WAIT_SECONDS)
        spans.append(pool.hash_in_turn(STRANGERS, str(tmp_path), held, 0.5))

    threads = [threading.Thread(target=hash_for, args=(pool,)) for pool in (first, second)]
    for thread in threads:
        thread.start()
    joined(threads)
    (_began, ended), (next_began, _next_ended) = sorted(spans)
    assert ended <= next_began


def test_passphrases_are_hashed_at_a_lower_priority_than_the_requests(tmp_path, pools):
    here = os.getpriority(os.PRIO_PROCESS, 0)
    assert pools().hash_in_turn(STRANGERS, str(tmp_path), priority) == here + WORKER_NICENESS
    if sys.platform == "linux" and os.path.exists("/proc/self/autogroup"):
        assert os.getsid(0) != pools().hash_in_turn(STRANGERS, str(tmp_path), os.getsid, 0)


def test_a_sign_up_with_no_seat_to_wait_gets_a_503_and_changes_nothing(instance_path, database_url):
    app = create_app(
        {"TESTING": True, "DATABASE_URL": database_url, **HOSTED}, instance_path=instance_path
    )
    store = app.extensions[STORE_EXTENSION]
    client = app.test_client()
    token = csrf_token(client, "/household/new")
    with app.app_context():
        pool = hashers()
    # Strangers' passphrases fill their seats, one being hashed and one waiting, until the
    # test has seen the sign-up refused.
    release = instance_path / "release"
    busy = [
        threading.Thread(
            target=pool.hash_in_turn,
            args=(STRANGERS, str(instance_path), held_until, str(release)),
        )
        for _ in range(2)
    ]
    for thread in busy:
        thread.start()
    deadline = time.monotonic() + 10
    while pool.queue.running + pool.queue.waiting < 2:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    before = every_row(store)
    try:
        with pytest.raises(Busy):
            pool.hash_in_turn(STRANGERS, str(instance_path), held, 0)
        response = client.post(
            "/household/new",
            data={"name": "Les Martin", "passphrase": "correct horse battery", "csrf_token": token},
        )
        assert response.status_code == 503 and response.headers["Retry-After"] == "5"
        assert "Le serveur est très occupé" in response.get_data(as_text=True)
        # Every sign-up counts towards the address's limit, served or not
        # (attempt_counts, the server's own counter); nothing else changes.
        assert _without_counters(every_row(store)) == _without_counters(before)
        assert count_households(store) == 1
    finally:
        release.touch()
        for thread in busy:
            thread.join(timeout=120)
        store.dispose()
    assert not any(thread.is_alive() for thread in busy)


def _without_counters(rows: dict) -> dict:
    return {table: table_rows for table, table_rows in rows.items() if table != "attempt_counts"}
