"""The sheet as it is played on, one pass per shape of game: one tablet turned from size to
size and from French to English (tests/browser/tablets.py), each page loaded again at each.
What must hold on every page of the sheet, at every screen it is tested on:

- a sheet whose seats fit across (1 to 4 players on one column, 1 or 2 in Triple) shows every
  box and total at 1024×768 and 768×1024 without scrolling, its figures large (20 px; la
  vache's floors, the bonus shortfall and pace, the column names 16 px), contrasted, and
  nothing wraps inside a box; the players' columns are even;
- a wider sheet says it scrolls (and only then), keeps the box names in view and the active
  player's columns scrolled in, at every tablet size and on a phone;
- the Conseil keeps to the dice line in landscape; the dice field shows every die typed;
  the tray holds more dice than the game plays; the keypad stays put after a turn; the
  confirmation bar hides no total; the finished sheet names the winner in view.

PNGs of each go to test-artifacts/, to look at."""

import re

from playwright.sync_api import expect

from scorekeeper.rules import GameState, Rules
from tests.browser.checks import check_page, low_contrast_texts, page_overflow, small_targets
from tests.browser.games import PLAYERS, finished_game, lived_in_turns
from tests.browser.tablets import TABLETS, load, screens, turn_to
from tests.browser.taps import Finger, tap_dice, turn_ready, write_box
from tests.support.games import GAME

TABLET_SIZES = ("landscape", "portrait")


def lived_in_game(seed, preset, count):
    """A game some turns in: written scores, la vache's floors, bonus shortfalls."""
    rules = {"preset": preset, "vache": True}
    names = PLAYERS[:count]
    turns = lived_in_turns(GameState.start(Rules.from_dict(rules), names), 2 * count + 1)
    return seed(names, turns, **rules)


# -- the whole sheet on screen -------------------------------------------------------------

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

# The width of each player's columns on the sheet, as the header draws them.
SEAT_WIDTHS = """() => [...document.querySelectorAll('.sheet thead th.player')].map(
  (th) => th.getBoundingClientRect().width)"""


def the_whole_sheet_is_on_screen(page, artifacts, name):
    """Every box and every total without a scroll, large figures, contrast, no wrapping; and
    the players' columns even: a long name (Marie-Christine), written scores, previews and
    bonus shortfalls of every width widen none beyond the others'."""
    page.locator(".box-btn.preview").first.wait_for()
    page.screenshot(path=artifacts / f"whole-{name}.png")
    boxes = page.evaluate(SHEET_BOXES)
    left, top, right, bottom = boxes["frame"]
    width, height = boxes["window"]
    assert boxes["scrolls"] == [0, 0, 0], ("the sheet or the page scrolls", name)
    assert boxes["bottom"] <= bottom + 1 and bottom <= height, ("rows below the screen", name)
    assert boxes["right"] <= right + 1 and right <= width, ("columns beyond the screen", name)
    assert page.locator(".sheet .total td").first.is_visible()
    assert page_overflow(page) <= 0, name
    assert small_targets(page) == [], name
    sizes = page.evaluate(FIGURE_SIZES)
    assert sizes["written"] and sizes["preview"] and sizes["shortfall"], name
    assert min(sizes["written"] + sizes["preview"]) >= 20, (name, sizes)
    # Read from across the table: the small figures and the column names at 16 px at least.
    small = sizes["floor"] + sizes["shortfall"] + sizes["balance"] + sizes["kind"]
    assert min(small) >= 16, (name, sizes)
    print(name, {kind: sorted(set(found)) for kind, found in sizes.items()})
    assert low_contrast_texts(page) == [], name
    assert page.evaluate(WRAPPED_CELLS) == [], name
    widths = page.evaluate(SEAT_WIDTHS)
    assert max(widths) <= 1.1 * min(widths), (name, widths)
    return len(widths)


def whole_sheets(page, seed, artifacts, shapes):
    """The lived-in games of these (preset, players), at both tablet sizes, in both
    languages."""
    games = {shape: lived_in_game(seed, *shape) for shape in shapes}
    for size, language in screens(page, TABLET_SIZES):
        for (preset, count), game_id in games.items():
            load(page, f"/games/{game_id}?dice=66653", language)
            name = f"{preset}-{count}-{size}-{language}"
            assert the_whole_sheet_is_on_screen(page, artifacts, name) == count, name


# -- a sheet wider than the screen ---------------------------------------------------------

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


def the_hint_says_whether_it_scrolls(page, artifacts, name, size):
    """The hint shows exactly when the sheet scrolls sideways, on screen, at 16 px."""
    state = page.evaluate(SCROLL_STATE)
    assert state["hint"] == state["scrolls"], (name, state)
    if size == "portrait":
        assert state["scrolls"], ("more seats than fit in portrait", name)
    if state["hint"]:
        assert state["size"] >= 16 and state["inView"], (name, state)
    page.screenshot(path=artifacts / f"scroll-hint-{name}.png")


def wide_sheets_say_they_scroll(page, seed, artifacts, count):
    preset = "triple" if count == 4 else "classique"
    game_id = seed(PLAYERS[:count], preset=preset)
    for size, language in screens(page, TABLET_SIZES):
        load(page, f"/games/{game_id}", language)
        name = f"{count}-{preset}-{size}-{language}"
        the_hint_says_whether_it_scrolls(page, artifacts, name, size)


# The box names' cells stay where they are when the sheet is scrolled to its far right.
BOX_NAMES_IN_VIEW = """(pane) => {
  pane.scrollIntoView();
  pane.scrollLeft = pane.scrollWidth;
  const frame = pane.getBoundingClientRect();
  const rows = [...pane.querySelectorAll('tbody th.box-name')].filter((th) => {
    const box = th.getBoundingClientRect();
    return box.top >= frame.top && box.bottom <= Math.min(frame.bottom, window.innerHeight);
  });
  return rows.length >= 3 && rows.every((th) => {
    const box = th.getBoundingClientRect();
    const seen = document.elementFromPoint(box.x + 8, box.y + box.height / 2);
    return box.left >= frame.left - 1 && (seen === th || th.contains(seen));
  }) || 'hidden';
}"""

ACTIVE_IN_VIEW = """(pane) => {
  const frame = pane.getBoundingClientRect();
  const box = pane.querySelector('th.player.active').getBoundingClientRect();
  return box.left >= frame.left && box.right <= frame.right + 1;
}"""


def sheet_at_every_size(page, artifacts, game, game_id):
    """The sheet with dice typed at every size it is played on, a phone's too: saved to look
    at, and checked for what must always hold."""
    for size, _language in screens(page, ("portrait", "landscape", "ten-inch", "phone"), ["fr"]):
        load(page, f"/games/{game_id}?dice=66653")
        page.locator(".box-btn.preview").first.wait_for()
        page.screenshot(path=artifacts / f"sheet-{game}-{size}.png", full_page=True)
        assert page_overflow(page) <= 0, size
        assert small_targets(page) == [], size
        pane = page.locator("#sheet-live")
        active_in_view = pane.evaluate(ACTIVE_IN_VIEW)
        assert active_in_view, ("the active player's columns are scrolled away", size)
        assert pane.evaluate(BOX_NAMES_IN_VIEW) is True, ("box names scroll out of sight", size)


def lived_in_long_game(seed, names, count, **rules):
    """A game of `names` `count` turns in, each in the best box the rules allow."""
    turns = lived_in_turns(GameState.start(Rules.from_dict(rules), names), count)
    return seed(names, turns, **rules)


# -- the bonus's pace -----------------------------------------------------------------------

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


def pace_marks(page, expected, name):
    """The pace marks say these words, at 16 px, each on one line."""
    marks = page.evaluate(PACE_MARKS)
    assert [mark["text"] for mark in marks] == expected, (name, marks)
    assert all(mark["size"] >= 16 and mark["lines"] == 1 for mark in marks), (name, marks)


# -- the turn panel -------------------------------------------------------------------------

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


def conseil_keeps_to_the_dice_line(page, seed, artifacts, preset, count, dice):
    """At 1024×768 the Conseil button sits on the dice field's line whatever the sheet
    beside it, and nothing of it takes a line of its own above the keypad: its throw choice
    waits on the Conseil's page, one tap away."""
    game_id = seed(PLAYERS[:count], preset=preset, dice=dice)
    for _size, language in screens(page, ["landscape"]):
        load(page, f"/games/{game_id}", language)
        name = f"{preset}-{count}-{dice}-{language}"
        boxes = page.evaluate(CONSEIL_LINE)
        dice_top, dice_bottom = boxes["dice"][:2]
        for part in ("conseil", "throws"):
            if boxes[part] is None:
                continue
            top, bottom = boxes[part][:2]
            # On the dice field's line: their middles within its height.
            assert dice_top <= (top + bottom) / 2 <= dice_bottom, (name, part, boxes)
        assert boxes["conseil"] is not None and boxes["throws"] is None, (name, boxes)
        keypad_top = boxes["keypad"][0]
        lowest = max(box[1] for box in boxes.values() if box and box is not boxes["keypad"])
        assert keypad_top >= lowest, (name, boxes)
        print(name, boxes)
        page.screenshot(path=artifacts / f"conseil-{name}.png")
        # The dice typed, Conseil, and the throw is chosen on its page in one tap.
        page.get_by_label({"fr": "Dés de Mag", "en": "Mag's dice"}[language]).fill("66653")
        page.locator('[name="advice"]').click()
        first = {"fr": "1er lancer", "en": "1st throw"}[language]
        page.get_by_role("link", name=first).click()
        expect(page.get_by_role("link", name=first)).to_have_attribute("aria-current", "page")


# What the field hides of its text, and whether its buttons still share its line.
FIELD = """(field) => {
  const line = [...field.parentElement.children].filter((el) => el.matches('input, .btn'))
    .filter((el) => el.offsetParent !== null).map((el) => {
      const box = el.getBoundingClientRect();
      return box.top + box.height / 2;
    });
  return [field.scrollWidth - field.clientWidth, new Set(line.map(Math.round)).size];
}"""

# A few players leave the whole sheet beside the panel; seven make it scroll sideways, with
# the panel's own layout.
FAMILY = ["Papa", "Maman", "Léa"]


def the_field_shows_every_die_typed(page, seed, names):
    """Five or six dice typed, every one in view, the field's buttons on its line."""
    games = {count: seed(names, dice=count) for count in (5, 6)}
    for size, language in screens(page, TABLET_SIZES):
        for count, dice in [(5, "55555"), (6, "666666")]:
            load(page, f"/games/{games[count]}", language)
            turn_ready(page)
            page.locator("#dice").fill(dice)
            turn_ready(page, dice)
            hidden, lines = page.locator("#dice").evaluate(FIELD)
            name = f"{len(names)} seats, {dice}, {size}, {language}"
            assert hidden <= 0, f"{hidden} px of « {dice} » hidden ({name})"
            assert lines == 1, f"the field's buttons wrapped under it ({name})"
            expect(page.locator("#dice-drawn .die-btn")).to_have_count(count)


TRAY_HOLDS_ITS_DICE = """(tray) => {
  const frame = tray.getBoundingClientRect();
  return tray.scrollWidth <= tray.clientWidth && [...tray.children].every((die) => {
    const box = die.getBoundingClientRect();
    return box.left >= frame.left && box.right <= frame.right
      && box.top >= frame.top && box.bottom <= frame.bottom;
  });
}"""

KEYPAD_BOX = """() => { const box = document.querySelector('.keypad').getBoundingClientRect();
                       return [box.x, box.y, box.width, box.height]; }"""


def the_keypad_stays_put_after_a_turn(page, seed, players):
    """The message of the turn just written does not push the keypad down."""
    for size, _language in screens(page, TABLET_SIZES, ["fr"]):
        load(page, f"/games/{seed(players)}")
        before = page.evaluate(KEYPAD_BOX)
        tap_dice(page, "66653")
        write_box(page, "Six")
        expect(page.locator(".flash-info")).to_have_text("Mag marque 18 en Six.")
        expect(page.locator(".flash-info")).to_be_visible()
        assert page.evaluate(KEYPAD_BOX) == before, (len(players), size)


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


def the_confirmation_bar_hides_no_total(page, seed, artifacts, players):
    game_id = seed(players, [("66662", "free:sixes")], vache=True)
    for size, _language in screens(page, TABLET_SIZES, ["fr"]):
        load(page, f"/games/{game_id}?dice=66612")
        page.locator('button.would-bar[aria-label^="Six, "]').click()
        expect(page.locator("#confirm-bar")).to_contain_text("Barrer la case Six ?")
        assert page.evaluate(HIDDEN_TOTALS) == [], (len(players), size)
        page.screenshot(path=artifacts / f"confirm-bar-{len(players)}-{size}.png")


# -- the end of a game ----------------------------------------------------------------------


def in_view(page, locator) -> bool:
    box = locator.bounding_box()
    size = page.viewport_size
    return (
        box is not None
        and box["y"] >= 0
        and box["x"] >= 0
        and box["y"] + box["height"] <= size["height"]
        and box["x"] + box["width"] <= size["width"]
    )


def the_finished_sheet_names_the_winner_in_view(page, seed, artifacts, players):
    """The winner named on the sheet itself, with every total, and the sheet's Total row,
    Revanche and the ranking's link in view without a scroll."""
    game_id = finished_game(seed, players)
    winner = seed.state(game_id).ranking()[0]
    for size, language in screens(page, TABLET_SIZES):
        load(page, f"/games/{game_id}", language)
        name = f"{players}-{size}-{language}"
        panel = page.locator(".end-panel")
        page.screenshot(path=artifacts / f"sheet-finished-{name}.png")
        headline = panel.locator(".winner")
        expect(headline).to_contain_text(winner.name)
        assert in_view(page, headline), f"winner's name out of view ({name})"
        first = panel.locator(".ranking li").first
        expect(first).to_contain_text(str(winner.total))
        assert in_view(page, first), name
        total_row = page.locator(".sheet tr.total").last
        assert in_view(page, total_row), f"Total row out of view ({name})"
        assert in_view(page, panel.locator("button[type=submit]")), name  # Revanche, one tap
        assert in_view(page, panel.locator(f'a[href="/games/{game_id}/ranking"]')), name


# -- one pass per shape ---------------------------------------------------------------------

# Each rule chip's background and border, as drawn.
RULE_CHIPS = """() => [...document.querySelectorAll('.rules-summary li')]
  .filter((chip) => chip.getClientRects().length)
  .map((chip) => { const style = getComputedStyle(chip);
    return [chip.textContent.trim(), style.backgroundColor, parseFloat(style.borderTopWidth)]; })"""


def test_one_seat(open_page, seed, artifacts):
    page = open_page("/")
    whole_sheets(page, seed, artifacts, [("classique", 1), ("triple", 1)])
    # Six dice in the tray, on a tablet and on a phone.
    game_id = seed(["Mag"], dice=6)
    for size, _language in screens(page, ["landscape", "phone"], ["fr"]):
        load(page, f"/games/{game_id}?dice=665321")
        tray = page.locator("#dice-drawn")
        assert tray.locator(".die-btn").count() == 6, size
        assert tray.evaluate("(tray) => tray.scrollWidth <= tray.clientWidth"), size
        assert small_targets(page) == [], size


def test_two_seats_the_sheet(open_page, seed, artifacts):
    page = open_page("/")
    whole_sheets(page, seed, artifacts, [("classique", 2), ("triple", 2)])

    # The rule chips, the rule set's too: outlined (no fill), not filled like buttons.
    game_id = seed(["Mag", "Alix"], vache=True)
    for _size, language in screens(page, ["landscape"]):
        load(page, f"/games/{game_id}", language)
        chips = page.evaluate(RULE_CHIPS)
        names = {"fr": ["Yams", "règle de la vache"], "en": ["Yams", "cow rule (la vache)"]}
        assert [chip[0] for chip in chips][:2] == names[language], chips
        assert all(background == "rgba(0, 0, 0, 0)" for _text, background, _b in chips), chips
        assert all(border >= 1 for _text, _background, border in chips), chips

    # The bonus's pace: ahead in one column, on pace in the other, a word with the number;
    # a tap on it says the whole sentence where the other answers to taps are.
    game_id = seed(["Mag", "Alix"], [("66662", "free:sixes"), ("11123", "free:ones")])
    # Mag: four sixes, 6 more than three (+6); Alix: three ones, exactly three of them.
    expected = {"fr": ["en avance de 6", "dans le rythme"], "en": ["6 ahead of pace", "on pace"]}
    sentence = {
        "fr": "Prime du haut : encore 39 points pour 35, en avance de 6 sur le rythme de "
        "trois de chaque face.",
        "en": "Upper bonus: 39 more points for 35, 6 ahead of the pace of three of each face.",
    }
    for size, language in screens(page, TABLET_SIZES):
        load(page, f"/games/{game_id}", language)
        pace_marks(page, expected[language], f"{size}-{language}")
        page.screenshot(path=artifacts / f"pace-{size}-{language}.png")
        page.locator(".sheet td[data-explain]").first.click()
        alert = page.locator("#confirm-bar").get_by_role("alert")
        expect(alert).to_have_text(sentence[language])

    sheet_at_every_size(page, artifacts, "2-players", lived_in_long_game(seed, PLAYERS[:2], 9))
    the_finished_sheet_names_the_winner_in_view(page, seed, artifacts, 2)


def test_two_seats_the_turn_panel(open_page, seed, artifacts):
    page = open_page("/")
    for preset, dice in [("classique", 5), ("triple", 5), ("classique", 6)]:
        conseil_keeps_to_the_dice_line(page, seed, artifacts, preset, 2, dice)

    # Six (or eight) dice typed in a five-dice game: all drawn inside the tray.
    game_id = seed(["Mag", "Alix"])
    for size, _language in screens(page, list(TABLETS), ["fr"]):
        for dice in ("665321", "66532144"):
            load(page, f"/games/{game_id}?dice={dice}")
            tray = page.locator("#dice-drawn")
            expect(tray.locator(".die-btn")).to_have_count(len(dice))
            assert tray.evaluate(TRAY_HOLDS_ITS_DICE), (size, dice)

    the_confirmation_bar_hides_no_total(page, seed, artifacts, ["Mag", "Alix"])
    the_keypad_stays_put_after_a_turn(page, seed, ["Mag", "Alix"])

    # The panel after a turn, « Oups » in it, and a refused tap: PNGs to look at.
    game_id = seed(["Papa", "Mag"], [("66662", "free:sixes")], vache=True)
    oups = {"fr": "Oups : annuler Six 24 de Papa", "en": "Oops: undo Sixes 24 by Papa"}
    refused = {"fr": "5 dés sont déjà là", "en": "All 5 dice are in"}
    for size, language in screens(page, TABLET_SIZES):
        load(page, f"/games/{game_id}?dice=66653", language)
        expect(page.locator("[data-undo]")).to_have_text(oups[language])
        page.screenshot(path=artifacts / f"table-oups-{size}-{language}.png")
        Finger(page).key("1")
        expect(page.locator("#confirm-bar").get_by_role("alert")).to_have_text(
            re.compile(refused[language])
        )
        page.screenshot(path=artifacts / f"table-sixth-die-{size}-{language}.png")


def test_three_seats(open_page, seed, artifacts):
    page = open_page("/")
    whole_sheets(page, seed, artifacts, [("classique", 3)])
    the_field_shows_every_die_typed(page, seed, FAMILY)

    # Triple for three: the columns are narrow and show « retard », a word; a tap says it all.
    turns = [("11112", "down:ones"), ("22234", "down:ones"), ("12345", "down:ones")]
    game_id = seed(PLAYERS[:3], turns, preset="triple")
    for size, _language in screens(page, TABLET_SIZES, ["fr"]):
        load(page, f"/games/{game_id}")
        pace_marks(page, ["avance", "retard", "retard"], size)
        page.locator(".sheet td[data-explain]").first.click()
        expect(page.locator("#confirm-bar").get_by_role("alert")).to_have_text(
            "Prime du haut : encore 59 points pour 35, en avance de 1 sur le rythme de trois "
            "de chaque face."
        )
        page.locator(".turn-banner").click()
        expect(page.locator("#confirm-bar")).to_be_hidden()

    the_finished_sheet_names_the_winner_in_view(page, seed, artifacts, 3)


def test_four_seats(open_page, seed, artifacts):
    page = open_page("/")
    whole_sheets(page, seed, artifacts, [("classique", 4)])
    # Four on one column fit: no hint.
    game_id = seed(PLAYERS[:4])
    for size, _language in screens(page, TABLET_SIZES, ["fr"]):
        load(page, f"/games/{game_id}")
        state = page.evaluate(SCROLL_STATE)
        assert not state["scrolls"] and not state["hint"], (size, state)
    # Four in Triple do not.
    wide_sheets_say_they_scroll(page, seed, artifacts, 4)
    conseil_keeps_to_the_dice_line(page, seed, artifacts, "classique", 4, 5)
    the_confirmation_bar_hides_no_total(page, seed, artifacts, ["Mag", "Alix", "Chloé", "Dédé"])
    the_finished_sheet_names_the_winner_in_view(page, seed, artifacts, 4)


def test_seven_seats(open_page, seed, artifacts):
    page = open_page("/")
    wide_sheets_say_they_scroll(page, seed, artifacts, 7)
    conseil_keeps_to_the_dice_line(page, seed, artifacts, "classique", 7, 5)
    the_field_shows_every_die_typed(page, seed, [*FAMILY, "Mag", "Alix", "Dédé", "Inès"])
    seven = ["Mag", "Alix", "Chloé", "Dédé", "Émilie", "Gaspard", "Hélène"]
    the_keypad_stays_put_after_a_turn(page, seed, seven)


def test_ten_seats(open_page, seed, artifacts):
    page = open_page("/")
    wide_sheets_say_they_scroll(page, seed, artifacts, 10)
    # Ten players in Triple with sec and la vache, 43 turns in.
    rules = {"preset": "triple", "vache": True, "columns": ["free", "down", "up", "sec"]}
    game_id = lived_in_long_game(seed, PLAYERS, 43, **rules)
    sheet_at_every_size(page, artifacts, "10-players-triple-sec", game_id)


def test_every_page_of_a_game(open_page, seed, artifacts):
    """Home, new game, the sheet with its menu and a confirmation, undo, the ranking, the
    finished sheet, ten players with no dice typed: each saved to look at, each checked for
    targets, names and contrast (the barred page without scripts: test_without_scripts.py)."""
    page = open_page("/", size=TABLETS["portrait"])
    check_page(page, artifacts, "home-portrait")
    page.get_by_role("link", name="Nouvelle partie").click()
    check_page(page, artifacts, "new-game-portrait")
    finished = seed(["Mag", "Alix"], [(dice, f"free:{box}") for pair in GAME for dice, box in pair])
    load(page, f"/games/{finished}")
    check_page(page, artifacts, "sheet-finished-portrait")

    turn_to(page, "landscape")
    game_id = seed(["Mag", "Alix"], [("66662", "free:sixes")], vache=True)
    load(page, f"/games/{game_id}?dice=66612")
    page.get_by_role("button", name="Six, barrée à 0").click()
    page.locator("[data-confirm]").wait_for()
    check_page(page, artifacts, "sheet-confirm-barred")
    page.get_by_role("button", name="Autre case").click()
    page.get_by_text("Menu", exact=True).click()
    check_page(page, artifacts, "sheet-menu")
    load(page, f"/games/{game_id}/undo")
    check_page(page, artifacts, "undo-page")
    load(page, f"/games/{finished}/ranking")
    check_page(page, artifacts, "ranking")

    turn_to(page, "ten-inch")
    rules = {"preset": "triple", "vache": True, "columns": ["free", "down", "up", "sec"]}
    load(page, f"/games/{lived_in_long_game(seed, PLAYERS, 43, **rules)}")
    check_page(page, artifacts, "sheet-10-players-no-dice")
