"""Shared fixtures: an app on a fresh instance folder and database, its clients, its store.

The database is a SQLite file in the instance folder, or a clean PostgreSQL database when
SCOREKEEPER_TEST_DATABASE_URL names a server (see tests/support/databases.py). Tests about SQLite
itself carry the `sqlite_only` marker and are skipped there.
"""

import os

import pytest

from scorekeeper import config as config_module
from scorekeeper.app import DATABASE_URL_ENV
from scorekeeper.config import TEMPLATE_CACHE_DIR
from scorekeeper.store import Store
from tests.support import advisor_tables
from tests.support.apps import app_on
from tests.support.databases import (
    ON_POSTGRESQL,
    REQUIRE_POSTGRESQL_ENV,
    TEST_DATABASE_URL_ENV,
    close_databases,
    give_database,
    take_database,
)


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "sqlite_only(reason): about SQLite itself (its file, PRAGMAs, backup API); "
        "skipped on PostgreSQL",
    )
    if os.environ.get(REQUIRE_POSTGRESQL_ENV) == "1" and not ON_POSTGRESQL:
        raise pytest.UsageError(
            f"{REQUIRE_POSTGRESQL_ENV}=1 but {TEST_DATABASE_URL_ENV} is not "
            "set: this run would test SQLite only"
        )
    # pytest-xdist's load scheduling hands each test process a run of consecutive tests at
    # once (a quarter of its share at the start, then half of what is left): the longest
    # modules, first in the order, all went to one process, and the browser tests in one
    # block to another, which worked on alone at the end while the others had finished. Two
    # at a time, each process takes the next tests as it frees up.
    if getattr(config.option, "maxschedchunk", "no xdist") is None:
        config.option.maxschedchunk = 2


def pytest_xdist_auto_num_workers(config):
    """`-n auto`: one test process more than the machine has cores (pyproject.toml caps them
    at 4). The tests wait much of their time (for Chromium, a server, a PDF or import
    worker), and a third process on two cores uses those waits: the browser, print, quota
    and household tests took 409 s with two processes, 281 s with three, 304 s with four."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # pytest-xdist's own setting decides
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return (cores or 1) + 1


# The modules whose tests take the most time (`pytest --durations=40`), run first: the test
# processes take tests in this order, and the short ones left for the end fill the gaps, where
# a long test left for the end would keep the run going on one core. The Conseil's pages,
# which wait for the tables built in the background from the start (`shared_tables`), come
# last.
LONGEST_FIRST = (
    "tests/robustness/test_every_route.py",
    "tests/browser/test_instant.py",
    "tests/web/test_write_isolation.py",
    "tests/browser/test_at_the_table.py",
    "tests/browser/test_accessibility.py",
    "tests/advisor/test_winning.py",
    "tests/robustness/test_hostile_input.py",
    "tests/browser/test_layout.py",
    "tests/web/test_quotas.py",
    "tests/test_home_server.py",
    "tests/advisor/test_builds.py",
    "tests/web/test_isolation.py",
    "tests/browser/test_around_the_table.py",
    "tests/web/test_households.py",
    "tests/robustness/test_crashes.py",
    "tests/web/test_language.py",
    "tests/robustness/test_races.py",
    "tests/web/test_household_limits.py",
)


def pytest_collection_modifyitems(config, items):
    rank = {module: place for place, module in enumerate(LONGEST_FIRST)}

    def place(item):
        # An item of a plugin's own (the browser tests' one skip) may have no fixtures.
        if advisor_tables.FIXTURE in getattr(item, "fixturenames", ()):
            return len(rank) + 1
        return rank.get(item.nodeid.split("::")[0], len(rank))

    # Stable: each module keeps its own order (and its module-scoped fixtures their grouping).
    items.sort(key=place)
    if not ON_POSTGRESQL:
        return
    for item in items:
        marker = item.get_closest_marker("sqlite_only")
        if marker is not None:
            reason = marker.args[0] if marker.args else "about SQLite itself"
            item.add_marker(pytest.mark.skip(reason=f"SQLite only: {reason}"))


def pytest_unconfigure(config):
    close_databases()


@pytest.fixture(scope="session", autouse=True)
def _advisor_tables_built_early(request, tmp_path_factory):
    """The Conseil's shared tables start building with the run when some test needs them."""
    needed = {name for item in request.session.items for name in item.fixturenames}
    with advisor_tables.built_early(tmp_path_factory.getbasetemp(), needed):
        yield


@pytest.fixture(scope="session")
def shared_tables(tmp_path_factory):
    """The folder of the Conseil's real tables, shared by the test processes
    (tests/support/advisor_tables.py): built when the first test asks, or found built."""
    folder = advisor_tables.shared_folder(tmp_path_factory.getbasetemp())
    advisor_tables.build(folder)
    return folder


@pytest.fixture(autouse=True)
def _database_from_the_test_setting(request, monkeypatch):
    """A developer's SCOREKEEPER_DATABASE_URL must never reach the tests; on PostgreSQL every
    test with a folder of its own gets a clean database, also for the apps it makes itself."""
    monkeypatch.delenv(DATABASE_URL_ENV, raising=False)
    if ON_POSTGRESQL and "tmp_path" in request.fixturenames:
        monkeypatch.setenv(DATABASE_URL_ENV, request.getfixturevalue("database_url"))


@pytest.fixture(scope="session")
def _templates_compiled(tmp_path_factory):
    return str(tmp_path_factory.getbasetemp() / TEMPLATE_CACHE_DIR)


@pytest.fixture(autouse=True)
def _test_app_defaults(monkeypatch, _templates_compiled):
    """The apps the tests make build no Conseil table before it is asked for: each game
    created would start a real build, seconds of a core. The tests of that setting turn it
    on (tests/web/test_tables_ahead.py). Nor do they count finished games for the coach: a
    game finished beside the real tables would start a worker whose writes could outlive
    its test (tests/test_coach.py turns it on). And the apps of a test process share one
    folder of compiled templates: each test's app has an instance folder of its own, and
    compiling its templates anew took a tenth of the run's CPU (tests/test_instance.py
    checks the instance's own folder)."""
    defaults = config_module.defaults
    monkeypatch.setattr(
        config_module,
        "defaults",
        lambda instance: {
            **defaults(instance),
            "ADVISOR_TABLES_AHEAD": False,
            "COACH_AFTER_GAMES": False,
            "TEMPLATE_CACHE_FOLDER": _templates_compiled,
        },
    )


@pytest.fixture
def instance_path(tmp_path):
    return tmp_path / "instance"


@pytest.fixture
def database_url(instance_path):
    """The test's database: the instance folder's SQLite file, as the app would name it, or a
    clean PostgreSQL database."""
    url = take_database(instance_path)
    yield url
    give_database(url)


@pytest.fixture
def another_database():
    """Gives a second instance folder its own clean database: ``another_database(folder)`` is
    the URL of the folder's SQLite file, or of another PostgreSQL database."""
    taken = []

    def take(folder):
        taken.append(take_database(folder))
        return taken[-1]

    yield take
    for url in taken:
        give_database(url)


@pytest.fixture
def app(instance_path, database_url):
    """The app with CSRF on, as in production: tests that POST must send the token."""
    with app_on(instance_path, database_url) as app:
        yield app


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def runner(app):
    return app.test_cli_runner()


@pytest.fixture
def store(instance_path, database_url):
    """A store on the same database as the `app` fixture, usable without it."""
    instance_path.mkdir(parents=True, exist_ok=True)
    store = Store(database_url)
    store.migrate()
    yield store
    store.dispose()
