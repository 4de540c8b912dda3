"""The dice field at the table: every die typed in view, and a wrong die said in words."""

import pytest
from playwright.sync_api import expect

from .conftest import TABLETS
from .test_turns import turn_ready

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
