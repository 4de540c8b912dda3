"""Two devices on one game: what one writes shows on the other within a second."""

from playwright.sync_api import expect


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
