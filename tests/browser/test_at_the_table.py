"""At the table, at both tablet sizes: a turn in six taps, « Oups » one tap away, a
confirmation that hides no total, and an answer to every tap."""

import re

import pytest
from playwright.sync_api import expect

from tests.browser.tablets import TABLETS
from tests.browser.taps import next_sheet, tap_dice, turn_ready

SIZES = ["landscape", "portrait"]


class Finger:
    """Taps by touch what it is given, once it is attached, visible, still and receiving
    events, and counts the taps."""

    def __init__(self, page):
        self.page = page
        self.taps = 0

    def tap(self, locator):
        locator.tap()
        self.taps += 1

    def dice(self, dice):
        """The keypad's faces, each tap seen in the dice field before the next."""
        tap_dice(self.page, dice)
        self.taps += len(dice)

    def key(self, face):
        """A key of a full tray's keypad: aria-disabled, which Playwright's tap would wait to
        see gone, yet a tap on it must say why. So the tap is forced, once the key is visible
        and no preview is on its way to move it."""
        turn_ready(self.page)
        key = self.page.locator(f'.keypad button[name="add"][value="{face}"]')
        expect(key).to_have_attribute("aria-disabled", "true")
        key.tap(force=True)
        self.taps += 1


def scoring_box(page, label):
    """A box once the server's preview of the dice shows it scoring (waiting is no tap)."""
    box = page.locator(f'button.preview[aria-label^="{label}, "]')
    box.wait_for()
    return box


@pytest.mark.parametrize("size", SIZES)
def test_an_ordinary_turn_is_six_taps(open_page, seed, size):
    game_id = seed(["Mag", "Alix"])
    page = open_page(f"/games/{game_id}", size=TABLETS[size])
    finger = Finger(page)
    finger.dice("66653")
    box = scoring_box(page, "Six")
    with next_sheet(page):
        finger.tap(box)
    assert finger.taps == 6
    expect(page.locator(".flash-info")).to_have_text("Mag marque 18 en Six.")
    assert seed.state(game_id).sheets[0].columns["free"].cells["sixes"].points == 18


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(
    ("dice", "label", "reason"),
    [
        ("66612", "Six", "Règle de la vache : il faut au moins 24"),
        ("12346", "Yams", "Les dés 1-2-3-4-6 ne font pas cette combinaison."),
    ],
)
def test_a_box_that_would_be_barred_still_asks(open_page, seed, size, dice, label, reason):
    game_id = seed(["Mag", "Alix"], [("66662", "free:sixes")], vache=True)
    page = open_page(f"/games/{game_id}", size=TABLETS[size])
    finger = Finger(page)
    finger.dice(dice)
    finger.tap(page.locator(f'button.would-bar[aria-label^="{label}, "]'))
    bar = page.locator("#confirm-bar")
    expect(bar).to_contain_text(f"Barrer la case {label} ?")
    expect(bar).to_contain_text(reason)
    assert len(seed.state(game_id).entries) == 1


def test_a_tap_before_the_preview_came_asks(open_page, seed):
    """Dice changed and their preview not back yet: the box shown scoring for the old dice
    asks the server what it would do with the new ones rather than write at once."""
    game_id = seed(["Mag"])
    page = open_page(f"/games/{game_id}?dice=66653")
    posts = []
    page.on("request", lambda request: posts.append(request) if request.method == "POST" else None)
    page.route("**/turn?*", lambda route: None)  # the previews never come back
    page.get_by_role("button", name="Retirer le dé 5, un 3").click()
    with page.expect_request(lambda request: "target=free%3Asixes" in request.url):
        # Four dice: the box no longer invites a tap (aria-disabled), a finger taps it still.
        page.locator('button.preview[value="free:sixes"]').click(force=True)
    assert posts == []
    assert seed.state(game_id).entries == ()


@pytest.mark.parametrize("size", SIZES)
def test_oups_undoes_the_entry_it_names_in_one_tap(open_page, seed, size):
    game_id = seed(["Papa", "Mag"], [("66662", "free:sixes")])
    page = open_page(f"/games/{game_id}", size=TABLETS[size])
    oups = page.get_by_role("button", name="Oups : annuler Six 24 de Papa")
    expect(oups).to_be_visible()
    expect(oups).to_be_in_viewport()
    finger = Finger(page)
    with page.expect_navigation():
        finger.tap(oups)
    assert finger.taps == 1
    expect(page.locator(".flash-info")).to_contain_text("Entrée annulée : Papa, Six.")
    assert seed.state(game_id).entries == ()
    expect(page.locator("[data-undo]")).to_have_count(0)


def test_oups_on_a_page_seen_again_undoes_nothing_else(open_page, seed):
    """Two sheets of one game (another tablet, or Back without scripts): the first « Oups »
    undoes its entry; the other, naming the same entry, is refused and undoes nothing."""
    game_id = seed(["Papa", "Mag"], [("66662", "free:sixes"), ("11123", "free:ones")])
    stale = open_page(f"/games/{game_id}", js=False)
    page = open_page(f"/games/{game_id}")
    with page.expect_navigation():
        page.get_by_role("button", name="Oups : annuler As 3 de Mag").click()
    with stale.expect_navigation():
        stale.get_by_role("button", name="Oups : annuler As 3 de Mag").click()
    expect(stale.locator(".flash-error")).to_contain_text("n'est plus la dernière")
    assert [entry.box for entry in seed.state(game_id).entries] == ["sixes"]


# Every total of the sheet against the confirmation bar: none may lie under it.
HIDDEN_TOTALS = """() => {
  const bar = document.getElementById('confirm-bar').getBoundingClientRect();
  return [...document.querySelectorAll('.sheet tr.total td, .sheet tr.subtotal td,'
                                       + ' .sheet tr.bonus td')]
    .filter((cell) => { const box = cell.getBoundingClientRect();
                        return box.left < bar.right && box.right > bar.left
                          && box.top < bar.bottom && box.bottom > bar.top; })
    .map((cell) => cell.parentElement.className + ' ' + cell.textContent.trim());
}"""


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("players", [["Mag", "Alix"], ["Mag", "Alix", "Chloé", "Dédé"]])
def test_the_confirmation_bar_hides_no_total(open_page, seed, artifacts, size, players):
    game_id = seed(players, [("66662", "free:sixes")], vache=True)
    page = open_page(f"/games/{game_id}?dice=66612", size=TABLETS[size])
    page.locator('button.would-bar[aria-label^="Six, "]').click()
    expect(page.locator("#confirm-bar")).to_contain_text("Barrer la case Six ?")
    assert page.evaluate(HIDDEN_TOTALS) == []
    page.screenshot(path=artifacts / f"confirm-bar-{len(players)}-{size}.png")


@pytest.mark.parametrize("size", SIZES)
def test_a_tap_in_another_players_column_says_whose_turn_it_is(open_page, seed, size):
    game_id = seed(["Mag", "Alix"], [("66662", "free:sixes")])
    page = open_page(f"/games/{game_id}", size=TABLETS[size])
    bar = page.locator("#confirm-bar")
    # Mag's column, a filled box and an empty one, while it is Alix's turn.
    for cell in ("td.filled[data-seat]", "td.empty[data-seat]"):
        Finger(page).tap(page.locator(cell).first)
        expect(bar.get_by_role("alert")).to_have_text(
            "C'est à Alix de jouer : touchez une case de sa colonne."
        )
        Finger(page).tap(page.locator(".turn-banner"))
        expect(bar).to_be_hidden()
    assert len(seed.state(game_id).entries) == 1


@pytest.mark.parametrize("size", SIZES)
def test_a_sixth_die_in_a_five_dice_game_says_why(open_page, seed, size):
    page = open_page(f"/games/{seed(['Mag'])}", size=TABLETS[size])
    finger = Finger(page)
    finger.dice("66653")
    scoring_box(page, "Six")
    finger.key("4")
    expect(page.locator("#confirm-bar").get_by_role("alert")).to_have_text(
        "Les 5 dés sont déjà là : touchez un dé pour le retirer."
    )
    expect(page.locator("#dice-drawn .die-btn")).to_have_count(5)
    expect(page.get_by_label("Dés de Mag")).to_have_value("66653")


@pytest.mark.parametrize("language", ["fr", "en"])
@pytest.mark.parametrize("size", SIZES)
def test_the_turn_panel_looked_at(open_page, seed, artifacts, size, language):
    """The panel after a turn, « Oups » in it, and a refused tap: PNGs to look at."""
    game_id = seed(["Papa", "Mag"], [("66662", "free:sixes")], vache=True)
    page = open_page("/", size=TABLETS[size])
    page.context.add_cookies([{"name": "lang", "value": language, "url": page.url}])
    page.goto(f"/games/{game_id}?dice=66653")
    oups = {"fr": "Oups : annuler Six 24 de Papa", "en": "Oops: undo Sixes 24 by Papa"}
    expect(page.locator("[data-undo]")).to_have_text(oups[language])
    page.screenshot(path=artifacts / f"table-oups-{size}-{language}.png")
    finger = Finger(page)
    finger.key("1")
    expect(page.locator("#confirm-bar").get_by_role("alert")).to_have_text(
        re.compile("5 dés sont déjà là" if language == "fr" else "All 5 dice are in")
    )
    page.screenshot(path=artifacts / f"table-sixth-die-{size}-{language}.png")
