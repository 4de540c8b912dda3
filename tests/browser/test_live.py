"""Two devices on one game: what one writes shows on the other within a second; a sheet
refused its stream gets it back by itself."""

from playwright.sync_api import expect

from scorekeeper.play import play_turn
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.web.store import CHANGES_EXTENSION, STORE_EXTENSION


def test_an_entry_from_one_tablet_shows_on_the_other(open_page, seed):
    game_id = seed(["Mag", "Alix"])
    watcher = open_page(f"/games/{game_id}/watch")
    other = open_page(f"/games/{game_id}")
    player = open_page(f"/games/{game_id}")
    player.fill("#dice", "66662")
    player.locator('button[name="target"][value="free:sixes"].preview').click()
    # The next sheet comes in place of this one (no page load): it shows the entry written.
    expect(player.locator('[data-live-seq="1"]')).to_have_count(1)
    assert seed.state(game_id).sheets[0].total == 24
    # Once the entry is written, every open sheet shows it by itself (pushed, then the sheet
    # fetched and swapped in; the spectator's page too). Within a second on a quiet machine
    # (bench/see_time.py measures it); a busy machine makes the fetch as slow as it is, so
    # the wait is Playwright's own bound, not that second.
    for page in (watcher, other):
        expect(page.locator('[data-live-seq="1"]')).to_have_count(1)
        expect(page.locator("h1")).to_contain_text("À Alix de jouer")


def test_an_undo_shows_on_the_spectator_page(open_page, seed):
    game_id = seed(["Mag"], [("66662", "free:sixes")])
    watcher = open_page(f"/games/{game_id}/watch")
    assert "24" in watcher.inner_text(".sheet")
    player = open_page(f"/games/{game_id}/undo")
    player.locator("form.actions [type=submit]").first.click()
    player.wait_for_url(f"**/games/{game_id}")
    assert seed.state(game_id).entries == ()
    expect(watcher.locator('[data-live-seq="0"]')).to_have_count(1)


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
