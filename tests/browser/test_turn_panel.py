"""The turn panel on a tablet: the tray, the keypad that stays put, a turn kept over a reload."""

import pytest
from playwright.sync_api import expect

from .conftest import TABLETS
from .test_turns import confirm, tap_box, tap_dice

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
@pytest.mark.parametrize("players", [["Mag", "Alix"], ["Mag", "Alix", "Chloé", "Dédé", "Émilie",
                                                        "Gaspard", "Hélène"]])
def test_the_keypad_stays_put_after_a_turn(open_page, seed, size, players):
    """The message of the turn just written does not push the keypad down."""
    page = open_page(f"/games/{seed(players)}", size=TABLETS[size])
    before = page.evaluate(KEYPAD_BOX)
    tap_dice(page, "66653")
    tap_box(page, "Six")
    confirm(page)
    expect(page.locator(".flash-info")).to_have_text("Mag marque 18 en Six.")
    expect(page.locator(".flash-info")).to_be_visible()
    assert page.evaluate(KEYPAD_BOX) == before
