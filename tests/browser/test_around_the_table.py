"""Around a turn, at both tablet sizes: the bonus's pace said in a word, a sheet wider than
the screen that says it scrolls, the Conseil's line in landscape, the household's players as
chips on the new-game screen, and a Revanche made once."""

import re

import pytest
from playwright.sync_api import expect

from tests.browser.checks import low_contrast_texts, small_targets, unnamed_controls
from tests.browser.games import PLAYERS
from tests.browser.tablets import TABLETS
from tests.support.games import GAME

SIZES = ["landscape", "portrait"]


def in_language(page, language):
    if language == "en":
        page.context.add_cookies([{"name": "lang", "value": "en", "url": page.url}])
        page.reload()


# Each pace mark's text as shown, its font size, and whether its line wraps.
PACE_MARKS = """() => [...document.querySelectorAll('.sheet .balance')].map((mark) => {
  const shown = [...mark.children].filter((part) => part.getClientRects().length
    && part.getBoundingClientRect().width > 1);
  const tops = new Set(shown.flatMap((part) => {
    const range = document.createRange();
    range.selectNodeContents(part);
    return [...range.getClientRects()].map((rect) => Math.round(rect.top));
  }));
  return { text: shown.map((part) => part.textContent).join(''),
           size: parseFloat(getComputedStyle(mark).fontSize), lines: tops.size };
})"""


@pytest.mark.parametrize("language", ["fr", "en"])
@pytest.mark.parametrize("size", SIZES)
def test_the_pace_mark_says_what_it_is(open_page, seed, artifacts, size, language):
    """Ahead in one column, behind in the other: a word with the number, 16 px, one line;
    a tap on it says the whole sentence where the other answers to taps are."""
    game_id = seed(["Mag", "Alix"], [("66662", "free:sixes"), ("11123", "free:ones")])
    page = open_page(f"/games/{game_id}", size=TABLETS[size])
    in_language(page, language)
    marks = page.evaluate(PACE_MARKS)
    # Mag: four sixes, 6 more than three (+6); Alix: three ones, exactly three of them.
    expected = {"fr": ["en avance de 6", "dans le rythme"], "en": ["6 ahead of pace", "on pace"]}[
        language
    ]
    assert [mark["text"] for mark in marks] == expected, marks
    assert all(mark["size"] >= 16 and mark["lines"] == 1 for mark in marks), marks
    page.screenshot(path=artifacts / f"pace-{size}-{language}.png")
    page.locator(".sheet td[data-explain]").first.click()
    sentence = {
        "fr": "Prime du haut : encore 39 points pour 35, en avance de 6 sur le rythme de "
        "trois de chaque face.",
        "en": "Upper bonus: 39 more points for 35, 6 ahead of the pace of three of each face.",
    }[language]
    expect(page.locator("#confirm-bar").get_by_role("alert")).to_have_text(sentence)


@pytest.mark.parametrize("size", SIZES)
def test_a_narrow_pace_mark_explains_itself_on_tap(open_page, seed, size):
    """Triple for three: the columns are narrow and show « retard », a word; a tap says it all."""
    turns = [("11112", "down:ones"), ("22234", "down:ones"), ("12345", "down:ones")]
    game_id = seed(PLAYERS[:3], turns, preset="triple")
    page = open_page(f"/games/{game_id}", size=TABLETS[size])
    marks = page.evaluate(PACE_MARKS)
    assert [mark["text"] for mark in marks] == ["avance", "retard", "retard"]
    assert all(mark["size"] >= 16 and mark["lines"] == 1 for mark in marks), marks
    page.locator(".sheet td[data-explain]").first.click()
    expect(page.locator("#confirm-bar").get_by_role("alert")).to_have_text(
        "Prime du haut : encore 59 points pour 35, en avance de 1 sur le rythme de trois "
        "de chaque face."
    )
    page.locator(".turn-banner").click()
    expect(page.locator("#confirm-bar")).to_be_hidden()


# Whether the sheet's pane scrolls sideways, and where and how large the hint is.
SCROLL_STATE = """() => {
  const pane = document.getElementById('sheet-live');
  const hint = document.getElementById('scroll-hint');
  const seen = hint && hint.getClientRects().length > 0;
  const box = seen && hint.getBoundingClientRect();
  return { scrolls: pane.scrollWidth > pane.clientWidth + 1, hint: Boolean(seen),
           size: seen ? parseFloat(getComputedStyle(hint).fontSize) : null,
           inView: seen ? box.top >= 0 && box.bottom <= innerHeight : null };
}"""


@pytest.mark.parametrize("language", ["fr", "en"])
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("count", [4, 7, 10])
def test_a_sheet_wider_than_the_screen_says_it_scrolls(
    open_page, seed, artifacts, size, count, language
):
    """The hint shows exactly when the sheet scrolls sideways, on screen, at 16 px."""
    preset = "triple" if count == 4 else "classique"
    page = open_page(f"/games/{seed(PLAYERS[:count], preset=preset)}", size=TABLETS[size])
    in_language(page, language)
    state = page.evaluate(SCROLL_STATE)
    assert state["hint"] == state["scrolls"], state
    if size == "portrait":
        assert state["scrolls"], "more seats than fit in portrait"
    if state["hint"]:
        assert state["size"] >= 16 and state["inView"], state
    page.screenshot(path=artifacts / f"scroll-hint-{count}-{preset}-{size}-{language}.png")


def test_a_sheet_that_fits_has_no_hint(open_page, seed):
    for size in SIZES:
        page = open_page(f"/games/{seed(PLAYERS[:4])}", size=TABLETS[size])
        state = page.evaluate(SCROLL_STATE)
        assert not state["scrolls"] and not state["hint"], (size, state)


# Top and bottom of the dice field, the Conseil button, its throw choice and the keypad.
CONSEIL_LINE = """() => Object.fromEntries(Object.entries({
    dice: '#dice', conseil: '[name="advice"]', throws: '.dice-typed .throw-choice',
    keypad: '.keypad' }).map(([name, selector]) => {
      const el = document.querySelector(selector);
      if (!el || !el.getClientRects().length) return [name, null];
      const box = el.getBoundingClientRect();
      return [name, [Math.round(box.top), Math.round(box.bottom), Math.round(box.left),
                     Math.round(box.right)]];
    }))"""


@pytest.mark.parametrize("language", ["fr", "en"])
@pytest.mark.parametrize(
    ("preset", "count", "dice"),
    [
        ("classique", 2, 5),
        ("classique", 4, 5),
        ("triple", 2, 5),
        ("classique", 7, 5),
        ("classique", 2, 6),
    ],
)
def test_in_landscape_the_conseil_keeps_to_the_dice_line(
    open_page, seed, artifacts, preset, count, dice, language
):
    """At 1024×768 the Conseil button sits on the dice field's line whatever the sheet
    beside it, and nothing of it takes a line of its own above the keypad: its throw choice
    waits on the Conseil's page, one tap away."""
    game_id = seed(PLAYERS[:count], preset=preset, dice=dice)
    page = open_page(f"/games/{game_id}", size=TABLETS["landscape"])
    in_language(page, language)
    boxes = page.evaluate(CONSEIL_LINE)
    dice_top, dice_bottom = boxes["dice"][:2]
    for part in ("conseil", "throws"):
        if boxes[part] is None:
            continue
        top, bottom = boxes[part][:2]
        # On the dice field's line: their middles within its height.
        assert dice_top <= (top + bottom) / 2 <= dice_bottom, (part, boxes)
    assert boxes["conseil"] is not None and boxes["throws"] is None, boxes
    keypad_top = boxes["keypad"][0]
    lowest = max(box[1] for box in boxes.values() if box and box is not boxes["keypad"])
    assert keypad_top >= lowest, boxes
    print(preset, count, dice, language, boxes)
    page.screenshot(path=artifacts / f"conseil-{preset}-{count}-{dice}-{language}.png")
    # The dice typed, Conseil, and the throw is chosen on its page in one tap.
    page.get_by_label({"fr": "Dés de Mag", "en": "Mag's dice"}[language]).fill("66653")
    page.locator('[name="advice"]').click()
    first = {"fr": "1er lancer", "en": "1st throw"}[language]
    page.get_by_role("link", name=first).click()
    expect(page.get_by_role("link", name=first)).to_have_attribute("aria-current", "page")


@pytest.mark.parametrize("language", ["fr", "en"])
@pytest.mark.parametrize("size", SIZES)
def test_known_players_are_one_tap_each(open_page, seed, artifacts, size, language):
    """Tapped in any order, the chips fill the lines in that order; a second tap takes a
    player back out; the game starts with them."""
    seed(["Zoé", "Alix"])
    seed(["Mag"])
    page = open_page("/games/new", size=TABLETS[size])
    in_language(page, language)
    chips = page.locator(".player-chip")
    expect(chips.first).to_have_text("Mag")
    assert small_targets(page) == [] and unnamed_controls(page) == []
    assert low_contrast_texts(page) == []
    page.get_by_text("Alix", exact=True).click()
    page.get_by_text("Mag", exact=True).click()
    page.get_by_text("Zoé", exact=True).click()
    page.get_by_text("Mag", exact=True).click()  # taken back out
    lines = page.locator(".player-names input")
    assert [lines.nth(index).input_value() for index in range(3)] == ["Alix", "", "Zoé"]
    page.screenshot(path=artifacts / f"new-game-chips-{size}-{language}.png", full_page=True)
    start = {"fr": "Commencer la partie", "en": "Start the game"}[language]
    page.get_by_role("button", name=start).click()
    expect(page).to_have_title(re.compile("· Alix, Zoé · Yams$"))


def test_revanche_once_through_back(open_page, seed):
    """Ranking → Revanche → Back → Revanche: the second tap opens the game the first made."""
    turns = [(dice, f"free:{box}") for pair in GAME for dice, box in pair]
    finished = seed(["Mag", "Alix"], turns)
    page = open_page(f"/games/{finished}/ranking")
    page.get_by_role("button", name="Revanche").click()
    expect(page).to_have_title(re.compile("^À Alix de jouer"))
    first = page.url
    page.go_back()
    expect(page.get_by_role("button", name="Revanche")).to_be_visible()
    page.get_by_role("button", name="Revanche").click()
    expect(page).to_have_title(re.compile("^À Alix de jouer"))
    assert page.url == first
