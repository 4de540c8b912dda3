"""The coach (scorekeeper/coach.py): each finished game's points left to the Conseil, counted
in the background and equal to what the review's own numbers add up to, on real games; a rule
set whose tables are missing counted once a build saves them; the Conseil's estimates (Triple)
never counted; a review waiting for the build under way (one pool: never both at once); the
games of before counted after a start, by one process of the server. The
turn that finishes a game, the pages and other households: tests/web/test_coach.py."""

import functools
import random
import shutil
import time
from pathlib import Path

import pytest

from scorekeeper import coach as coach_module
from scorekeeper.advisor.tables import cache_path
from scorekeeper.app import DATABASE_FILE, STORE_EXTENSION, create_app
from scorekeeper.coach import Coach
from scorekeeper.rules import Rules
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.coach import SeatFigure
from scorekeeper.web.conseil import ADVISOR_EXTENSION, COACH_EXTENSION, coach_at_start
from testing.samples import random_document
from tests.fixtures.finished_games import finished_game_document
from tests.fixtures.make_games_0001 import FIXTURE
from tests.support.apps import app_on
from tests.support.build_workers import RELEASE, held_half_way, tables_put_in_place
from tests.support.coach import assert_same, copy_tables, recomputed, stored_figures
from tests.support.games import duo_document, import_documents, solo_document
from tests.support.threads import WAIT_SECONDS


@pytest.fixture
def coached(instance_path, database_url):
    """An app whose coach counts finished games, as a server's does."""
    with app_on(instance_path, database_url, COACH_AFTER_GAMES=True) as app:
        yield app


def test_the_coach_s_figure_is_the_review_s_sum_on_real_games(coached, shared_tables):
    app = coached
    copy_tables(shared_tables, app.instance_path)
    rng = random.Random(42)
    counted = import_documents(
        app.extensions[STORE_EXTENSION],
        duo_document("Mag", "Alix"),
        finished_game_document(["bonus", "poor", "close"]),
        random_document(Rules(), ["Mag", "Alix"], rng),
        random_document(Rules(vache=True), ["Mag", "Alix", "Zoé"], rng),
        random_document(Rules(dice=6), ["Tom", "Léa"], rng),
        random_document(Rules(columns=("sec",)), ["Léa"], rng),
    )
    estimated, waiting = import_documents(
        app.extensions[STORE_EXTENSION],
        # Triple: the Conseil is a policy there, its « points laissés » not counted.
        random_document(Rules.from_dict({"preset": "triple"}), ["Mag", "Alix"], rng),
        # Yatzy: no table in the folder yet.
        random_document(Rules.from_dict({"preset": "yatzy"}), ["Mag"], rng),
    )
    coach = app.extensions[COACH_EXTENSION]

    coach.sweep_household(household=HOME_HOUSEHOLD)

    assert coach.wait_idle(WAIT_SECONDS)
    found = stored_figures(app.extensions[STORE_EXTENSION])
    assert sorted(found) == sorted(counted)
    for game_id in counted:
        assert_same(found[game_id], recomputed(app, game_id, household=HOME_HOUSEHOLD))
    assert estimated not in found and waiting not in found
    # Two players of the same dice leave the same points; someone left some somewhere.
    duel = found[counted[0]]
    assert duel[0] == duel[1]
    assert any(figure[0] > 1 for figures in found.values() for figure in figures)


@pytest.mark.sqlite_only("migrates the SQLite file games_0001.sqlite")
def test_games_finished_before_the_coach_are_counted_after_a_start(tmp_path, shared_tables):
    instance = tmp_path / "instance"
    instance.mkdir()
    shutil.copyfile(FIXTURE, instance / DATABASE_FILE)
    copy_tables(shared_tables, str(instance))
    app = create_app({"TESTING": True, "COACH_AFTER_GAMES": True}, instance_path=instance)
    try:
        coach_at_start(app)
        assert app.extensions[COACH_EXTENSION].wait_idle(WAIT_SECONDS)
        found = stored_figures(app.extensions[STORE_EXTENSION])
        # Game 1 is classique, whose table is there; Yatzy's (3) and Plus et Moins with six
        # dice (4) are not built.
        assert sorted(found) == [1]
        assert_same(found[1], recomputed(app, 1, household=HOME_HOUSEHOLD))
    finally:
        app.extensions[STORE_EXTENSION].dispose()


def test_a_second_process_of_the_server_leaves_the_start_s_sweep_to_the_first(coached, monkeypatch):
    first = coached.extensions[COACH_EXTENSION]
    second = Coach(
        coached.extensions[STORE_EXTENSION],
        coached.instance_path,
        coached.extensions[ADVISOR_EXTENSION].workers,
    )
    asked = []
    monkeypatch.setattr(first, "sweep_all", lambda: asked.append("first"))
    monkeypatch.setattr(second, "sweep_all", lambda: asked.append("second"))

    first.sweep_at_start()
    second.sweep_at_start()

    assert asked == ["first"]


def test_a_game_whose_table_is_missing_is_counted_once_a_build_saves_it(coached, shared_tables):
    app = coached
    store = app.extensions[STORE_EXTENSION]
    (game_id,) = import_documents(store, duo_document("Mag", "Alix"))
    coach = app.extensions[COACH_EXTENSION]
    coach.game_finished(game_id, household=HOME_HOUSEHOLD)
    assert coach.wait_idle(WAIT_SECONDS)
    assert stored_figures(store) == {}

    # The app's own builds, their process standing in for the solver: it copies the tables.
    strategies = app.extensions[ADVISOR_EXTENSION]
    strategies.worker = functools.partial(tables_put_in_place, str(shared_tables))
    assert strategies.build(Rules(), household=HOME_HOUSEHOLD, with_chances=False)
    deadline = time.monotonic() + WAIT_SECONDS
    while strategies.progress(Rules()) is not None:
        assert time.monotonic() < deadline, "the build did not end"
        time.sleep(0.05)

    assert coach.wait_idle(WAIT_SECONDS)
    assert_same(stored_figures(store)[game_id], recomputed(app, game_id, household=HOME_HOUSEHOLD))


def test_a_review_waits_for_the_build_under_way(coached, shared_tables):
    # One pool for the builds and the reviews: on a family's two cores, never both at once.
    app = coached
    store = app.extensions[STORE_EXTENSION]
    copy_tables(shared_tables, app.instance_path)
    strategies = app.extensions[ADVISOR_EXTENSION]
    strategies.worker = held_half_way
    building = Rules.from_dict({"preset": "yatzy"})  # no table in the folder
    assert strategies.build(building, household=HOME_HOUSEHOLD, with_chances=False)
    deadline = time.monotonic() + WAIT_SECONDS
    while strategies.progress(building) != 0.5:
        assert time.monotonic() < deadline, "the build did not start"
        time.sleep(0.05)
    (game_id,) = import_documents(store, duo_document("Mag", "Alix"))

    app.extensions[COACH_EXTENSION].game_finished(game_id, household=HOME_HOUSEHOLD)

    while strategies.workers.queue.waiting == 0:
        assert time.monotonic() < deadline, "the review did not queue behind the build"
        time.sleep(0.05)
    assert stored_figures(store) == {}
    (Path(app.instance_path) / RELEASE).write_text(str(cache_path(Rules(), shared_tables)))
    assert app.extensions[COACH_EXTENSION].wait_idle(WAIT_SECONDS)
    assert_same(stored_figures(store)[game_id], recomputed(app, game_id, household=HOME_HOUSEHOLD))


class FailingOnce:
    """A coach's workers whose first job fails, and whose others count every player 1 point."""

    def __init__(self) -> None:
        self.jobs = 0

    def run(self, household, job, instance_path, games):
        self.jobs += 1
        if self.jobs == 1:
            raise RuntimeError("the first job failed")
        return [[SeatFigure(1.0, 13, 13)] * len(game.players) for game in games]


def test_a_batch_that_fails_leaves_the_rest_of_the_walk_to_go_on(coached, monkeypatch, caplog):
    store = coached.extensions[STORE_EXTENSION]
    monkeypatch.setattr(coach_module, "BATCH", 1)
    # Only their presence is read before a game goes to the worker.
    cache_path(Rules(), coached.instance_path).write_bytes(b"")
    older, newer = import_documents(
        store,
        solo_document("Mag", finished_at="2026-01-01T20:00:00+00:00"),
        solo_document("Alix", finished_at="2026-01-02T20:00:00+00:00"),
    )
    worker = FailingOnce()
    coach = Coach(store, coached.instance_path, worker)

    coach.sweep_household(household=HOME_HOUSEHOLD)

    assert coach.wait_idle(WAIT_SECONDS)
    assert stored_figures(store) == {older: [(1.0, 13, 13)]}
    assert "the coach could not count a game" in caplog.text
    assert newer not in stored_figures(store) and worker.jobs == 2
