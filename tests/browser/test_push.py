"""Live by push, in Chromium: another tablet's turn arrives on its stream, sheet and all (no
poll, no fetch), swapped in with the dice this tablet was typing kept; a tablet catches up by
itself after a server restart."""

from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.play import play_turn
from scorekeeper.web.store import STORE_EXTENSION
from testing.live import LiveServer
from tests.browser.tablets import TABLETS
from tests.browser.taps import tap_box, tap_dice


def _requests(page) -> list[str]:
    """Every request the page makes from now on, as "METHOD path?query"."""
    made = []

    def heard(request):
        address = urlsplit(request.url)
        made.append(f"{request.method} {address.path}{'?' if address.query else ''}{address.query}")

    page.on("request", heard)
    return made


def test_another_tablets_turn_arrives_with_no_poll_and_the_typed_dice_stay(open_page, seed):
    game_id = seed(["Mag", "Alix"])
    other = open_page(f"/games/{game_id}")
    player = open_page(f"/games/{game_id}")
    # The stream is open once its first event is in: the page then shows no other version.
    other.wait_for_load_state("networkidle")
    made = _requests(other)
    other.locator("#dice").fill("12")
    tap_dice(player, "66662")
    tap_box(player, "Six")
    expect(other.locator('[data-live-seq="1"]')).to_have_count(1)
    expect(other.locator("h1")).to_contain_text("À Alix de jouer")
    expect(other.locator("#dice")).to_have_value("12")
    other.wait_for_timeout(1000)
    # No version poll, no page load, not even the sheet's: it came on the stream. Only the
    # preview of the dice kept (before the turn, then on the new sheet).
    assert made == [
        f"GET /games/{game_id}/turn?dice=12&seq=0&target=",
        f"GET /games/{game_id}/turn?dice=12&seq=1&target=",
    ]
    assert other.evaluate("performance.getEntriesByType('navigation').length") == 1


def test_a_preview_still_on_its_way_when_another_turn_arrives_leaves_the_new_sheet_alone(
    open_page, seed
):
    game_id = seed(["Mag", "Alix"])
    other = open_page(f"/games/{game_id}")
    player = open_page(f"/games/{game_id}")
    other.wait_for_load_state("networkidle")
    # The preview of the dice typed here is held back until the other turn is in.
    held = []
    other.route(
        "**/turn?*",
        lambda route: held.append(route) if "seq=0" in route.request.url else route.continue_(),
    )
    with other.expect_request(lambda request: "/turn?" in request.url):
        other.locator("#dice").fill("12")
    other.evaluate("window.sameDocument = true")  # gone if the page loads again
    tap_dice(player, "66662")
    tap_box(player, "Six")
    expect(other.locator('[data-live-seq="1"]')).to_have_count(1)
    # The old sheet's preview (of entry 0) comes back a 409 for a sheet no longer shown:
    # nothing follows from it; the new sheet previews the dice itself.
    with other.expect_response(lambda response: "seq=0" in response.url) as answer:
        held[0].continue_()
    assert answer.value.status == 409
    form = other.locator("form[data-turn-url]")
    expect(form).to_have_attribute("data-previewed", "12")
    expect(form).to_have_attribute("aria-busy", "false")
    expect(other.locator("#dice")).to_have_value("12")
    assert other.evaluate("window.sameDocument === true")


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
