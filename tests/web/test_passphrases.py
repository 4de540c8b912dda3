"""Passphrases hashed a few at a time: in niced threads, in turn, never more at once on the
machine than the setting says, and a sign-up with no seat left refused at once."""

import os
import re
import sys
import threading
import time

import pytest

from scorekeeper.app import STORE_EXTENSION, create_app
from scorekeeper.fairness import Busy
from scorekeeper.store.households import count_households
from scorekeeper.web.passphrases import STRANGERS, Hashers, hashers
from tests.store.test_transfer import every_row


def test_two_server_processes_hash_one_passphrase_at_a_time_between_them(tmp_path):
    # Two processes' hashers share the instance folder's lock file, as gunicorn's workers do.
    first, second = Hashers(1, 1, tmp_path), Hashers(1, 1, tmp_path)
    spans, start = [], threading.Barrier(2)

    def hash_for(pool: Hashers) -> None:
        start.wait()
        pool.run(STRANGERS, lambda: spans.append((time.monotonic(), time.sleep(0.3),
                                                  time.monotonic())))

    threads = [threading.Thread(target=hash_for, args=(pool,)) for pool in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    (began, _, ended), (next_began, _, next_ended) = sorted(spans)
    assert ended <= next_began


@pytest.mark.skipif(sys.platform != "linux", reason="a nice value per thread is Linux's")
def test_passphrases_are_hashed_at_a_lower_priority_than_the_requests(tmp_path):
    pool = Hashers(1, 1, tmp_path)
    here = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    there = pool.run(STRANGERS,
                     lambda: os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
    assert there == here + 10


def test_a_sign_up_with_no_seat_to_wait_gets_a_503_and_changes_nothing(instance_path,
                                                                        database_url):
    app = create_app({"TESTING": True, "DATABASE_URL": database_url, "HOUSEHOLDS": True},
                     instance_path=instance_path)
    store = app.extensions[STORE_EXTENSION]
    client = app.test_client()
    page = client.get("/household/new").get_data(as_text=True)
    token = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', page).group(1)
    release = threading.Event()
    with app.app_context():
        pool = hashers()
    # Strangers' passphrases fill their seats: one being hashed, one waiting.
    held = [threading.Thread(target=pool.run, args=(STRANGERS, release.wait))
            for _ in range(2)]
    for thread in held:
        thread.start()
    deadline = time.monotonic() + 10
    while pool.queue.running + pool.queue.waiting < 2:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    before = every_row(store)
    try:
        with pytest.raises(Busy):
            pool.run(STRANGERS, lambda: None)
        response = client.post("/household/new", data={
            "name": "Les Martin", "passphrase": "correct horse battery", "csrf_token": token})
        assert response.status_code == 503 and response.headers["Retry-After"] == "5"
        assert "Le serveur est très occupé" in response.get_data(as_text=True)
        assert every_row(store) == before and count_households(store) == 1
    finally:
        release.set()
        for thread in held:
            thread.join()
        store.dispose()
