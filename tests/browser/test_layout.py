"""The sheet at the sizes it is played on: screenshots to look at, and what must hold in each."""

import pytest

from scorekeeper.store import HOME_HOUSEHOLD
from tests.browser.checks import low_contrast_texts, page_overflow, small_targets, unnamed_controls
from tests.browser.games import PLAYERS, lived_in_turns
from tests.browser.tablets import PHONE, TABLETS
from tests.support.games import GAME


@pytest.fixture(scope="module")
def games(live_app):
    """Two games, set up once: two players in classique, and ten in Triple + sec + la vache."""
    from scorekeeper.rules import GameState, Rules
    from scorekeeper.store.play import play_turn, start_game
    from scorekeeper.web.store import STORE_EXTENSION

    store = live_app.extensions[STORE_EXTENSION]
    made = {}
    for name, players, options, count in [
        ("2-players", PLAYERS[:2], {}, 9),
        (
            "10-players-triple-sec",
            PLAYERS,
            {"preset": "triple", "vache": True, "columns": ["free", "down", "up", "sec"]},
            43,
        ),
    ]:
        rules = Rules.from_dict(options)
        game_id = start_game(store, rules, players, household=HOME_HOUSEHOLD)
        turns = lived_in_turns(GameState.start(rules, players), count)
        for seq, (dice, target) in enumerate(turns):
            column, _sep, box = target.partition(":")
            play_turn(store, game_id, seq, column, box, dice, household=HOME_HOUSEHOLD)
        made[name] = game_id
    return made


SIZES = {**TABLETS, "phone": PHONE}


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


@pytest.mark.parametrize("game", ["2-players", "10-players-triple-sec"])
@pytest.mark.parametrize("size", list(SIZES))
def test_sheet_at_every_size(open_page, games, artifacts, game, size):
    """The sheet with dice typed: saved to look at, and checked for what must always hold."""
    page = open_page(f"/games/{games[game]}?dice=66653", size=SIZES[size])
    page.locator(".box-btn.preview").first.wait_for()
    page.screenshot(path=artifacts / f"sheet-{game}-{size}.png", full_page=True)
    assert page_overflow(page) <= 0
    assert small_targets(page) == []
    pane = page.locator("#sheet-live")
    assert pane.evaluate(ACTIVE_IN_VIEW), "the active player's columns are scrolled away"
    assert pane.evaluate(BOX_NAMES_IN_VIEW) is True, "box names scroll out of sight"


@pytest.mark.parametrize("size", [TABLETS["landscape"], PHONE])
def test_six_dice_fit_the_tray(open_page, seed, size):
    page = open_page(f"/games/{seed(['Mag'], dice=6)}?dice=665321", size=size)
    tray = page.locator("#dice-drawn")
    assert tray.locator(".die-btn").count() == 6
    assert tray.evaluate("(tray) => tray.scrollWidth <= tray.clientWidth")
    assert small_targets(page) == []


def check_page(page, artifacts, name):
    page.screenshot(path=artifacts / f"{name}.png", full_page=True)
    assert page_overflow(page) <= 0
    assert small_targets(page) == []
    assert unnamed_controls(page) == []
    assert low_contrast_texts(page) == []


def test_every_page_of_a_game(open_page, seed, artifacts, games):
    """Home, new game, the sheet with its menu and a confirmation, the barred page, undo,
    the ranking: each saved to look at, each checked for targets, names and contrast."""
    page = open_page("/", size=TABLETS["portrait"])
    check_page(page, artifacts, "home-portrait")
    page.get_by_role("link", name="Nouvelle partie").click()
    check_page(page, artifacts, "new-game-portrait")

    game_id = seed(["Mag", "Alix"], [("66662", "free:sixes")], vache=True)
    page = open_page(f"/games/{game_id}?dice=66612")
    page.get_by_role("button", name="Six, barrée à 0").click()
    page.locator("[data-confirm]").wait_for()
    check_page(page, artifacts, "sheet-confirm-barred")
    page.get_by_role("button", name="Autre case").click()
    page.get_by_text("Menu", exact=True).click()
    check_page(page, artifacts, "sheet-menu")

    page = open_page(f"/games/{game_id}?dice=66612", js=False)
    page.get_by_role("button", name="Six, barrée à 0").click()
    check_page(page, artifacts, "confirm-barred-page")
    page = open_page(f"/games/{game_id}/undo")
    check_page(page, artifacts, "undo-page")

    finished = seed(["Mag", "Alix"], [(dice, f"free:{box}") for pair in GAME for dice, box in pair])
    page = open_page(f"/games/{finished}/ranking")
    check_page(page, artifacts, "ranking")
    page = open_page(f"/games/{finished}", size=TABLETS["portrait"])
    check_page(page, artifacts, "sheet-finished-portrait")
    page = open_page(f"/games/{games['10-players-triple-sec']}", size=TABLETS["ten-inch"])
    check_page(page, artifacts, "sheet-10-players-no-dice")
