"""A spectator page whose stream's seat went to a newer page of the same link: it asks for
the version every 5 s instead and stays live, without opening another stream (which would
take the newer page's seat in turn)."""

import pytest
from playwright.sync_api import expect

from scorekeeper.app import create_app
from scorekeeper.play import play_turn, start_game
from scorekeeper.rules import Rules
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.households import set_spectator_token
from scorekeeper.store.quotas import NO_QUOTAS
from scorekeeper.web.store import CHANGES_EXTENSION, STORE_EXTENSION
from tests.browser.tablets import PAGE_WAIT_MS, served_in_thread
from tests.support.databases import give_database, take_database

TOKEN = "a-spectator-token"


@pytest.fixture
def spectated(tmp_path):
    """A hosted app served in a thread, each spectator link holding one stream; a game
    with a link: (base URL, app, game)."""
    instance = tmp_path / "instance"
    database_url = take_database(instance)
    app = create_app(
        {
            "DATABASE_URL": database_url,
            "HOUSEHOLDS": True,
            "EXTERNAL_URL": "http://127.0.0.1",
            "LIVE_STREAMS_PER_SPECTATOR_LINK": 1,
        },
        instance_path=instance,
    )
    store = app.extensions[STORE_EXTENSION]
    game = start_game(store, Rules(), ("Mag",), household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    set_spectator_token(store, game, TOKEN, household=HOME_HOUSEHOLD)
    try:
        with served_in_thread(app) as base_url:
            yield base_url, app, game
    finally:
        store.dispose()
        give_database(database_url)


def test_a_page_whose_seat_went_polls_and_stays_live(browser, spectated):
    base_url, app, game = spectated
    store, app_changes = app.extensions[STORE_EXTENSION], app.extensions[CHANGES_EXTENSION]
    context = browser.new_context(base_url=base_url, locale="fr-FR")
    context.set_default_timeout(PAGE_WAIT_MS)
    try:
        older = context.new_page()
        streams_opened = []
        older.on("request", lambda request: "/events" in request.url and streams_opened.append(1))
        older.goto(f"/watch/{TOKEN}")
        expect(older.locator('[data-live-seq="0"]')).to_have_count(1)
        newer = context.new_page()
        newer.goto(f"/watch/{TOKEN}")
        expect(newer.locator('[data-live-seq="0"]')).to_have_count(1)
        newer.wait_for_timeout(1500)  # the older page told, and past EventSource's retry
        play_turn(store, game, 0, "free", "sixes", "66662", household=HOME_HOUSEHOLD)
        # The newer page by its stream, the older by its poll (every 5 s).
        for page in (newer, older):
            expect(page.locator('[data-live-seq="1"]')).to_have_count(1)
        # The older page opened its stream once, and never again after its seat went.
        assert len(streams_opened) == 1
        assert app_changes.watchers == 1
    finally:
        context.close()
