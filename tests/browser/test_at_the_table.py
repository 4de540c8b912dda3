"""At the table, on one tablet, each test a story played through: a whole game by taps, a game
started with the household's players, a turn in six taps at both tablet sizes and what each
tap answers, the dice field's words, a barred box, « Oups », the keyboard alone, and the same
sheet without scripts."""

import re

from playwright.sync_api import expect

from scorekeeper.rules import BOX_LABELS
from tests.browser.checks import check_page, low_contrast_texts, small_targets, unnamed_controls
from tests.browser.tablets import load, screens, turn_to
from tests.browser.taps import (
    Finger,
    confirm,
    next_sheet,
    scoring_box,
    tap_box,
    tap_dice,
    tap_dice_without_scripts,
    turn_ready,
    write_box,
)
from tests.support.games import GAME

TABLET_SIZES = ("landscape", "portrait")


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


def test_a_game_started_with_the_households_players(open_page, seed, artifacts):
    """The new-game screen offers the household's players as chips, at both tablet sizes in
    both languages: tapped in any order, they fill the lines in that order; a second tap
    takes a player back out; a preset picked shows only its house rules; the game starts
    with them."""
    page = open_page("/")
    for size, language in screens(page, TABLET_SIZES):
        seed(["Zoé", "Alix"])
        seed(["Mag"])
        load(page, "/games/new", language)
        chips = page.locator(".player-chip")
        expect(chips.first).to_have_text("Mag")
        assert small_targets(page) == [] and unnamed_controls(page) == [], (size, language)
        assert low_contrast_texts(page) == [], (size, language)
        page.get_by_text("Alix", exact=True).click()
        page.get_by_text("Mag", exact=True).click()
        page.get_by_text("Zoé", exact=True).click()
        page.get_by_text("Mag", exact=True).click()  # taken back out
        lines = page.locator(".player-names input")
        assert [lines.nth(index).input_value() for index in range(3)] == ["Alix", "", "Zoé"]
        page.screenshot(path=artifacts / f"new-game-chips-{size}-{language}.png", full_page=True)
        # A preset picked shows its own house rules alone, the others hidden and not sent.
        vache, servida = (page.locator(f'input[name="{name}"]') for name in ("vache", "servida"))
        page.locator('input[name="preset"][value="generala"]').check()
        expect(servida).to_be_visible()
        expect(vache).to_be_hidden()
        expect(vache).to_be_disabled()
        page.screenshot(path=artifacts / f"new-game-generala-{size}-{language}.png", full_page=True)
        page.locator('input[name="preset"][value="classique"]').check()
        expect(vache).to_be_visible()
        expect(servida).to_be_hidden()
        start = {"fr": "Commencer la partie", "en": "Start the game"}[language]
        page.get_by_role("button", name=start).click()
        expect(page).to_have_title(re.compile("· Alix, Zoé · Yams$"))


def test_a_turn_in_six_taps_and_an_answer_to_every_tap(open_page, seed):
    page = open_page("/")
    for size, _language in screens(page, TABLET_SIZES, ["fr"]):
        # Five dice and the box: six taps, written.
        game_id = seed(["Mag", "Alix"])
        load(page, f"/games/{game_id}")
        finger = Finger(page)
        finger.dice("66653")
        box = scoring_box(page, "Six")
        with next_sheet(page):
            finger.tap(box)
        assert finger.taps == 6, size
        expect(page.locator(".flash-info")).to_have_text("Mag marque 18 en Six.")
        assert seed.state(game_id).sheets[0].columns["free"].cells["sixes"].points == 18

        # A tap in another player's column says whose turn it is: Mag's column, a filled box
        # and an empty one, while it is Alix's turn.
        bar = page.locator("#confirm-bar")
        for cell in ("td.filled[data-seat]", "td.empty[data-seat]"):
            Finger(page).tap(page.locator(cell).first)
            expect(bar.get_by_role("alert")).to_have_text(
                "C'est à Alix de jouer : touchez une case de sa colonne."
            )
            Finger(page).tap(page.locator(".turn-banner"))
            expect(bar).to_be_hidden()
        assert len(seed.state(game_id).entries) == 1

        # A sixth die in a five-dice game says why, and is not typed.
        load(page, f"/games/{seed(['Mag'])}")
        finger = Finger(page)
        finger.dice("66653")
        scoring_box(page, "Six")
        finger.key("4")
        expect(page.locator("#confirm-bar").get_by_role("alert")).to_have_text(
            "Les 5 dés sont déjà là : touchez un dé pour le retirer."
        )
        expect(page.locator("#dice-drawn .die-btn")).to_have_count(5)
        expect(page.get_by_label("Dés de Mag")).to_have_value("66653")

    # A die fixed with a tap, then the dice typed.
    turn_to(page, "landscape")
    load(page, f"/games/{seed(['Mag'])}")
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

    # A sheet opened with dice in its address drops them once the turn is written; the last
    # turn leads to the ranking's address.
    boxes = ["ones", "twos", "threes", "fours", "fives", "three_kind", "four_kind"]
    boxes += ["full_house", "small_straight", "large_straight", "yams"]
    game_id = seed(["Mag"], [("12345", f"free:{box}") for box in boxes])
    load(page, f"/games/{game_id}?dice=66653")
    write_box(page, "Six")
    assert page.url.endswith(f"/games/{game_id}")
    tap_dice(page, "12345")
    write_box(page, "Chance")
    # The last box keeps the sheet, which names the winner.
    assert page.url.endswith(f"/games/{game_id}")
    expect(page.locator(".end-panel .winner")).to_have_text(re.compile("^Mag gagne avec"))

    # The preview cannot be fetched: a box tap posts the form as without scripts.
    load(page, f"/games/{seed(['Mag'])}?dice=66653")
    page.route("**/turn?*", lambda route: route.abort())
    with page.expect_navigation():
        page.get_by_role("button", name="Six, 18 points possibles").click()
    expect(page.locator(".flash-info")).to_have_text("Mag marque 18 en Six.")
    page.unroute_all(behavior="ignoreErrors")

    # Dice changed and their preview not back yet: the box shown scoring for the old dice
    # asks the server what it would do with the new ones rather than write at once.
    game_id = seed(["Mag"])
    load(page, f"/games/{game_id}?dice=66653")
    posts = []

    def heard(request):
        if request.method == "POST":
            posts.append(request)

    page.on("request", heard)
    page.route("**/turn?*", lambda route: None)  # the previews never come back
    page.get_by_role("button", name="Retirer le dé 5, un 3").click()
    with page.expect_request(lambda request: "target=free%3Asixes" in request.url):
        # Four dice: the box no longer invites a tap (aria-disabled), a finger taps it still.
        page.locator('button.preview[value="free:sixes"]').click(force=True)
    assert posts == []
    assert seed.state(game_id).entries == ()
    page.remove_listener("request", heard)
    page.unroute_all(behavior="ignoreErrors")

    # A page left (or reloaded) while the preview of the dice just typed is on its way comes
    # back with those dice, not with the dice of the last preview.
    load(page, f"/games/{seed(['Mag'])}")
    turn_ready(page)
    page.route("**/turn?*", lambda route: None)  # the previews never come back
    for typed in ("6", "66", "665"):
        page.locator(f'.keypad button[name="add"][value="{typed[-1]}"]').tap()
        expect(page.get_by_label("Dés de Mag")).to_have_value(typed)
    page.unroute_all(behavior="ignoreErrors")
    page.reload()
    expect(page.get_by_label("Dés de Mag")).to_have_value("665")
    turn_ready(page, "665")


# Each wrong throw as it is typed, and the rules' sentence the page says for it.
WRONG_THROWS = {
    "77777": {
        "fr": "« 7 » n'est pas un dé : un dé va de 1 à 6.",
        "en": "“7” is not a die: a die goes from 1 to 6.",
    },
    "abc": {
        "fr": "« abc » n'est pas un chiffre : tapez les dés de 1 à 6.",
        "en": "“abc” is not a digit: type the dice from 1 to 6.",
    },
    "666666": {
        "fr": "Trop de dés : il en faut 5, pas 6.",
        "en": "Too many dice: 5 are needed, not 6.",
    },
    # Too few while typing: the count-down, no error.
    "666": {"fr": "Encore 2 dés.", "en": "2 more dice."},
}
TOO_FEW = {
    "fr": "Pas assez de dés : il en faut 5, pas 3.",
    "en": "Too few dice: 5 are needed, not 3.",
}
OPEN_BOXES = "#sheet-live .box-btn"


def test_the_dice_field_says_what_is_wrong_as_it_is_typed(open_page, seed):
    page = open_page("/")
    game_id = seed(["Papa", "Maman", "Léa"])
    for _size, language in screens(page, ["landscape"]):
        for dice, said in WRONG_THROWS.items():
            load(page, f"/games/{game_id}", language)
            turn_ready(page)
            page.locator("#dice").press_sequentially(dice)
            turn_ready(page, dice)  # the server's answer: the same words
            expect(page.locator("#dice-status")).to_have_text(said[language])
            expect(page.locator("#turn-messages .flash-error")).to_have_count(0)
            boxes = page.locator(OPEN_BOXES)
            assert boxes.count() == 13
            assert all(boxes.nth(i).get_attribute("aria-disabled") == "true" for i in range(13))
            page.locator("#dice").fill("66653")
            turn_ready(page, "66653")
            expect(page.locator(f"{OPEN_BOXES}[aria-disabled]")).to_have_count(0)

        # Too few dice on a box tapped: too few, said.
        load(page, f"/games/{game_id}", language)
        turn_ready(page)
        page.locator("#dice").fill("666")
        turn_ready(page, "666")
        chance = page.locator('#sheet-live button[name="target"][value="free:chance"]')
        chance.dispatch_event("click")
        expect(page.locator("#dice-status")).to_have_text(TOO_FEW[language])

    # The preview cannot come: the script still says the rules' sentence it was given.
    load(page, f"/games/{game_id}", "en")
    turn_ready(page)
    page.route("**/turn?*", lambda route: route.abort())
    page.locator("#dice").fill("6 6 x")
    expect(page.locator("#dice-status")).to_have_text(WRONG_THROWS["abc"]["en"].replace("abc", "x"))
    expect(page.locator(f"{OPEN_BOXES}:not([aria-disabled])")).to_have_count(0)


def test_a_barred_box_asks_first(open_page, seed, artifacts):
    page = open_page("/")
    # La vache's floor, shown on the box; the dice that would bar it, the bar that asks, and
    # the way back to another box, the focus following.
    game_id = seed(["Mag", "Alix"], [("66662", "free:sixes")], vache=True)
    load(page, f"/games/{game_id}")
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

    # At both tablet sizes, a box the dice would bar asks even when tapped at once, for la
    # vache's floor as for a combination the dice do not make.
    cases = [
        ("66612", "Six", "Règle de la vache : il faut au moins 24"),
        ("12346", "Yams", "Les dés 1-2-3-4-6 ne font pas cette combinaison."),
    ]
    for size, _language in screens(page, TABLET_SIZES, ["fr"]):
        for dice, label, reason in cases:
            game_id = seed(["Mag", "Alix"], [("66662", "free:sixes")], vache=True)
            load(page, f"/games/{game_id}")
            finger = Finger(page)
            finger.dice(dice)
            finger.tap(page.locator(f'button.would-bar[aria-label^="{label}, "]'))
            expect(bar).to_contain_text(f"Barrer la case {label} ?")
            expect(bar).to_contain_text(reason)
            assert len(seed.state(game_id).entries) == 1, (size, label)

    # A box the rules refuse says why in one line: filled, out of order, forced by the joker.
    turn_to(page, "landscape")
    load(page, f"/games/{seed(['Mag'], [('66666', 'free:yams')], preset='triple')}")
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


def test_oups_undoes_the_entry_it_names_and_no_other(open_page, seed):
    page = open_page("/")
    # A turn written, then undone: the turn is the other player's again, the box open.
    game_id = seed(["Mag", "Alix"], [("66662", "free:sixes")])
    load(page, f"/games/{game_id}")
    tap_dice(page, "11123")
    write_box(page, "As")
    expect(page).to_have_title(re.compile("^À Mag de jouer"))
    with page.expect_navigation():
        page.get_by_role("button", name="Oups : annuler As 3 de Alix").click()
    expect(page).to_have_title(re.compile("^À Alix de jouer"))
    expect(page.locator(".flash-info")).to_contain_text("Entrée annulée : Alix, As.")
    expect(page.get_by_role("button", name="As", exact=True)).to_be_visible()

    # « Oups » on screen and one tap away at both tablet sizes.
    for size, _language in screens(page, TABLET_SIZES, ["fr"]):
        game_id = seed(["Papa", "Mag"], [("66662", "free:sixes")])
        load(page, f"/games/{game_id}")
        oups = page.get_by_role("button", name="Oups : annuler Six 24 de Papa")
        expect(oups).to_be_visible()
        expect(oups).to_be_in_viewport()
        finger = Finger(page)
        with page.expect_navigation():
            finger.tap(oups)
        assert finger.taps == 1, size
        expect(page.locator(".flash-info")).to_contain_text("Entrée annulée : Papa, Six.")
        assert seed.state(game_id).entries == ()
        expect(page.locator("[data-undo]")).to_have_count(0)

    # Two sheets of one game (another tablet, or Back without scripts): the first « Oups »
    # undoes its entry; the other, naming the same entry, is refused and undoes nothing.
    turn_to(page, "landscape")
    game_id = seed(["Papa", "Mag"], [("66662", "free:sixes"), ("11123", "free:ones")])
    stale = open_page(f"/games/{game_id}", js=False)
    load(page, f"/games/{game_id}")
    with page.expect_navigation():
        page.get_by_role("button", name="Oups : annuler As 3 de Mag").click()
    with stale.expect_navigation():
        stale.get_by_role("button", name="Oups : annuler As 3 de Mag").click()
    expect(stale.locator(".flash-error")).to_contain_text("n'est plus la dernière")
    assert [entry.box for entry in seed.state(game_id).entries] == ["sixes"]


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


def test_a_turn_by_keyboard_alone(open_page, seed):
    page = open_page("/")
    # Enter on a box that would be barred asks, Escape goes back to it; Enter on one that
    # scores writes it.
    load(page, f"/games/{seed(['Mag'])}")
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

    # Two turns written without a touch or a click, at both tablet sizes: Enter for one,
    # Space for the other.
    for _size, _language in screens(page, TABLET_SIZES, ["fr"]):
        load(page, f"/games/{seed(['Mag', 'Alix'])}")
        turn_by_keyboard(page, "66653", "free:sixes", "Enter")
        expect(page.locator(".flash-info")).to_have_text("Mag marque 18 en Six.")
        turn_by_keyboard(page, "11123", "free:ones", "Space")
        expect(page.locator(".flash-info")).to_have_text("Alix marque 3 en As.")


def test_without_scripts(open_page, seed, artifacts):
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

    # The page that asks before barring la vache's box, as it looks.
    game_id = seed(["Mag", "Alix"], [("66662", "free:sixes")], vache=True)
    page.goto(f"/games/{game_id}?dice=66612")
    page.get_by_role("button", name="Six, barrée à 0").click()
    check_page(page, artifacts, "confirm-barred-page")
