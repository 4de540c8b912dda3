"""The dice field at the table: every die typed in view, and a wrong die said in words."""

import pytest
from playwright.sync_api import expect

from tests.browser.tablets import TABLETS
from tests.browser.taps import turn_ready

# A few players leave the whole sheet beside the panel; seven make it scroll sideways, with
# the panel's own layout.
FAMILY = ["Papa", "Maman", "Léa"]
SEATS = {"3": FAMILY, "7": [*FAMILY, "Mag", "Alix", "Dédé", "Inès"]}

# What the field hides of its text, and whether its buttons still share its line.
FIELD = """(field) => {
  const line = [...field.parentElement.children].filter((el) => el.matches('input, .btn'))
    .filter((el) => el.offsetParent !== null).map((el) => {
      const box = el.getBoundingClientRect();
      return box.top + box.height / 2;
    });
  return [field.scrollWidth - field.clientWidth, new Set(line.map(Math.round)).size];
}"""


@pytest.mark.parametrize("size", ["landscape", "portrait"])
@pytest.mark.parametrize("lang", ["fr", "en"])
@pytest.mark.parametrize("seats", list(SEATS))
@pytest.mark.parametrize(("count", "dice"), [(5, "55555"), (6, "666666")])
def test_the_field_shows_every_die_typed(open_page, seed, size, lang, seats, count, dice):
    page = open_page(f"/games/{seed(SEATS[seats], dice=count)}", size=TABLETS[size], lang=lang)
    turn_ready(page)
    page.locator("#dice").fill(dice)
    turn_ready(page, dice)
    hidden, lines = page.locator("#dice").evaluate(FIELD)
    assert hidden <= 0, f"{hidden} px of « {dice} » hidden"
    assert lines == 1, "the field's buttons wrapped under it"
    expect(page.locator("#dice-drawn .die-btn")).to_have_count(count)


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

OPEN_BOXES = "#sheet-live .box-btn"


@pytest.mark.parametrize("lang", ["fr", "en"])
@pytest.mark.parametrize("dice", list(WRONG_THROWS))
def test_a_wrong_throw_is_said_as_it_is_typed(open_page, seed, lang, dice):
    page = open_page(f"/games/{seed(FAMILY)}", lang=lang)
    turn_ready(page)
    page.locator("#dice").press_sequentially(dice)
    turn_ready(page, dice)  # the server's answer: the same words
    expect(page.locator("#dice-status")).to_have_text(WRONG_THROWS[dice][lang])
    expect(page.locator("#turn-messages .flash-error")).to_have_count(0)
    boxes = page.locator(OPEN_BOXES)
    assert boxes.count() == 13
    assert all(boxes.nth(i).get_attribute("aria-disabled") == "true" for i in range(13))
    page.locator("#dice").fill("66653")
    turn_ready(page, "66653")
    expect(page.locator(f"{OPEN_BOXES}[aria-disabled]")).to_have_count(0)


def test_the_sentence_is_said_before_the_server_answers(open_page, seed):
    """The preview cannot come: the script still says the rules' sentence it was given."""
    page = open_page(f"/games/{seed(FAMILY)}", lang="en")
    turn_ready(page)
    page.route("**/turn?*", lambda route: route.abort())
    page.locator("#dice").fill("6 6 x")
    expect(page.locator("#dice-status")).to_have_text(WRONG_THROWS["abc"]["en"].replace("abc", "x"))
    expect(page.locator(f"{OPEN_BOXES}:not([aria-disabled])")).to_have_count(0)


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_too_few_dice_on_a_box_tapped_say_too_few(open_page, seed, lang):
    page = open_page(f"/games/{seed(FAMILY)}", lang=lang)
    turn_ready(page)
    page.locator("#dice").fill("666")
    turn_ready(page, "666")
    page.locator('#sheet-live button[name="target"][value="free:chance"]').dispatch_event("click")
    expected = {
        "fr": "Pas assez de dés : il en faut 5, pas 3.",
        "en": "Too few dice: 5 are needed, not 3.",
    }
    expect(page.locator("#dice-status")).to_have_text(expected[lang])
