"""A sheet's stream comes back by itself: refused (a full server, its database away), the page
asks for the version later and opens its stream again; after a server restart, the tablet
catches up with the turn written meanwhile. (The turns pushed to every tablet:
test_around_the_table.py.)"""

from pathlib import Path

import pytest
from playwright.sync_api import expect

from scorekeeper.play import play_turn
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.web.store import CHANGES_EXTENSION, STORE_EXTENSION
from testing.live import LiveServer
from tests.browser.tablets import PAGE_WAIT_MS, TABLETS


def test_a_sheet_refused_its_stream_opens_it_again_once_there_is_room(open_page, seed, live_app):
    store = live_app.extensions[STORE_EXTENSION]
    app_changes = live_app.extensions[CHANGES_EXTENSION]
    game_id = seed(["Mag", "Alix"])
    limit = app_changes.limit
    events = f"/games/{game_id}/events"

    def stream_answered(status: int):
        return lambda response: response.url.endswith(events) and response.status == status

    page = open_page("/")
    # Every seat taken, as on a full server or with its database away: a 503.
    app_changes.limit = 0
    try:
        with page.expect_response(stream_answered(503)):
            page.goto(f"/games/{game_id}")
    finally:
        app_changes.limit = limit
    assert not app_changes.watches((HOME_HOUSEHOLD, game_id))
    # A few seconds later the page asks for the version, then opens its stream again.
    with page.expect_response(stream_answered(200)):
        pass
    assert app_changes.watches((HOME_HOUSEHOLD, game_id))
    # And the stream, not a poll (the page polls no more), brings another tablet's turn.
    play_turn(store, game_id, 0, "free", "sixes", "66662", household=HOME_HOUSEHOLD)
    expect(page.locator('[data-live-seq="1"]')).to_have_count(1)
    expect(page.locator("h1")).to_contain_text("À Alix de jouer")


@pytest.fixture
def own_server(live_app, tmp_path):
    """`scorekeeper serve` on the live app's instance and database, for this test alone."""
    server = LiveServer(
        Path(live_app.instance_path),
        tmp_path / "serve.log",
        database_url=live_app.config["DATABASE_URL"],
    )
    with server:
        yield server


def test_a_tablet_catches_up_by_itself_after_a_server_restart(browser, own_server, seed, live_app):
    game_id = seed(["Mag", "Alix"])
    host, port = own_server.base
    context = browser.new_context(
        viewport=dict(zip(("width", "height"), TABLETS["landscape"], strict=True)),
        locale="fr-FR",
        base_url=f"http://{host}:{port}",
    )
    context.set_default_timeout(PAGE_WAIT_MS)
    try:
        page = context.new_page()
        page.goto(f"/games/{game_id}")
        page.wait_for_load_state("networkidle")
        own_server.kill()  # a power cut
        # Meanwhile a turn is written (the server's database, from elsewhere).
        store = live_app.extensions[STORE_EXTENSION]
        play_turn(store, game_id, 0, "free", "sixes", "66662", household=HOME_HOUSEHOLD)
        own_server.start()  # the same address
        expect(page.locator('[data-live-seq="1"]')).to_have_count(1)
        expect(page.locator("h1")).to_contain_text("À Alix de jouer")
        assert page.evaluate("performance.getEntriesByType('navigation').length") == 1
    finally:
        context.close()
