"""Games finished and reopened at the same moment: every counter stays the replay of the games.

On PostgreSQL (READ COMMITTED) writers really run at once; on SQLite they queue for the
write lock. The same test runs on both: threads of one app, each with its own client and
its own game, all sharing players and rule sets, finish and undo their last turn together.
"""

import random
import threading

import pytest

from scorekeeper.app import STORE_EXTENSION, create_app
from scorekeeper.rules import Rules, read_document
from scorekeeper.store.play import play_turn, start_game
from scorekeeper.store.results import expected_tables, stored_tables
from scorekeeper.store.samples import random_document

THREADS = 8
ROUNDS = 6
NAMES = ["Mag", "Alix", "Zoé"]
PRESETS = ["classique", "yatzy"]


@pytest.fixture
def busy_app(instance_path, database_url):
    app = create_app({"TESTING": True, "WTF_CSRF_ENABLED": False,
                      "DATABASE_URL": database_url}, instance_path=instance_path)
    yield app
    app.extensions[STORE_EXTENSION].dispose()


def _one_turn_from_the_end(store, rng, index):
    """A game of two of the shared players, played up to its last turn; that turn's form."""
    rules = Rules.from_dict({"preset": PRESETS[index % len(PRESETS)]})
    players = rng.sample(NAMES, 2)
    parsed = read_document(random_document(rules, players, rng))
    game_id = start_game(store, parsed.rules, parsed.players)
    *first, last = parsed.entries
    for seq, entry in enumerate(first):
        play_turn(store, game_id, seq, entry.column, entry.box, entry.dice)
    return game_id, {"seq": len(first), "dice": "".join(map(str, last.dice)),
                     "target": f"{last.column}:{last.box}", "confirm": "1"}


def test_concurrent_finishes_and_undos_keep_every_counter_equal_to_the_replays(busy_app):
    store = busy_app.extensions[STORE_EXTENSION]
    rng = random.Random(13)
    # Some games are finished before the races start, so that undos race finishes at once.
    games = [_one_turn_from_the_end(store, rng, index) for index in range(THREADS)]
    for game_id, last_turn in games[::2]:
        version = store.game_version(game_id).token
        assert busy_app.test_client().post(f"/games/{game_id}/entries",
                                           data={**last_turn, "version": version}
                                           ).status_code == 303
    barrier = threading.Barrier(THREADS)
    statuses: list[int] = []
    failures: list[BaseException] = []

    def table(index: int) -> None:
        game_id, last_turn = games[index]
        client = busy_app.test_client()
        finished = index % 2 == 0
        try:
            for _ in range(2 * ROUNDS):
                barrier.wait(timeout=60)
                # Each game is played by its thread alone: the version read here is the one
                # its sheet would show.
                version = store.game_version(game_id).token
                if finished:
                    response = client.post(f"/games/{game_id}/undo",
                                           data={"seq": last_turn["seq"] + 1, "version": version})
                else:
                    response = client.post(f"/games/{game_id}/entries",
                                           data={**last_turn, "version": version})
                statuses.append(response.status_code)
                finished = not finished
        except BaseException as error:  # re-raised below, in the test's thread
            failures.append(error)
            barrier.abort()

    threads = [threading.Thread(target=table, args=(index,)) for index in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    if failures:
        raise failures[0]
    assert statuses == [303] * (THREADS * 2 * ROUNDS)
    with store.engine.connect() as connection:
        stored, expected = stored_tables(connection), expected_tables(connection)
    # Half the games end finished, whatever the interleaving.
    assert sum(row["seat"] == 0 for row in expected["results"]) == THREADS // 2
    assert stored == expected
