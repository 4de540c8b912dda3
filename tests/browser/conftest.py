"""A real server and Debian's Chromium: the pages as a tablet at the table shows them.

Playwright drives Debian's Chromium in its headless shell (`tablets.CHROMIUM`, installed by
.ci/run with apt-get) and never downloads a browser of its own. The server is waitress, as
`scorekeeper serve` runs it, on a free loopback port with a fresh instance folder.

On a machine without that Chromium (or without Playwright) the browser tests are one
skipped test that says why, unless SCOREKEEPER_REQUIRE_BROWSER=1 (set by .ci/run): then
that test fails, and a CI machine cannot pass without them.
"""

import importlib.util
import os
from pathlib import Path

import pytest

from scorekeeper.app import create_app
from scorekeeper.play import load, play_turn, start_game
from scorekeeper.rules import Rules
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.quotas import NO_QUOTAS
from scorekeeper.web import streams
from scorekeeper.web.conseil import ADVISOR_EXTENSION
from scorekeeper.web.store import STORE_EXTENSION
from tests.browser.tablets import CHROMIUM, PAGE_WAIT_MS, TABLETS, served_in_thread
from tests.support.databases import give_database, take_database
from tests.support.walk import NeverBuiltStrategies

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"

REQUIRE_BROWSER = "SCOREKEEPER_REQUIRE_BROWSER"


def _missing_browser() -> str | None:
    """Why the browser tests cannot run on this machine; None when they can."""
    if importlib.util.find_spec("playwright") is None:
        return "Playwright is not installed (pip install -e '.[test]')"
    if not os.access(CHROMIUM, os.X_OK):
        return f"no Chromium at {CHROMIUM} (apt-get install chromium-headless-shell)"
    return None


BROWSER_MISSING = _missing_browser()
if BROWSER_MISSING:
    # The test modules import Playwright and need the browser: one test stands for them.
    collect_ignore_glob = ["test_*.py"]


class _BrowserCheck(pytest.Item):
    def runtest(self) -> None:
        if os.environ.get(REQUIRE_BROWSER) == "1":
            pytest.fail(f"{REQUIRE_BROWSER}=1 but {BROWSER_MISSING}", pytrace=False)
        pytest.skip(f"browser tests: {BROWSER_MISSING}")

    def reportinfo(self):
        return self.path, None, "browser tests"


class _BrowserTests(pytest.File):
    def collect(self):
        yield _BrowserCheck.from_parent(self, name="browser_tests")


def pytest_collect_file(file_path: Path, parent):
    if BROWSER_MISSING and file_path == Path(__file__):
        return _BrowserTests.from_parent(parent, path=file_path)
    return None


@pytest.fixture(scope="session")
def live_app(tmp_path_factory):
    instance = tmp_path_factory.mktemp("instance")
    # The database is named here so that a developer's SCOREKEEPER_DATABASE_URL is ignored.
    database_url = take_database(instance)
    # Room for the streams of the pages a test opens: a closed page's stream is found gone
    # at its next heartbeat only (web/streams.py; see `_streams_of_pages_left_end_soon`).
    app = create_app({"DATABASE_URL": database_url, "LIVE_STREAMS": 64}, instance_path=instance)
    # A page that asks for the Conseil shows its build under way: a real build would go on
    # for a minute of CPU after the test (tests/browser/test_advice.py stands in its own).
    app.extensions[ADVISOR_EXTENSION] = NeverBuiltStrategies(app.instance_path)
    yield app
    app.extensions[STORE_EXTENSION].dispose()
    give_database(database_url)


@pytest.fixture(autouse=True)
def _streams_of_pages_left_end_soon(monkeypatch):
    """A page left keeps its stream, a waitress thread and a connection until the stream's
    next heartbeat finds it gone (web/streams.py, every 45 s): a test that loads a page at each
    screen would hold a hundred of them, past waitress's 100 connections. Here the heartbeat
    comes every 2 s; a page ignores it."""
    monkeypatch.setattr(streams, "HEARTBEAT_SECONDS", 2)


@pytest.fixture(scope="session")
def server(live_app):
    """The base URL of the app served by waitress on 127.0.0.1."""
    with served_in_thread(live_app) as base_url:
        yield base_url


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=PAGE_WAIT_MS)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def open_page(browser, server):
    """Open a page of the app in a fresh browser context:
    open_page(path, size=..., js=..., lang="fr" or "en")."""
    contexts = []

    def open_page(path="/", size=TABLETS["landscape"], js=True, lang="fr"):
        width, height = size
        context = browser.new_context(
            viewport={"width": width, "height": height},
            locale={"fr": "fr-FR", "en": "en-GB"}[lang],
            java_script_enabled=js,
            has_touch=True,
            base_url=server,
        )
        context.set_default_timeout(PAGE_WAIT_MS)
        contexts.append(context)
        page = context.new_page()
        page.goto(path)
        return page

    yield open_page
    for context in contexts:
        context.close()


@pytest.fixture
def seed(live_app):
    """Start a game straight in the store and play some turns: seed(names, turns, **rules).

    Each turn is (dice, "column:box"), played by whoever's turn it is.
    """
    store = live_app.extensions[STORE_EXTENSION]

    def seed(names, turns=(), **rules):
        game_id = start_game(
            store, Rules.from_dict(rules), names, household=HOME_HOUSEHOLD, quotas=NO_QUOTAS
        )
        for seq, (dice, target) in enumerate(turns):
            column, _sep, box = target.partition(":")
            play_turn(store, game_id, seq, column, box, dice, household=HOME_HOUSEHOLD)
        return game_id

    seed.state = lambda game_id: load(store, game_id, household=HOME_HOUSEHOLD)[1]
    return seed


@pytest.fixture(scope="session")
def artifacts():
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
