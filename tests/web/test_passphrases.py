"""Passphrases hashed a few at a time in the request threads: never more at once in a server
process than the setting says, a household's in turn beside the strangers', and a sign-up
with no seat left refused at once."""

import threading
import time

import pytest

from scorekeeper.app import STORE_EXTENSION, create_app
from scorekeeper.config import SETTINGS
from scorekeeper.fairness import Busy
from scorekeeper.store.households import count_households
from scorekeeper.web.passphrases import STRANGERS, hashing, in_turn
from tests.support.apps import HOSTED
from tests.support.forms import csrf_token
from tests.support.games import every_row
from tests.support.threads import WAIT_SECONDS, joined


@pytest.fixture
def hosted_app(instance_path, database_url):
    app = create_app(
        {"TESTING": True, "DATABASE_URL": database_url, **HOSTED, "PASSPHRASE_HASHERS": 1},
        instance_path=instance_path,
    )
    yield app
    app.extensions[STORE_EXTENSION].dispose()


class Holder:
    """A hash that holds its place until released (a minute at most), however slow the
    machine is meanwhile; ``started`` once it holds it."""

    def __init__(self, app, owner) -> None:
        self.started, self.release = threading.Event(), threading.Event()
        self.outcome: list[object] = []
        self.thread = threading.Thread(target=self._run, args=(app, owner))

    def _hold(self) -> str:
        self.started.set()
        assert self.release.wait(60)
        return "hashed"

    def _run(self, app, owner) -> None:
        with app.app_context():
            try:
                self.outcome.append(in_turn(owner, self._hold))
            except Busy:
                self.outcome.append(Busy)


def _until(condition) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():
        assert time.monotonic() < deadline, "never came"
        time.sleep(0.01)


def test_half_the_cores_hash_at_once_by_default(monkeypatch, tmp_path):
    hashers = next(setting for setting in SETTINGS if setting.name == "PASSPHRASE_HASHERS")
    for cores, at_once in ((1, 1), (2, 1), (4, 2), (None, 1)):
        monkeypatch.setattr("os.cpu_count", lambda cores=cores: cores)
        assert hashers.value(tmp_path) == at_once


def test_a_process_hashes_no_more_passphrases_at_once_than_its_setting(hosted_app):
    spans, start = [], threading.Barrier(2)

    def held() -> None:
        began = time.monotonic()
        time.sleep(0.3)
        spans.append((began, time.monotonic()))

    def hash_one(owner) -> None:
        start.wait(timeout=WAIT_SECONDS)
        with hosted_app.app_context():
            in_turn(owner, held)

    # Two owners: each may hold a place, so only the setting keeps them one at a time.
    threads = [threading.Thread(target=hash_one, args=(owner,)) for owner in (STRANGERS, 7)]
    for thread in threads:
        thread.start()
    joined(threads)
    (_began, ended), (next_began, _next_ended) = sorted(spans)
    assert ended <= next_began


def test_a_household_takes_its_turn_beside_a_flood_of_strangers(hosted_app):
    hashing_now = Holder(hosted_app, STRANGERS)
    hashing_now.thread.start()
    assert hashing_now.started.wait(WAIT_SECONDS)
    waiting = Holder(hosted_app, STRANGERS)
    waiting.thread.start()
    with hosted_app.app_context():
        _until(lambda: hashing().waiting == 1)
    # Every seat is taken by the strangers: the family's PIN takes the seat of their
    # newest waiter, which is told to come back, and is checked next.
    household = Holder(hosted_app, 7)
    household.thread.start()
    joined([waiting.thread])
    assert waiting.outcome == [Busy]
    hashing_now.release.set()
    assert household.started.wait(WAIT_SECONDS)
    household.release.set()
    joined([hashing_now.thread, household.thread])
    assert hashing_now.outcome == household.outcome == ["hashed"]


def test_a_sign_up_with_no_seat_to_wait_gets_a_503_and_changes_nothing(hosted_app):
    store = hosted_app.extensions[STORE_EXTENSION]
    client = hosted_app.test_client()
    token = csrf_token(client, "/household/new")
    # Strangers' passphrases fill their seats, one being hashed and one waiting, until the
    # test has seen the sign-up refused.
    holders = [Holder(hosted_app, STRANGERS) for _ in range(2)]
    for holder in holders:
        holder.thread.start()
    with hosted_app.app_context():
        _until(lambda: hashing().running + hashing().waiting == 2)
    before = every_row(store)
    try:
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
        for holder in holders:
            holder.release.set()
        joined([holder.thread for holder in holders])
    assert [holder.outcome for holder in holders] == [["hashed"], ["hashed"]]


def _without_counters(rows: dict) -> dict:
    return {table: table_rows for table, table_rows in rows.items() if table != "attempt_counts"}
