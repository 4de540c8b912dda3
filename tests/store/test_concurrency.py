"""Games finished and reopened at the same moment: every counter stays the replay of the games.

On PostgreSQL (READ COMMITTED) writers really run at once; on SQLite they queue for the
write lock. The same test runs on both: threads of one app, each with its own client and
its own game, all sharing players and rule sets, finish and undo their last turn together,
while imports of games of the same players run. A transaction PostgreSQL breaks off (a
deadlock) is run again whole.
"""

import functools
import json
import random
import threading
from collections.abc import Callable

import pytest
from sqlalchemy import func, select
from sqlalchemy.exc import OperationalError

from scorekeeper.app import STORE_EXTENSION, create_app
from scorekeeper.play import load, play_turn, start_game
from scorekeeper.rules import Rules, read_document
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store import players as players_module
from scorekeeper.store.counters import ResultsDelta
from scorekeeper.store.documents import check_files
from scorekeeper.store.games import game_version
from scorekeeper.store.players import list_players, merge_players
from scorekeeper.store.quotas import NO_QUOTAS
from scorekeeper.store.schema import games
from scorekeeper.store.transfer import import_games
from testing.samples import random_document
from testing.tables import expected_tables, stored_tables
from tests.support.threads import joined

THREADS = 8
ROUNDS = 6
NAMES = ["Mag", "Alix", "Zoé"]
PRESETS = ["classique", "yatzy"]


@pytest.fixture
def busy_app(instance_path, database_url):
    app = create_app(
        {"TESTING": True, "WTF_CSRF_ENABLED": False, "DATABASE_URL": database_url},
        instance_path=instance_path,
    )
    yield app
    app.extensions[STORE_EXTENSION].dispose()


def _one_turn_from_the_end(store, rng, index):
    """A game of two of the shared players, played up to its last turn; that turn's form."""
    rules = Rules.from_dict({"preset": PRESETS[index % len(PRESETS)]})
    players = rng.sample(NAMES, 2)
    parsed = read_document(random_document(rules, players, rng))
    game_id = start_game(
        store, parsed.rules, parsed.players, household=HOME_HOUSEHOLD, quotas=NO_QUOTAS
    )
    *first, last = parsed.entries
    for seq, entry in enumerate(first):
        play_turn(
            store, game_id, seq, entry.column, entry.box, entry.dice, household=HOME_HOUSEHOLD
        )
    return game_id, {
        "seq": len(first),
        "dice": "".join(map(str, last.dice)),
        "target": f"{last.column}:{last.box}",
        "confirm": "1",
    }


def _finish_or_undo(client, store, game_id: int, last_turn: dict, finished: bool) -> int:
    """Play the last turn of a game, or undo it once played; the answer's status."""
    # Each game is played by one thread alone: the version read here is the one its sheet
    # would show.
    version = game_version(store, game_id, household=HOME_HOUSEHOLD).token
    if finished:
        return client.post(
            f"/games/{game_id}/undo", data={"seq": last_turn["seq"] + 1, "version": version}
        ).status_code
    return client.post(
        f"/games/{game_id}/entries", data={**last_turn, "version": version}
    ).status_code


def _together(barrier: threading.Barrier, *jobs: Callable[[], None]) -> None:
    """Run each job in a thread of its own; the first failure is raised here, in the test's
    thread, and breaks the barrier so that no other thread waits for the failed one."""
    failures: list[BaseException] = []

    def run(job: Callable[[], None]) -> None:
        try:
            job()
        except BaseException as error:
            failures.append(error)
            barrier.abort()

    threads = [threading.Thread(target=run, args=(job,)) for job in jobs]
    for thread in threads:
        thread.start()
    joined(threads)
    if failures:
        raise failures[0]


def _counters(store) -> tuple[dict, dict]:
    """The aggregate tables as stored, and as a replay of every finished game gives them."""
    with store.engine.connect() as connection:
        return stored_tables(connection), expected_tables(connection)


def test_concurrent_finishes_and_undos_keep_every_counter_equal_to_the_replays(busy_app):
    store = busy_app.extensions[STORE_EXTENSION]
    rng = random.Random(13)
    # Some games are finished before the races start, so that undos race finishes at once.
    games = [_one_turn_from_the_end(store, rng, index) for index in range(THREADS)]
    for game_id, last_turn in games[::2]:
        version = game_version(store, game_id, household=HOME_HOUSEHOLD).token
        assert (
            busy_app.test_client()
            .post(f"/games/{game_id}/entries", data={**last_turn, "version": version})
            .status_code
            == 303
        )
    barrier = threading.Barrier(THREADS)
    statuses: list[int] = []

    def table(index: int) -> None:
        game_id, last_turn = games[index]
        client = busy_app.test_client()
        finished = index % 2 == 0
        for _ in range(2 * ROUNDS):
            barrier.wait(timeout=60)
            statuses.append(_finish_or_undo(client, store, game_id, last_turn, finished))
            finished = not finished

    _together(barrier, *(functools.partial(table, index) for index in range(THREADS)))

    assert statuses == [303] * (THREADS * 2 * ROUNDS)
    stored, expected = _counters(store)
    # Half the games end finished, whatever the interleaving.
    assert sum(row["seat"] == 0 for row in expected["results"]) == THREADS // 2
    assert stored == expected


def test_imports_racing_finishes_and_undos_keep_every_counter_equal_to_the_replays(busy_app):
    store = busy_app.extensions[STORE_EXTENSION]
    rng = random.Random(21)
    games_played = [_one_turn_from_the_end(store, rng, index) for index in range(4)]
    # Old and new games of the same players and rule sets: every streak is recounted.
    batches = [
        check_files(
            [
                (
                    "games.json",
                    json.dumps(
                        [
                            {
                                **random_document(
                                    Rules.from_dict({"preset": PRESETS[number % 2]}),
                                    rng.sample(NAMES, 2),
                                    rng,
                                ),
                                "finished_at": f"20{20 + number}-01-01",
                            }
                            for number in range(8)
                        ]
                    ),
                )
            ]
        )
        for _ in range(3)
    ]
    barrier = threading.Barrier(len(games_played) + 1)
    statuses: list[int] = []

    def table(game_id, last_turn) -> None:
        client = busy_app.test_client()
        barrier.wait(timeout=60)
        for round_number in range(2 * ROUNDS):
            statuses.append(
                _finish_or_undo(client, store, game_id, last_turn, round_number % 2 == 1)
            )

    def importer() -> None:
        barrier.wait(timeout=60)
        for checked in batches:
            import_games(store, checked, household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)

    _together(barrier, importer, *(functools.partial(table, *game) for game in games_played))

    assert statuses == [303] * (len(games_played) * 2 * ROUNDS)
    stored, expected = _counters(store)
    assert len({row["game_id"] for row in expected["results"]}) == 24
    assert stored == expected


class _BrokenOff(Exception):
    """What psycopg raises when PostgreSQL breaks a transaction off to end a deadlock."""

    sqlstate = "40P01"


def _broken_off_once(monkeypatch, owner, name):
    """``owner.name`` runs, then fails the first time as a deadlock would; the times it ran."""
    original = getattr(owner, name)
    calls = []

    def first_one_deadlocks(*args, **kwargs):
        calls.append(args)
        result = original(*args, **kwargs)
        if len(calls) == 1:
            raise OperationalError("deadlock detected", None, _BrokenOff())
        return result

    monkeypatch.setattr(owner, name, first_one_deadlocks)
    return calls


def test_an_import_broken_off_by_a_deadlock_runs_again_whole(store, monkeypatch):
    rng = random.Random(7)
    documents = [random_document(Rules(), rng.sample(NAMES, 2), rng) for _ in range(6)]
    checked = check_files([("games.json", json.dumps(documents))])
    # After its counters: everything else of the transaction is written by then.
    calls = _broken_off_once(monkeypatch, ResultsDelta, "add_to_counters")

    ids = import_games(store, checked, household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)

    assert len(calls) == 2
    # Each game once, with its whole log: nothing of the first attempt stayed.
    assert [len(load(store, game_id, household=HOME_HOUSEHOLD)[0].entries) for game_id in ids] == [
        len(game.state.entries) for game in checked
    ]
    with store.engine.connect() as connection:
        assert connection.scalar(select(func.count()).select_from(games)) == len(documents)
    stored, expected = _counters(store)
    assert len(expected["results"]) == 12 and stored == expected


def test_a_merge_broken_off_by_a_deadlock_runs_again_whole(store, monkeypatch):
    rng = random.Random(8)
    documents = [
        random_document(Rules(), [first, "Zoé"], rng)
        for first in ("Mag", "Maggie", "Mag", "Maggie")
    ]
    import_games(
        store,
        check_files([("games.json", json.dumps(documents))]),
        household=HOME_HOUSEHOLD,
        quotas=NO_QUOTAS,
    )
    by_name = {player.name: player.id for player in list_players(store, household=HOME_HOUSEHOLD)}
    calls = _broken_off_once(monkeypatch, players_module, "rebuild_player_aggregates")

    merge_players(store, by_name["Mag"], by_name["Maggie"], household=HOME_HOUSEHOLD)

    assert len(calls) == 2
    players = list_players(store, household=HOME_HOUSEHOLD)
    assert [player.name for player in players] == ["Mag", "Zoé"]
    stored, expected = _counters(store)
    assert stored == expected
