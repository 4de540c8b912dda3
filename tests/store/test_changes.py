"""Who is told when a game changes (store/changes.py): the watchers of the game in this
process, woken by the write's commit, on SQLite within the process and on PostgreSQL from
any process through LISTEN/NOTIFY."""

import subprocess
import sys
import textwrap
import time

import pytest
from sqlalchemy import create_engine, text

from scorekeeper.play import play_turn, start_game
from scorekeeper.rules import Rules
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.changes import Stopped, TooManyWatchers, listen_to
from scorekeeper.store.engine import CHANNEL
from scorekeeper.store.games import game_version
from scorekeeper.store.quotas import NO_QUOTAS
from tests.support.databases import ON_POSTGRESQL

WAIT_SECONDS = 10


def _game(store, names=("Mag", "Alix")):
    return start_game(store, Rules(), list(names), household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)


def test_a_write_wakes_the_watchers_of_its_game_and_no_other(store):
    changes = listen_to(store, 10)
    game_id, other = _game(store), _game(store)
    watchers = [changes.watch(game_id, household=HOME_HOUSEHOLD) for _ in range(3)]
    elsewhere = changes.watch(other, household=HOME_HOUSEHOLD)
    assert watchers[0].first.entry_count == 0
    play_turn(store, game_id, 0, "free", "sixes", "66662", household=HOME_HOUSEHOLD)
    now = game_version(store, game_id, household=HOME_HOUSEHOLD)
    assert [watcher.wait(WAIT_SECONDS) for watcher in watchers] == [now] * 3
    assert elsewhere.wait(0.1) is False
    # Each change wakes a watcher once.
    assert watchers[0].wait(0.1) is False


def test_a_change_between_the_start_and_the_first_wait_is_not_missed(store):
    changes = listen_to(store, 10)
    game_id = _game(store)
    watcher = changes.watch(game_id, household=HOME_HOUSEHOLD)
    play_turn(store, game_id, 0, "free", "sixes", "66662", household=HOME_HOUSEHOLD)
    assert watcher.wait(WAIT_SECONDS).entry_count == 1


def test_a_game_of_another_household_is_no_game(store):
    changes = listen_to(store, 10)
    game_id = _game(store)
    assert changes.watch(game_id, household=HOME_HOUSEHOLD + 1).first is None


def test_the_limit_counts_open_watchers_and_stop_ends_them(store):
    changes = listen_to(store, 2)
    game_id = _game(store)
    first = changes.watch(game_id, household=HOME_HOUSEHOLD)
    second = changes.watch(game_id, household=HOME_HOUSEHOLD)
    with pytest.raises(TooManyWatchers):
        changes.watch(game_id, household=HOME_HOUSEHOLD)
    first.close()
    first.close()  # twice is once
    third = changes.watch(game_id, household=HOME_HOUSEHOLD)
    assert changes.watchers == 2
    del third  # dropped without a close: its place is free again
    assert changes.watchers == 1
    changes.stop()
    with pytest.raises(Stopped):
        second.wait(WAIT_SECONDS)
    with pytest.raises(Stopped):
        changes.watch(game_id, household=HOME_HOUSEHOLD)


needs_postgresql = pytest.mark.skipif(not ON_POSTGRESQL, reason="LISTEN/NOTIFY is PostgreSQL's")

# Another server process: its own store on the same database plays a turn.
OTHER_PROCESS = textwrap.dedent(
    """
    import sys
    from scorekeeper.store import Store
    from scorekeeper.play import play_turn
    store = Store(sys.argv[1])
    play_turn(store, int(sys.argv[2]), int(sys.argv[3]), "free", sys.argv[4], sys.argv[5],
              household=1)
    store.dispose()
    """
)


def _play_in_another_process(database_url, game_id, seq, box, dice):
    subprocess.run(
        [sys.executable, "-c", OTHER_PROCESS, database_url, str(game_id), str(seq), box, dice],
        check=True,
        timeout=60,
    )


def _listeners(database_url) -> int:
    engine = create_engine(database_url.replace("postgresql://", "postgresql+psycopg://"))
    with engine.connect() as connection:
        count = connection.scalar(
            # This test's database only: the other tests' listeners share the server.
            text(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE query = :listen AND datname = current_database()"
            ),
            {"listen": f"LISTEN {CHANNEL}"},
        )
    engine.dispose()
    return count


@needs_postgresql
def test_a_write_in_another_process_wakes_the_watchers_here(store, database_url):
    changes = listen_to(store, 50)
    game_id = _game(store)
    watchers = [changes.watch(game_id, household=HOME_HOUSEHOLD) for _ in range(20)]
    _play_in_another_process(database_url, game_id, 0, "sixes", "66662")
    assert all(watcher.wait(WAIT_SECONDS).entry_count == 1 for watcher in watchers)
    # One listening connection for the process, whatever the number of its watchers.
    assert _listeners(database_url) == 1


@needs_postgresql
def test_the_listener_comes_back_and_reads_what_it_missed(store, database_url):
    changes = listen_to(store, 10)
    game_id = _game(store)
    watcher = changes.watch(game_id, household=HOME_HOUSEHOLD)
    deadline = time.monotonic() + WAIT_SECONDS
    while _listeners(database_url) == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    # The listening connection is cut (the server restarted, a network cut), then a turn is
    # written elsewhere before it listens again: the watcher learns of it all the same.
    engine = create_engine(database_url.replace("postgresql://", "postgresql+psycopg://"))
    with engine.begin() as connection:
        connection.execute(
            text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = :q"),
            {"q": f"LISTEN {CHANNEL}"},
        )
    engine.dispose()
    _play_in_another_process(database_url, game_id, 0, "sixes", "66662")
    assert watcher.wait(WAIT_SECONDS).entry_count == 1
