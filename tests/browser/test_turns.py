"""Turns played by tapping, as at the table: the keypad, a box, its confirmation."""

import re

from playwright.sync_api import expect

from scorekeeper.rules import BOX_LABELS
from scorekeeper.store import HOME_HOUSEHOLD
from tests.browser.taps import (
    confirm,
    next_sheet,
    tap_box,
    tap_dice,
    tap_dice_without_scripts,
    turn_ready,
    write_box,
)
from tests.support.games import GAME


def test_a_whole_two_player_game_by_taps(open_page):
    page = open_page("/")
    page.get_by_role("link", name="Nouvelle partie").click()
    page.get_by_role("textbox", name="Joueur 1", exact=True).fill("Mag")
    page.get_by_role("textbox", name="Joueur 2", exact=True).fill("Alix")
    page.get_by_role("button", name="Commencer la partie").click()
    expect(page).to_have_title(re.compile("^À Mag de jouer"))
    for mag, alix in GAME:
        for name, (dice, box) in zip(("Mag", "Alix"), (mag, alix), strict=True):
            expect(page).to_have_title(re.compile(f"^À {name} de jouer"))
            tap_dice(page, dice)
            write_box(page, BOX_LABELS[box])
    # The last box keeps the sheet, which names the winner: the same totals as the test
    # client's game, Alix 413, Mag 332.
    expect(page.locator(".end-panel .winner")).to_have_text("Alix gagne avec 413 points !")
    expect(page.locator(".end-panel .ranking li")).to_have_text(
        [re.compile(r"1\s+Alix\s+413 points"), re.compile(r"2\s+Mag\s+332 points")]
    )


def test_fix_a_die_with_a_tap_and_type_the_dice(open_page, seed):
    game_id = seed(["Mag"])
    page = open_page(f"/games/{game_id}")
    tap_dice(page, "66653")
    expect(page.get_by_role("button", name="Six, 18 points possibles")).to_be_visible()
    expect(page.locator("#dice-drawn .die-btn")).to_have_count(5)
    page.get_by_role("button", name="Retirer le dé 5, un 3").click()
    expect(page.locator("#dice-status")).to_have_text("Encore 1 dé.")
    tap_dice(page, "6")
    expect(page.get_by_role("button", name="Six, 24 points possibles")).to_be_visible()
    page.get_by_role("button", name="Effacer").click()
    expect(page.locator("#dice-drawn .die-btn")).to_have_count(0)
    page.get_by_label("Dés de Mag").fill("12345")
    expect(page.get_by_role("button", name="Grande suite, 40 points possibles")).to_be_visible()
    expect(page.locator("#dice-drawn .die-btn")).to_have_count(5)


def test_undo_the_last_entry(open_page, seed):
    game_id = seed(["Mag", "Alix"], [("66662", "free:sixes")])
    page = open_page(f"/games/{game_id}")
    tap_dice(page, "11123")
    write_box(page, "As")
    expect(page).to_have_title(re.compile("^À Mag de jouer"))
    with page.expect_navigation():
        page.get_by_role("button", name="Oups : annuler As 3 de Alix").click()
    expect(page).to_have_title(re.compile("^À Alix de jouer"))
    expect(page.locator(".flash-info")).to_contain_text("Entrée annulée : Alix, As.")
    expect(page.get_by_role("button", name="As", exact=True)).to_be_visible()


def test_a_barred_box_asks_first(open_page, seed):
    game_id = seed(["Mag", "Alix"], [("66662", "free:sixes")], vache=True)
    page = open_page(f"/games/{game_id}")
    expect(page.get_by_role("button", name="Six, au moins 24")).to_contain_text("≥24")
    tap_dice(page, "66612")
    tap_box(page, "Six")
    bar = page.locator("#confirm-bar")
    expect(bar).to_be_visible()
    expect(bar).to_contain_text("Barrer la case Six ?")
    expect(bar).to_contain_text("Règle de la vache : il faut au moins 24 dans cette case")
    expect(page.locator("[data-confirm]")).to_be_focused()
    page.get_by_role("button", name="Autre case").click()
    expect(bar).to_be_hidden()
    expect(page.get_by_role("button", name="Six, barrée à 0")).to_be_focused()
    tap_box(page, "Six")
    expect(page.locator("[data-confirm]")).to_have_text("Oui, barrer à 0")
    confirm(page)
    expect(page.locator(".flash-info")).to_have_text("Alix barre la case Six.")
    assert seed.state(game_id).sheets[1].columns["free"].cells["sixes"].barred_by == "vache"


def test_a_turn_played_on_another_tablet_reloads_the_sheet(open_page, seed, live_app):
    from scorekeeper.store.play import play_turn
    from scorekeeper.web.store import STORE_EXTENSION

    game_id = seed(["Mag", "Alix"])
    page = open_page(f"/games/{game_id}")
    play_turn(
        live_app.extensions[STORE_EXTENSION],
        game_id,
        0,
        "free",
        "ones",
        "11111",
        household=HOME_HOUSEHOLD,
    )
    # The preview of the tap finds the sheet outdated and reloads it, unless the sheet's own
    # poll of the game's version did first: either way, one of the two reloads wins the race
    # (so the tap is not expected to show in the dice field).
    page.locator('.keypad button[name="add"][value="6"]').tap()
    expect(page).to_have_title(re.compile("^À Alix de jouer"))


def test_by_keyboard(open_page, seed):
    game_id = seed(["Mag"])
    page = open_page(f"/games/{game_id}")
    page.get_by_label("Dés de Mag").press_sequentially("66653")
    turn_ready(page, "66653")
    barred = page.get_by_role("button", name="Yams, barrée à 0")
    barred.focus()
    page.keyboard.press("Enter")
    expect(page.locator("[data-confirm]")).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.locator("#confirm-bar")).to_be_hidden()
    expect(barred).to_be_focused()
    page.get_by_role("button", name="Six, 18 points possibles").focus()
    with next_sheet(page):
        page.keyboard.press("Enter")
    expect(page.locator(".flash-info")).to_have_text("Mag marque 18 en Six.")


def test_without_javascript(open_page, seed, artifacts):
    """Every button is a plain form: the keypad, the preview, the box, the barred page."""
    game_id = seed(["Mag"])
    page = open_page(f"/games/{game_id}", js=False)
    tap_dice_without_scripts(page, "66653")
    expect(page.locator("#dice-drawn .die-btn")).to_have_count(5)
    page.screenshot(path=artifacts / "sheet-without-scripts.png")
    with page.expect_navigation():
        page.get_by_role("button", name="Retirer le dé 5, un 3").click()
    tap_dice_without_scripts(page, "6")
    page.get_by_role("button", name="Six, 24 points possibles").click()
    expect(page.locator(".flash-info")).to_have_text("Mag marque 24 en Six.")
    page.get_by_label("Dés de Mag").fill("12346")
    page.get_by_role("button", name="Voir les scores").click()
    page.get_by_role("button", name="Yams, barrée à 0").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Barrer la case Yams ?")
    page.get_by_role("button", name="Oui, barrer à 0").click()
    expect(page.locator(".flash-info")).to_have_text("Mag barre la case Yams.")


def test_a_lost_connection_to_the_preview_still_plays_the_box(open_page, seed):
    """If the preview cannot be fetched, a box tap posts the form as without scripts."""
    game_id = seed(["Mag"])
    page = open_page(f"/games/{game_id}?dice=66653")
    page.route("**/turn?*", lambda route: route.abort())
    with page.expect_navigation():
        page.get_by_role("button", name="Six, 18 points possibles").click()
    expect(page.locator(".flash-info")).to_have_text("Mag marque 18 en Six.")


def test_the_address_after_a_turn_is_the_sheets_then_the_rankings(open_page, seed):
    """A sheet opened with dice in its address drops them once the turn is written; the
    last turn leads to the ranking's address."""
    boxes = [
        "ones",
        "twos",
        "threes",
        "fours",
        "fives",
        "three_kind",
        "four_kind",
        "full_house",
        "small_straight",
        "large_straight",
        "yams",
    ]
    game_id = seed(["Mag"], [("12345", f"free:{box}") for box in boxes])
    page = open_page(f"/games/{game_id}?dice=66653")
    write_box(page, "Six")
    assert page.url.endswith(f"/games/{game_id}")
    tap_dice(page, "12345")
    write_box(page, "Chance")
    # The last box keeps the sheet, which names the winner.
    assert page.url.endswith(f"/games/{game_id}")
    expect(page.locator(".end-panel .winner")).to_have_text(re.compile("^Mag gagne avec"))
