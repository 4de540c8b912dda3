"""Generala at the table (docs/rules.md §14), tapped as a family would: a turn in six taps,
the servida in one more where it changes the score, the game won at once and its winner on
the sheet; the boxes in Spanish in both languages; no WCAG violation with the servida asked."""

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from scorekeeper.web.store import STORE_EXTENSION
from tests.browser.checks import violations
from tests.browser.games import games_of
from tests.browser.tablets import TABLETS
from tests.browser.taps import CountedTaps, next_sheet, turn_ready


@pytest.fixture
def generala(live_app):
    return games_of(live_app.extensions[STORE_EXTENSION], "generala")


def test_a_turn_in_six_taps_a_servida_in_seven_and_the_win(open_page, generala):
    game_id = generala(["Mag", "Alix"])
    page = open_page(f"/games/{game_id}", size=TABLETS["landscape"])
    servida = page.locator("#servida-choice")

    # Mag: a Full on a later throw, the usual turn: five dice and the box.
    taps = CountedTaps(page)
    taps.keys("22333")
    expect(servida).to_be_visible()  # asked, never forced: the box is tapped at once
    with next_sheet(page):
        taps.tap(page.get_by_role("button", name="Full, 30 points possibles"))
    expect(page.locator(".flash-info")).to_have_text("Mag marque 30 en Full.")
    assert taps.count == 6

    # Alix: nothing a servida changes, nothing asked.
    taps = CountedTaps(page)
    taps.keys("12246")
    expect(servida).to_be_hidden()
    with next_sheet(page):
        taps.tap(page.get_by_role("button", name="Deux, 4 points possibles"))
    assert taps.count == 6

    # Mag: a Póker on the first throw, one tap more says it.
    taps = CountedTaps(page)
    taps.keys("44441")
    taps.tap(page.get_by_text("Servida : au 1er lancer"))
    expect(page.get_by_role("button", name="Póker, 45 points possibles")).to_be_visible()
    turn_ready(page, "44441")
    with next_sheet(page):
        taps.tap(page.get_by_role("button", name="Póker, 45 points possibles"))
    expect(page.locator(".flash-info")).to_have_text("Mag marque 45 en Póker.")
    assert taps.count == 7
    cell = generala.state(game_id).sheets[0].columns["free"].cells["four_kind"]
    assert (cell.points, cell.throw) == (45, 1)

    # Alix: a Generala servida; the tap that ends the game is confirmed, then the sheet
    # names the winner.
    taps = CountedTaps(page)
    taps.keys("66666")
    taps.tap(page.get_by_text("Servida : au 1er lancer"))
    winning = page.get_by_role("button", name="Generala, gagne la partie")
    expect(winning).to_be_visible()
    turn_ready(page, "66666")
    taps.tap(winning)
    bar = page.locator("#confirm-bar")
    expect(bar).to_contain_text("Generala servida : Alix gagne la partie sur-le-champ.")
    with next_sheet(page):
        taps.tap(page.locator("[data-confirm]"))
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
    taps = CountedTaps(page)
    taps.keys("23456")
    expect(page.locator("#servida-choice input[name=served]")).to_be_visible()
    assert violations(Axe(), page) == []
    # The servida's tick is a thumb's target.
    box = page.locator("#servida-choice label").bounding_box()
    assert box["height"] >= 44 and box["width"] >= 44
