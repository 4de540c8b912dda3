"""A turn tapped while the network is away: kept on the tablet, said in one line, sent by
itself once the server answers again, and written exactly once (static/js/sheet.js).

The network is cut with the browser's own offline mode, with the front's 502 answers, with a
server stopped then started again, and with the answer lost after the server wrote the turn.
Another tablet writing meanwhile makes the kept turn one that is shown not written, with why,
its dice still typed.
"""

import re
from pathlib import Path

import pytest
from playwright.sync_api import Error, expect

from scorekeeper.play import play_turn
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.games import load_game
from scorekeeper.web.store import STORE_EXTENSION
from testing.live import LiveServer
from testing.network_cut import MOMENTS, STYLES, NetworkCut, Plan, tap_through_cut
from testing.samples import SCORING_TURNS
from tests.browser.tablets import PAGE_WAIT_MS, TABLETS

WAITING = "Pas de réseau : le tour partira dès son retour."
TURN_FORM = "form[data-turn-url]"
# No turn left waiting in the tablet's storage.
NOTHING_WAITING = "() => !Object.keys(localStorage).some((key) => key.startsWith('waiting-turn:'))"


def _typed(page, dice):
    """The dice typed in the field, once the previews shown are theirs."""
    expect(page.locator(f'{TURN_FORM}[aria-busy="false"]')).to_have_count(1)
    page.locator("#dice").fill(dice)
    expect(page.locator(f'{TURN_FORM}[aria-busy="false"][data-previewed="{dice}"]')).to_have_count(
        1
    )


def _box(page, label):
    return page.locator(f'button[name="target"][aria-label^="{label}, "]')


def _entries(live_app, game_id):
    store = live_app.extensions[STORE_EXTENSION]
    return [
        (entry.seat, entry.box, "".join(map(str, entry.dice)))
        for entry in load_game(store, game_id, household=HOME_HOUSEHOLD).entries
    ]


def _waiting_said(page):
    """The line says the turn waits; the page is still the sheet, not the browser's error."""
    expect(page.locator("#confirm-bar")).to_have_text(WAITING)
    expect(page).to_have_title(re.compile("^À Mag de jouer"))
    expect(page.locator("#dice")).to_have_value("66662")


def test_a_turn_tapped_offline_is_written_once_when_the_network_returns(open_page, seed, live_app):
    game_id = seed(["Mag", "Alix"])
    page = open_page(f"/games/{game_id}")
    _typed(page, "66662")
    page.context.set_offline(True)
    _box(page, "Six").click()
    _waiting_said(page)
    # Another tap while it waits does nothing more than try again.
    _box(page, "Chance").click()
    expect(page.locator("#confirm-bar")).to_have_text(WAITING)
    assert _entries(live_app, game_id) == []
    page.context.set_offline(False)
    expect(page).to_have_title(re.compile("^À Alix de jouer"))
    expect(page.locator(".flashes")).to_contain_text("Mag marque 24 en Six.")
    assert _entries(live_app, game_id) == [(0, "sixes", "66662")]
    page.wait_for_function(NOTHING_WAITING)

    # Alix's turn: the front answers 502 twice (the server away behind nginx), then lets it by.
    refused = []

    def front(route):
        if len(refused) < 2:
            refused.append(route.request.url)
            route.fulfill(status=502, body="<h1>502 Bad Gateway</h1>")
        else:
            route.continue_()

    page.route("**/entries", front)
    _typed(page, "11123")
    _box(page, "As").click()
    expect(page).to_have_title(re.compile("^À Mag de jouer"))
    assert len(refused) == 2
    assert _entries(live_app, game_id) == [(0, "sixes", "66662"), (1, "ones", "11123")]


def test_a_turn_kept_offline_outlives_a_reload_and_is_sent_after(open_page, seed, live_app):
    game_id = seed(["Mag", "Alix"])
    page = open_page(f"/games/{game_id}")
    _typed(page, "66662")
    page.context.set_offline(True)
    _box(page, "Six").click()
    _waiting_said(page)
    # Reloaded while the network is still away: the browser has no page to show. Chromium's
    # emulated offline does not always hold for a navigation (or for the old page's retry
    # while its reload is on its way), where a real network cut would: every request of the
    # tablet is refused here as well, until the network is back.
    page.context.route("**/*", lambda route: route.abort("internetdisconnected"))
    with pytest.raises(Error):
        page.reload()
    assert _entries(live_app, game_id) == []
    page.context.unroute("**/*")
    page.context.set_offline(False)
    page.goto(f"/games/{game_id}")
    expect(page).to_have_title(re.compile("^À Alix de jouer"))
    assert _entries(live_app, game_id) == [(0, "sixes", "66662")]
    page.wait_for_function(NOTHING_WAITING)
    # Loaded again: nothing is sent twice.
    page.reload()
    expect(page).to_have_title(re.compile("^À Alix de jouer"))
    assert _entries(live_app, game_id) == [(0, "sixes", "66662")]


def test_a_turn_whose_answer_was_lost_is_not_written_twice(open_page, seed, live_app):
    """The server wrote the turn, and the connection broke before its answer came back: sent
    again, the turn finds its entry and the tablet hears that it was written."""
    game_id = seed(["Mag", "Alix"])
    page = open_page(f"/games/{game_id}")
    cut = []

    def answer_lost(route):
        if not cut:
            cut.append(route.fetch().status)  # the server's answer, which never arrives
            route.abort("connectionreset")
        else:
            route.continue_()

    page.route("**/entries", answer_lost)
    _typed(page, "66662")
    _box(page, "Six").click()
    expect(page).to_have_title(re.compile("^À Alix de jouer"))
    expect(page.locator(".flashes")).to_contain_text("Déjà enregistré : Mag marque 24 en Six.")
    assert cut == [200]
    assert _entries(live_app, game_id) == [(0, "sixes", "66662")]


def test_a_kept_turn_another_tablet_overtook_is_shown_not_written(open_page, seed, live_app):
    game_id = seed(["Mag", "Alix"])
    page = open_page(f"/games/{game_id}")
    _typed(page, "66662")
    page.context.set_offline(True)
    _box(page, "Six").click()
    _waiting_said(page)
    # Meanwhile Mag's turn is written on another tablet, in another box.
    store = live_app.extensions[STORE_EXTENSION]
    play_turn(store, game_id, 0, "free", "ones", "11123", household=HOME_HOUSEHOLD)
    page.context.set_offline(False)
    expect(page.locator("#turn-messages")).to_contain_text(
        "La feuille a changé entre-temps (un autre appareil a joué ou annulé) : voici la "
        "feuille à jour, rien n'a été enregistré."
    )
    expect(page).to_have_title(re.compile("^À Alix de jouer"))
    expect(page.locator("#dice")).to_have_value("66662")
    expect(page.locator("#confirm-bar")).to_be_hidden()
    assert _entries(live_app, game_id) == [(0, "ones", "11123")]
    page.wait_for_function(NOTHING_WAITING)


@pytest.fixture
def own_server(live_app, tmp_path):
    """`scorekeeper serve` on the live app's instance and database, for this test alone: a
    server that can be stopped and started again at the same address."""
    server = LiveServer(
        Path(live_app.instance_path),
        tmp_path / "serve.log",
        database_url=live_app.config["DATABASE_URL"],
    )
    with server:
        yield server


def test_a_turn_tapped_while_the_server_is_stopped_is_written_once_it_is_back(
    browser, own_server, seed, live_app
):
    game_id = seed(["Mag", "Alix"])
    host, port = own_server.base
    width, height = TABLETS["landscape"]
    context = browser.new_context(
        viewport={"width": width, "height": height},
        locale="fr-FR",
        has_touch=True,
        base_url=f"http://{host}:{port}",
    )
    context.set_default_timeout(PAGE_WAIT_MS)
    try:
        page = context.new_page()
        page.goto(f"/games/{game_id}")
        _typed(page, "66662")
        page.evaluate("window.sameDocument = true")  # gone if the page loads again
        own_server.kill()
        _box(page, "Six").click()
        _waiting_said(page)
        assert _entries(live_app, game_id) == []
        own_server.start()  # the same address: the tablet finds it by itself
        expect(page).to_have_title(re.compile("^À Alix de jouer"))
        assert _entries(live_app, game_id) == [(0, "sixes", "66662")]
        assert page.evaluate("window.sameDocument === true")
    finally:
        context.close()


def test_a_turn_cut_at_each_moment_of_its_request_is_written_once(browser, server, seed, live_app):
    """Through a proxy that cuts the network at each moment of a turn's request, each kind
    of cut in turn, for a second (bench/offline_turns.py: 50 tries, 30 s each)."""
    game_id = seed(["Mag"])
    store = live_app.extensions[STORE_EXTENSION]
    host, port = server.removeprefix("http://").split(":")
    width, height = TABLETS["landscape"]
    with NetworkCut((host, int(port))) as cut:
        context = browser.new_context(
            viewport={"width": width, "height": height}, locale="fr-FR", base_url=cut.base
        )
        context.set_default_timeout(PAGE_WAIT_MS)
        try:
            page = context.new_page()
            page.goto(f"/games/{game_id}")
            outcomes = []
            for number, moment in enumerate(MOMENTS):
                dice, box = SCORING_TURNS[number]
                _typed(page, dice)
                plan = Plan(moment, STYLES[number % len(STYLES)], seconds=1.0, delay=0.01)
                target = page.locator(f'button[name="target"][value="free:{box}"].preview')
                outcomes.append(
                    tap_through_cut(
                        page,
                        cut,
                        plan,
                        target,
                        lambda: load_game(store, game_id, household=HOME_HOUSEHOLD).entries,
                        PAGE_WAIT_MS / 1000,
                    )
                )
        finally:
            context.close()
    assert [(o.plan.moment, o.written, o.refused, o.error_page, o.in_step) for o in outcomes] == [
        (moment, 1, False, False, True) for moment in MOMENTS
    ]
    # The turns whose answer was lost once they were written are told so.
    repeated = {o.plan.moment for o in outcomes if o.repeated}
    assert {"answer lost", "answer cut"} <= repeated <= {"answer lost", "answer cut", "at random"}
    assert [e.box for e in load_game(store, game_id, household=HOME_HOUSEHOLD).entries] == [
        box for _dice, box in SCORING_TURNS[: len(MOMENTS)]
    ]
