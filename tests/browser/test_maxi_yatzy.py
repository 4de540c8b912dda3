"""Maxi Yatzy at the table (docs/rules.md §15), tapped as a family would: six dice and the
box in six taps with a pair key, a throw saved in one tap more, then spent; the whole sheet
of twenty rows on a landscape tablet; no WCAG violation with the saved throws offered."""

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from scorekeeper.web.store import STORE_EXTENSION
from tests.browser.checks import violations
from tests.browser.games import games_of
from tests.browser.tablets import TABLETS
from tests.browser.taps import CountedTaps, next_sheet


@pytest.fixture
def maxi(live_app):
    return games_of(live_app.extensions[STORE_EXTENSION], "maxi_yatzy")


def test_six_dice_and_the_box_in_six_taps_a_throw_saved_then_spent(open_page, maxi):
    game_id = maxi(["Mag", "Alix"])
    page = open_page(f"/games/{game_id}", size=TABLETS["landscape"])
    choice = page.locator("#throws-choice")

    # Mag: a Torn in three throws, the usual turn: a pair key, four faces and the box.
    taps = CountedTaps(page)
    taps.keys(["33", "6", "6", "6", "6"], "336666")
    expect(choice.locator("input[value='3']")).to_be_checked()
    with next_sheet(page):
        taps.tap(page.get_by_role("button", name="Torn, 30 points possibles"))
    expect(page.locator(".flash-info")).to_have_text("Mag marque 30 en Torn.")
    assert taps.count == 6

    # Alix: a full straight on the first throw, one tap more saves two throws.
    taps = CountedTaps(page)
    taps.keys(["1", "2", "3", "4", "5", "6"], "123456")
    taps.tap(choice.locator("label", has_text=re.compile(r"^\s*1\s*$")))
    with next_sheet(page):
        taps.tap(page.get_by_role("button", name="Full straight, 21 points possibles"))
    assert taps.count == 8
    assert maxi.state(game_id).saved_throws == (0, 2)
    saved = page.locator("tr.saved-throws td")
    expect(saved).to_have_text(["0", "2"])

    # Mag has none saved: three throws offered; Alix next has five.
    expect(page.locator("#throws-choice input")).to_have_count(3)
    taps = CountedTaps(page)
    taps.keys(["11", "22", "33"], "112233")
    with next_sheet(page):
        taps.tap(page.get_by_role("button", name="Tre par, 12 points possibles"))
    expect(page.locator("#throws-choice input")).to_have_count(5)
    expect(page.locator("#throws-choice legend")).to_have_text("Lancers utilisés (2 gardés) :")
    taps = CountedTaps(page)
    taps.keys(["55", "55", "55"], "555555")
    taps.tap(page.locator("#throws-choice label", has_text=re.compile(r"^\s*5\s*$")))
    with next_sheet(page):
        taps.tap(page.get_by_role("button", name="Maxiyatzy, 100 points possibles"))
    assert maxi.state(game_id).saved_throws == (0, 0)
    assert maxi.state(game_id).entries[-1].throws == 5


def test_the_whole_sheet_fits_a_landscape_tablet(open_page, maxi):
    game_id = maxi(["Mag", "Alix"])
    page = open_page(f"/games/{game_id}", size=TABLETS["landscape"])
    pane = page.locator("#sheet-live").bounding_box()
    table = page.locator("table.sheet").bounding_box()
    assert table["height"] <= pane["height"] + 1
    expect(page.locator("table.sheet tbody tr.box-row")).to_have_count(20)


@pytest.mark.parametrize("language", ["fr", "en"])
def test_swedish_boxes_and_no_wcag_violation_with_the_throws_offered(open_page, maxi, language):
    game_id = maxi(["Mag", "Alix"])
    page = open_page(f"/games/{game_id}", size=TABLETS["portrait"], lang=language)
    names = page.locator("table.sheet tbody th.box-name")
    for name in ("Ettor", "Kåk", "Hus", "Torn", "Maxiyatzy"):
        expect(names.filter(has_text=re.compile(f"^{name}$"))).to_have_count(1)
    taps = CountedTaps(page)
    taps.keys(["44", "4", "2", "2", "2"], "444222")
    assert violations(Axe(), page) == []
    # Each answer to the throws, and each pair key, is a thumb's target.
    for locator in (page.locator("#throws-choice label").first, page.locator(".key-pair").first):
        box = locator.bounding_box()
        assert box["height"] >= 44 and box["width"] >= 44
