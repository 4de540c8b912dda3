"""Generala at the table (docs/rules.md §14), tapped as a family would: a turn in six taps,
the servida in one more where it changes the score, the game won at once and its winner on
the sheet; the boxes in Spanish in both languages; no WCAG violation with the servida asked."""

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from scorekeeper.play import load, start_game
from scorekeeper.rules import Rules
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.quotas import NO_QUOTAS
from scorekeeper.web.store import STORE_EXTENSION
from tests.browser.tablets import TABLETS

TURN_FORM = "form[data-turn-url]"
WCAG_21_AA = {
    "runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]},
    "resultTypes": ["violations"],
}


@pytest.fixture
def generala(live_app):
    store = live_app.extensions[STORE_EXTENSION]

    def new(names):
        rules = Rules.from_dict({"preset": "generala"})
        return start_game(store, rules, names, household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)

    new.state = lambda game_id: load(store, game_id, household=HOME_HOUSEHOLD)[1]
    return new


class Taps:
    """The finger on the tablet: each tap counted."""

    def __init__(self, page):
        self.page = page
        self.count = 0

    def ready(self, dice=None):
        selector = f'{TURN_FORM}[aria-busy="false"]'
        if dice is not None:
            selector += f'[data-previewed="{dice}"]'
        expect(self.page.locator(selector)).to_have_count(1)

    def dice(self, dice):
        self.ready()
        field = self.page.locator("#dice")
        for face in dice:
            self.page.locator(f'.keypad button[name="add"][value="{face}"]').tap()
            self.count += 1
        expect(field).to_have_value(dice)
        self.ready(dice)

    def tap(self, locator):
        locator.tap()
        self.count += 1


def swapped(page):
    page.evaluate("""() => {
      window.sheetSwapped = false;
      document.addEventListener("sheet:swapped", () => { window.sheetSwapped = true; },
                                { once: true });
    }""")


def test_a_turn_in_six_taps_a_servida_in_seven_and_the_win(open_page, generala):
    game_id = generala(["Mag", "Alix"])
    page = open_page(f"/games/{game_id}", size=TABLETS["landscape"])
    servida = page.locator("#servida-choice")

    # Mag: a Full on a later throw, the usual turn: five dice and the box.
    taps = Taps(page)
    taps.dice("22333")
    expect(servida).to_be_visible()  # asked, never forced: the box is tapped at once
    swapped(page)
    taps.tap(page.get_by_role("button", name="Full, 30 points possibles"))
    page.wait_for_function("() => window.sheetSwapped")
    expect(page.locator(".flash-info")).to_have_text("Mag marque 30 en Full.")
    assert taps.count == 6

    # Alix: nothing a servida changes, nothing asked.
    taps = Taps(page)
    taps.dice("12246")
    expect(servida).to_be_hidden()
    swapped(page)
    taps.tap(page.get_by_role("button", name="Deux, 4 points possibles"))
    page.wait_for_function("() => window.sheetSwapped")
    assert taps.count == 6

    # Mag: a Póker on the first throw, one tap more says it.
    taps = Taps(page)
    taps.dice("44441")
    taps.tap(page.get_by_text("Servida : au 1er lancer"))
    expect(page.get_by_role("button", name="Póker, 45 points possibles")).to_be_visible()
    taps.ready("44441")
    swapped(page)
    taps.tap(page.get_by_role("button", name="Póker, 45 points possibles"))
    page.wait_for_function("() => window.sheetSwapped")
    expect(page.locator(".flash-info")).to_have_text("Mag marque 45 en Póker.")
    assert taps.count == 7
    cell = generala.state(game_id).sheets[0].columns["free"].cells["four_kind"]
    assert (cell.points, cell.throw) == (45, 1)

    # Alix: a Generala servida; the tap that ends the game is confirmed, then the sheet
    # names the winner.
    taps = Taps(page)
    taps.dice("66666")
    taps.tap(page.get_by_text("Servida : au 1er lancer"))
    winning = page.get_by_role("button", name="Generala, gagne la partie")
    expect(winning).to_be_visible()
    taps.ready("66666")
    taps.tap(winning)
    bar = page.locator("#confirm-bar")
    expect(bar).to_contain_text("Generala servida : Alix gagne la partie sur-le-champ.")
    swapped(page)
    taps.tap(page.locator("[data-confirm]"))
    page.wait_for_function("() => window.sheetSwapped")
    expect(page.locator(".end-panel .winner")).to_have_text(
        "Alix gagne sur-le-champ : Generala servida !"
    )
    expect(page.locator(".end-panel .ranking li").first).to_have_text(
        re.compile(r"1\s+Alix\s+54 points")
    )
    assert taps.count == 8
    assert generala.state(game_id).winner == 1


@pytest.mark.parametrize("language", ["fr", "en"])
def test_spanish_boxes_and_no_wcag_violation_with_the_servida_asked(open_page, generala, language):
    game_id = generala(["Mag", "Alix"])
    page = open_page(f"/games/{game_id}", size=TABLETS["portrait"], lang=language)
    names = page.locator("table.sheet tbody th.box-name")
    for name in ("Escalera", "Full", "Póker", "Generala", "Doble Generala"):
        expect(names.filter(has_text=re.compile(f"^{name}$"))).to_have_count(1)
    taps = Taps(page)
    taps.dice("23456")
    expect(page.locator("#servida-choice input[name=served]")).to_be_visible()
    found = Axe().run(page, options=WCAG_21_AA).response["violations"]
    assert [(item["id"], [node["target"] for node in item["nodes"]][:3]) for item in found] == []
    # The servida's tick is a thumb's target.
    box = page.locator("#servida-choice label").bounding_box()
    assert box["height"] >= 44 and box["width"] >= 44
