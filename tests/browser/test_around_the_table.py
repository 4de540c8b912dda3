"""Around the table, several tablets on one game: a turn written on one arrives on the others
by their streams, sheet and all, with what they were typing kept; an undo too; the last turn
shows the end everywhere. Then the end of a game: the ranking shared, printed, a Revanche made
once, the hall of fame. And nothing typed is lost over a reload, Back, or another tablet's
turn."""

import re
from urllib.parse import urlsplit

from playwright.sync_api import expect

from scorekeeper.play import play_turn
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.web.store import STORE_EXTENSION
from tests.browser.games import BOXES, NAMES, finished_game
from tests.browser.tablets import load, turn_to
from tests.browser.taps import tap_box, tap_dice, write_box


def _requests(page) -> tuple[list[str], object]:
    """Every request the page makes from now on, as "METHOD path?query", and the listener
    that notes them (for page.remove_listener)."""
    made = []

    def heard(request):
        address = urlsplit(request.url)
        made.append(f"{request.method} {address.path}{'?' if address.query else ''}{address.query}")

    page.on("request", heard)
    return made, heard


def test_every_tablet_follows_the_game(open_page, seed, live_app):
    store = live_app.extensions[STORE_EXTENSION]
    player = open_page("/")
    other = open_page("/")
    watcher = open_page("/")

    # Another tablet's turn arrives on the stream, no poll and no fetch: the sheet comes in
    # with it, swapped in with the dice typed here kept.
    game_id = seed(["Mag", "Alix"])
    load(other, f"/games/{game_id}")
    load(player, f"/games/{game_id}")
    # The stream is open once its first event is in: the page then shows no other version.
    other.wait_for_load_state("networkidle")
    made, heard = _requests(other)
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
    other.remove_listener("request", heard)

    # A preview still on its way when another turn arrives leaves the new sheet alone.
    game_id = seed(["Mag", "Alix"])
    load(other, f"/games/{game_id}")
    load(player, f"/games/{game_id}")
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
    other.unroute_all(behavior="ignoreErrors")

    # A turn written elsewhere, then a tap on this sheet: the preview of the tap finds the
    # sheet outdated and reloads it, unless the pushed sheet came first: either way, one of
    # the two wins the race (so the tap is not expected to show in the dice field).
    game_id = seed(["Mag", "Alix"])
    load(player, f"/games/{game_id}")
    play_turn(store, game_id, 0, "free", "ones", "11111", household=HOME_HOUSEHOLD)
    player.locator('.keypad button[name="add"][value="6"]').tap()
    expect(player).to_have_title(re.compile("^À Alix de jouer"))

    # An entry written on one tablet shows on the other and on the spectator's page.
    game_id = seed(["Mag", "Alix"])
    load(watcher, f"/games/{game_id}/watch")
    load(other, f"/games/{game_id}")
    load(player, f"/games/{game_id}")
    player.fill("#dice", "66662")
    player.locator('button[name="target"][value="free:sixes"].preview').click()
    # The next sheet comes in place of this one (no page load): it shows the entry written.
    expect(player.locator('[data-live-seq="1"]')).to_have_count(1)
    assert seed.state(game_id).sheets[0].total == 24
    # Once the entry is written, every open sheet shows it by itself. Within a second on a
    # quiet machine (bench/see_time.py measures it); a busy machine makes the push as slow
    # as it is, so the wait is Playwright's own bound, not that second.
    for page in (watcher, other):
        expect(page.locator('[data-live-seq="1"]')).to_have_count(1)
        expect(page.locator("h1")).to_contain_text("À Alix de jouer")

    # An undo shows on the spectator's page.
    game_id = seed(["Mag"], [("66662", "free:sixes")])
    load(watcher, f"/games/{game_id}/watch")
    assert "24" in watcher.inner_text(".sheet")
    load(player, f"/games/{game_id}/undo")
    player.locator("form.actions [type=submit]").first.click()
    player.wait_for_url(f"**/games/{game_id}")
    assert seed.state(game_id).entries == ()
    expect(watcher.locator('[data-live-seq="0"]')).to_have_count(1)

    # The last box written on one tablet: it stays on the sheet, which shows the end; the
    # tablet following the game (in portrait) and the spectator's page (in portrait, in
    # English) show it too, pushed.
    turns = [(dice, f"free:{box}") for pair in zip(BOXES, BOXES, strict=True) for dice, box in pair]
    game_id = seed(NAMES[:2], turns[:-1])
    dice, target = turns[-1]
    turn_to(other, "portrait")
    turn_to(watcher, "portrait", "en")
    load(player, f"/games/{game_id}?dice={dice}")
    load(other, f"/games/{game_id}")
    load(watcher, f"/games/{game_id}/watch", "en")
    # The last box scores: one tap writes it.
    player.locator(f'button[name="target"][value="{target}"]').click()
    for page in (player, other):
        expect(page.locator(".end-panel .winner")).to_contain_text("Papa")
        assert page.url.endswith(f"/games/{game_id}")
    expect(watcher.locator(".end-panel .winner")).to_contain_text("Papa")


# A share sheet that keeps what it was given: headless Chromium has none of its own.
SHARE_SHEET = """
navigator.canShare = (data) => Boolean(data.files && data.files.length);
navigator.share = async (data) => {
  const file = data.files[0];
  window.shared = { name: file.name, type: file.type, size: file.size, title: data.title };
};
"""


def test_the_end_of_a_game(open_page, seed):
    """The ranking: « Partager » gives the result card to the tablet's share sheet where the
    browser shares files, else downloads it, in one tap; the sheet printed; the hall of fame;
    Revanche, then Back and Revanche again, opens the game the first tap made."""
    game_id = finished_game(seed, 2)
    page = open_page(f"/games/{game_id}/ranking")
    share = page.get_by_role("link", name="Partager")
    # No Web Share in this browser: the tap downloads the card.
    with page.expect_download() as download:
        share.click()
    assert download.value.suggested_filename == f"yams-partie-{game_id}.png"

    page.add_init_script(SHARE_SHEET)
    page.reload()
    page.get_by_role("link", name="Partager").click()
    page.wait_for_function("() => window.shared !== undefined")
    shared = page.evaluate("window.shared")
    assert shared["name"] == f"yams-partie-{game_id}.png"
    assert shared["type"] == "image/png" and shared["size"] > 10_000
    assert shared["title"] == f"Partie n° {game_id}"

    # The sheet printed: its PDF, opened by the browser. The hall of fame of these rules holds
    # the game.
    pdf = f"/games/{game_id}/sheet.pdf"
    with page.expect_response(lambda response: response.url.endswith(pdf)) as printed:
        page.get_by_role("link", name="Imprimer la feuille (PDF)").click()
    assert printed.value.status == 200
    assert printed.value.headers["content-type"] == "application/pdf"
    # Back on the ranking (a browser with a PDF viewer opened it, a headless one saved it).
    page.goto(f"/games/{game_id}/ranking")
    page.get_by_role("link", name="Palmarès").first.click()
    expect(page.locator("h1")).to_contain_text("Palmarès")
    expect(page.locator("main")).to_contain_text("Papa")
    page.go_back()

    # Ranking → Revanche → Back → Revanche: the second tap opens the game the first made, the
    # next seat first.
    page.get_by_role("button", name="Revanche").click()
    expect(page).to_have_title(re.compile("^À Maman de jouer"))
    first = page.url
    page.go_back()
    expect(page.get_by_role("button", name="Revanche")).to_be_visible()
    page.get_by_role("button", name="Revanche").click()
    expect(page).to_have_title(re.compile("^À Maman de jouer"))
    assert page.url == first


def test_nothing_typed_is_lost(open_page, seed, live_app):
    """The dice typed and the box tapped outlive a reload and Back; once written, they are
    forgotten; when another tablet writes a turn, the pushed sheet keeps what was typed."""
    game_id = seed(["Mag", "Alix"])
    page = open_page(f"/games/{game_id}")
    tap_dice(page, "66653")
    tap_box(page, "Yams")
    expect(page.locator("#confirm-text")).to_contain_text("Barrer la case Yams ?")
    page.reload()
    expect(page.get_by_label("Dés de Mag")).to_have_value("66653")
    expect(page.locator("#confirm-text")).to_contain_text("Barrer la case Yams ?")
    page.get_by_role("button", name="Autre case").click()
    expect(page.locator("#confirm-bar")).to_be_hidden()
    page.goto("/hall-of-fame")
    page.go_back()
    expect(page.get_by_label("Dés de Mag")).to_have_value("66653")
    expect(page.locator("#dice-drawn .die-btn")).to_have_count(5)
    expect(page.locator("#confirm-bar")).to_be_hidden()
    # Written: the next player starts from nothing, and so does a reload.
    write_box(page, "Six")
    expect(page.get_by_label("Dés de Alix")).to_have_value("")
    tap_dice(page, "12")
    expect(page.locator("#dice-drawn .die-btn")).to_have_count(2)
    page.wait_for_function("() => sessionStorage.length === 1")
    # Another tablet writes Alix's turn: the new sheet comes in by itself and keeps what was
    # typed here (docs/architecture.md, live by push), and so does a reload of it.
    play_turn(
        live_app.extensions[STORE_EXTENSION],
        game_id,
        1,
        "free",
        "ones",
        "11111",
        household=HOME_HOUSEHOLD,
    )
    expect(page.locator('[data-live-seq="2"]')).to_have_count(1)
    expect(page).to_have_title(re.compile("^À Mag de jouer"))
    expect(page.get_by_label("Dés de Mag")).to_have_value("12")
    page.reload()
    expect(page).to_have_title(re.compile("^À Mag de jouer"))
    expect(page.get_by_label("Dés de Mag")).to_have_value("12")
