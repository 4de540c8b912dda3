"""axe-core on the pages of the coach and of BG Stats, in every language of the app, at
tablet size, with what they show once games are counted: a player's chart of points left to the
Conseil with its trend and games still to count, the hall of fame's most precise player,
the export page's BG Stats file. The same check as tests/browser/test_accessibility.py, on
these pages in these states."""

import pytest
from axe_playwright_python.sync_playwright import Axe

from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.coach import SeatFigure, record_coach_figures
from scorekeeper.store.games import game_version
from scorekeeper.store.players import list_players
from scorekeeper.web.store import STORE_EXTENSION
from tests.browser.checks import violations
from tests.browser.tablets import ALL_LANGUAGES, TABLETS
from tests.support.games import GAME


@pytest.fixture(scope="module")
def axe():
    return Axe()


@pytest.fixture
def pages(seed, live_app):
    """Three finished games counted by the coach, a fourth still to count."""
    store = live_app.extensions[STORE_EXTENSION]
    turns = [(dice, f"free:{box}") for pair in GAME for dice, box in pair]
    games = [seed(["Mag", "Alix"], turns) for _ in range(4)]
    for game_id, (mag, alix) in zip(games, ((12.5, 3.0), (8.25, 4.5), (5.0, 2.0)), strict=False):
        version = game_version(store, game_id, household=HOME_HOUSEHOLD)
        figures = [SeatFigure(mag, 13, 8), SeatFigure(alix, 13, 11)]
        assert record_coach_figures(store, game_id, version, figures, household=HOME_HOUSEHOLD)
    mag = next(p for p in list_players(store, household=HOME_HOUSEHOLD) if p.name == "Mag")
    return {
        "player-coached": f"/players/{mag.id}",
        "hall-of-fame-coached": "/hall-of-fame",
        "import-export-bgstats": "/import-export",
    }


@pytest.mark.parametrize("language", ALL_LANGUAGES)
def test_the_coach_and_bg_stats_pages_have_no_wcag_violation(open_page, pages, axe, language):
    page = open_page("/", size=TABLETS["landscape"])
    page.context.add_cookies([{"name": "lang", "value": language, "url": page.url}])
    found = {}
    for name, path in pages.items():
        page.goto(path)
        assert page.locator("html").get_attribute("lang") == language
        found[name] = violations(axe, page)
    page.goto(pages["player-coached"])
    assert page.locator("#coach-chart-title").count() == 1
    assert (
        page.locator("svg[aria-labelledby='coach-chart-title coach-chart-desc'] circle").count()
        >= 3
    )
    assert {name: problems for name, problems in found.items() if problems} == {}
