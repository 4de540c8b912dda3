"""The whole sheet on a tablet, read from across the table: every box and every total on
screen without scrolling, large figures, nothing wrapped inside a box."""

import pytest

from scorekeeper.rules import GameState, Rules
from tests.browser.checks import low_contrast_texts, page_overflow, small_targets
from tests.browser.games import PLAYERS, lived_in_turns
from tests.browser.tablets import TABLETS

# (preset, players): every one-column sheet up to 4 players, Triple up to 2.
WHOLE = [("classique", count) for count in range(1, 5)] + [("triple", 1), ("triple", 2)]

# Where every row of the sheet is, against the pane and the window: nothing may lie beyond.
SHEET_BOXES = """() => {
  const pane = document.getElementById('sheet-live') || document.querySelector('.sheet-wrap');
  const frame = pane.getBoundingClientRect();
  const rows = [...pane.querySelectorAll('tr')].map((row) => row.getBoundingClientRect());
  return {
    bottom: Math.max(...rows.map((row) => row.bottom)),
    right: Math.max(...rows.map((row) => row.right)),
    frame: [frame.left, frame.top, frame.right, frame.bottom],
    window: [innerWidth, innerHeight],
    scrolls: [pane.scrollWidth - pane.clientWidth, pane.scrollHeight - pane.clientHeight,
              document.documentElement.scrollHeight - innerHeight],
  };
}"""

# The font size of each kind of figure shown on the sheet, where the page has one.
FIGURE_SIZES = """() => Object.fromEntries(Object.entries({
    written: '.sheet td.filled', preview: '.box-btn.preview', floor: '.box-btn .floor',
    shortfall: '.sheet .missing', balance: '.sheet .balance', kind: '.sheet thead .kind',
  }).map(([name, selector]) => [name, [...document.querySelectorAll(selector)]
    .filter((el) => el.getClientRects().length)
    .map((el) => parseFloat(getComputedStyle(el).fontSize))]))"""

# The cells whose text takes more than one line, or more width than the cell has (a long
# player's name is cut short with an ellipsis on purpose: its title holds the full name).
WRAPPED_CELLS = """() => [...document.querySelectorAll('.sheet th, .sheet td')].filter((cell) => {
  if (!cell.matches('.player') && cell.scrollWidth > cell.clientWidth + 1) return true;
  const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.textContent.trim() || node.parentElement.closest('.visually-hidden')) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const tops = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)));
    if (tops.size > 1) return true;
  }
  return false;
}).map((cell) => cell.outerHTML.slice(0, 120))"""


def lived_in_game(seed, preset, count):
    """A game some turns in: written scores, la vache's floors, bonus shortfalls."""
    rules = {"preset": preset, "vache": True}
    names = PLAYERS[:count]
    turns = lived_in_turns(GameState.start(Rules.from_dict(rules), names), 2 * count + 1)
    return seed(names, turns, **rules)


@pytest.mark.parametrize("language", ["fr", "en"])
@pytest.mark.parametrize("size", ["landscape", "portrait"])
@pytest.mark.parametrize(("preset", "count"), WHOLE)
def test_the_whole_sheet_is_on_screen(open_page, seed, artifacts, size, preset, count, language):
    page = open_page(f"/games/{lived_in_game(seed, preset, count)}?dice=66653", size=TABLETS[size])
    if language == "en":
        page.context.add_cookies([{"name": "lang", "value": "en", "url": page.url}])
        page.reload()
    assert page.locator("html").get_attribute("lang") == language
    page.locator(".box-btn.preview").first.wait_for()
    page.screenshot(path=artifacts / f"whole-{preset}-{count}-{size}-{language}.png")
    boxes = page.evaluate(SHEET_BOXES)
    left, top, right, bottom = boxes["frame"]
    width, height = boxes["window"]
    assert boxes["scrolls"] == [0, 0, 0], "the sheet or the page scrolls"
    assert boxes["bottom"] <= bottom + 1 and bottom <= height, "rows below the screen"
    assert boxes["right"] <= right + 1 and right <= width, "columns beyond the screen"
    assert page.locator(".sheet .total td").first.is_visible()
    assert page_overflow(page) <= 0
    assert small_targets(page) == []
    sizes = page.evaluate(FIGURE_SIZES)
    assert sizes["written"] and sizes["preview"] and sizes["shortfall"]
    assert min(sizes["written"] + sizes["preview"]) >= 20
    # Read from across the table: the small figures and the column names at 16 px at least.
    assert min(sizes["floor"] + sizes["shortfall"] + sizes["balance"] + sizes["kind"]) >= 16
    print(
        preset, count, size, language, {name: sorted(set(found)) for name, found in sizes.items()}
    )
    assert low_contrast_texts(page) == []
    assert page.evaluate(WRAPPED_CELLS) == []


# The width of each player's columns on the sheet, as the header draws them.
SEAT_WIDTHS = """() => [...document.querySelectorAll('.sheet thead th.player')].map(
  (th) => th.getBoundingClientRect().width)"""


@pytest.mark.parametrize("language", ["fr", "en"])
@pytest.mark.parametrize("size", ["landscape", "portrait"])
def test_the_players_columns_are_even(open_page, seed, size, language):
    # A long name (Marie-Christine), written scores, previews and bonus shortfalls of every
    # width: none of them may widen its player's columns beyond the others'.
    for preset, count in [("classique", 2), ("classique", 3), ("classique", 4), ("triple", 2)]:
        page = open_page(
            f"/games/{lived_in_game(seed, preset, count)}?dice=66653", size=TABLETS[size]
        )
        if language == "en":
            page.context.add_cookies([{"name": "lang", "value": "en", "url": page.url}])
            page.reload()
        page.locator(".box-btn.preview").first.wait_for()
        widths = page.evaluate(SEAT_WIDTHS)
        assert len(widths) == count
        assert max(widths) <= 1.1 * min(widths), (preset, count, widths)
        page.context.close()


# Each rule chip's background and border, as drawn.
RULE_CHIPS = """() => [...document.querySelectorAll('.rules-summary li')]
  .filter((chip) => chip.getClientRects().length)
  .map((chip) => { const style = getComputedStyle(chip);
    return [chip.textContent.trim(), style.backgroundColor, parseFloat(style.borderTopWidth)]; })"""


def test_rule_chips_are_outlined_not_filled_like_buttons(open_page, seed):
    page = open_page(f"/games/{seed(['Mag', 'Alix'], vache=True)}", size=TABLETS["landscape"])
    chips = page.evaluate(RULE_CHIPS)
    assert [chip[0] for chip in chips][:2] == ["Yams", "règle de la vache"]
    # The rule set's chip too: no fill (transparent), an outline.
    assert all(background == "rgba(0, 0, 0, 0)" for _text, background, _border in chips), chips
    assert all(border >= 1 for _text, _background, border in chips), chips
