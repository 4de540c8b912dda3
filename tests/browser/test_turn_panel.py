"""The turn panel on a tablet: the tray, the keypad that stays put, a turn kept over a reload."""

import re

import pytest
from playwright.sync_api import expect

from scorekeeper.store import HOME_HOUSEHOLD
from tests.browser.tablets import TABLETS
from tests.browser.taps import next_sheet, tap_box, tap_dice, turn_ready, write_box

KEYPAD_BOX = """() => { const box = document.querySelector('.keypad').getBoundingClientRect();
                       return [box.x, box.y, box.width, box.height]; }"""

TRAY_HOLDS_ITS_DICE = """(tray) => {
  const frame = tray.getBoundingClientRect();
  return tray.scrollWidth <= tray.clientWidth && [...tray.children].every((die) => {
    const box = die.getBoundingClientRect();
    return box.left >= frame.left && box.right <= frame.right
      && box.top >= frame.top && box.bottom <= frame.bottom;
  });
}"""


@pytest.mark.parametrize("size", list(TABLETS))
@pytest.mark.parametrize("dice", ["665321", "66532144"])
def test_the_tray_holds_every_die_typed(open_page, seed, size, dice):
    """Six (or eight) dice typed in a five-dice game: all drawn inside the tray."""
    page = open_page(f"/games/{seed(['Mag', 'Alix'])}?dice={dice}", size=TABLETS[size])
    tray = page.locator("#dice-drawn")
    expect(tray.locator(".die-btn")).to_have_count(len(dice))
    assert tray.evaluate(TRAY_HOLDS_ITS_DICE)


@pytest.mark.parametrize("size", ["landscape", "portrait"])
@pytest.mark.parametrize(
    "players", [["Mag", "Alix"], ["Mag", "Alix", "Chloé", "Dédé", "Émilie", "Gaspard", "Hélène"]]
)
def test_the_keypad_stays_put_after_a_turn(open_page, seed, size, players):
    """The message of the turn just written does not push the keypad down."""
    page = open_page(f"/games/{seed(players)}", size=TABLETS[size])
    before = page.evaluate(KEYPAD_BOX)
    tap_dice(page, "66653")
    write_box(page, "Six")
    expect(page.locator(".flash-info")).to_have_text("Mag marque 18 en Six.")
    expect(page.locator(".flash-info")).to_be_visible()
    assert page.evaluate(KEYPAD_BOX) == before


def test_a_tap_on_a_refused_box_says_why(open_page, seed, artifacts):
    """Filled, out of order, forced by the joker: one line from the rules, then back."""
    game_id = seed(["Mag"], [("66666", "free:yams")], preset="triple")
    page = open_page(f"/games/{game_id}")
    bar = page.locator("#confirm-bar")
    sheet = page.locator("#sheet-live")
    sheet.locator('td[data-box="free:yams"]').click()
    expect(bar.get_by_role("alert")).to_have_text("Yams : déjà remplie")
    page.get_by_role("button", name="Autre case").click()
    expect(bar).to_be_hidden()
    sheet.locator('td[data-box="down:fours"]').click()
    expect(bar.get_by_role("alert")).to_have_text("Colonne Descendante : d'abord As")
    tap_dice(page, "44444")
    expect(bar).to_be_hidden()
    sheet.locator('td[data-box="free:chance"]').click()
    expect(bar.get_by_role("alert")).to_have_text("Le joker impose la case Quatre")
    page.screenshot(path=artifacts / "sheet-refusal.png")


def test_the_dice_and_the_box_outlive_a_reload_and_back(open_page, seed, live_app):
    from scorekeeper.store.play import play_turn
    from scorekeeper.web.store import STORE_EXTENSION

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


def test_the_dice_typed_are_kept_even_before_their_preview_came(open_page, seed):
    """A page left (or reloaded) while the preview of the dice just typed is on its way
    comes back with those dice, not with the dice of the last preview."""
    page = open_page(f"/games/{seed(['Mag'])}")
    turn_ready(page)
    page.route("**/turn?*", lambda route: None)  # the previews never come back
    for typed in ("6", "66", "665"):
        page.locator(f'.keypad button[name="add"][value="{typed[-1]}"]').tap()
        expect(page.get_by_label("Dés de Mag")).to_have_value(typed)
    page.unroute_all(behavior="ignoreErrors")
    page.reload()
    expect(page.get_by_label("Dés de Mag")).to_have_value("665")
    turn_ready(page, "665")


def tab_to(page, selector, most=60):
    """Press Tab until the element matching selector has the focus, as a keyboard user does."""
    for _press in range(most):
        if page.evaluate(f"() => document.activeElement.matches({selector!r})"):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"{selector} never took the focus")


def turn_by_keyboard(page, dice, box, key):
    """Tab to the dice, type them, Tab to the box and press the key on it: written."""
    tab_to(page, "#dice")
    page.keyboard.type(dice)
    turn_ready(page, dice)  # no preview on its way will redraw the sheet under the focus
    expect(page.locator(f'button[value="{box}"].preview')).to_be_visible()
    tab_to(page, f'button[value="{box}"]')
    with next_sheet(page):
        page.keyboard.press(key)


@pytest.mark.parametrize("size", ["landscape", "portrait"])
def test_a_whole_turn_by_keyboard_alone(open_page, seed, size):
    """Two turns written without a touch or a click: Enter for one, Space for the other."""
    page = open_page(f"/games/{seed(['Mag', 'Alix'])}", size=TABLETS[size])
    turn_by_keyboard(page, "66653", "free:sixes", "Enter")
    expect(page.locator(".flash-info")).to_have_text("Mag marque 18 en Six.")
    turn_by_keyboard(page, "11123", "free:ones", "Space")
    expect(page.locator(".flash-info")).to_have_text("Alix marque 3 en As.")
