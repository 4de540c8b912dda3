"""axe-core on every page, in French and in English, at tablet size: no WCAG 2.1 A or AA
violation. axe-playwright-python ships axe-core; nothing is fetched from the network."""

import pytest
from axe_playwright_python.sync_playwright import Axe

from scorekeeper.store import HOME_HOUSEHOLD
from tests.browser.checks import violations
from tests.browser.tablets import ALL_LANGUAGES, TABLETS
from tests.support.games import GAME


@pytest.fixture(scope="module")
def axe():
    return Axe()


@pytest.fixture
def pages(seed, live_app):
    """Every page of the app, on games in progress and finished."""
    from scorekeeper.store.players import list_players
    from scorekeeper.web.store import STORE_EXTENSION

    finished = seed(["Mag", "Alix"], [(dice, f"free:{box}") for pair in GAME for dice, box in pair])
    playing = seed(["Mag", "Alix"], [("66662", "free:sixes")], vache=True)
    triple = seed(["Mag"], [("66666", "free:yams")], preset="triple")
    player = list_players(live_app.extensions[STORE_EXTENSION], household=HOME_HOUSEHOLD)[0].id
    return {
        "home": "/",
        "new-game": "/games/new",
        "print": "/print",
        "players": "/players",
        "player": f"/players/{player}",
        "rename": f"/players/{player}/rename",
        "merge": f"/players/{player}/merge",
        "hall-of-fame": "/hall-of-fame",
        "import-export": "/import-export",
        "sheet": f"/games/{playing}",
        "sheet-dice": f"/games/{playing}?dice=66653",
        "sheet-triple": f"/games/{triple}?dice=44444",
        "undo": f"/games/{playing}/undo",
        "abandon": f"/games/{playing}/abandon",
        "delete": f"/games/{playing}/delete",
        "watch": f"/games/{playing}/watch",
        "advice": f"/games/{playing}/advice?dice=66653",
        "finished": f"/games/{finished}",
        "watch-finished": f"/games/{finished}/watch",
        "ranking": f"/games/{finished}/ranking",
        "review": f"/games/{finished}/review",
        "missing": "/games/99999",
    }


@pytest.mark.parametrize("language", ALL_LANGUAGES)
def test_every_page_has_no_wcag_violation(open_page, pages, axe, language):
    """Each page as it loads, then the sheet's states: a box to confirm, a refusal, the menu."""
    page = open_page("/", size=TABLETS["landscape"])
    page.context.add_cookies([{"name": "lang", "value": language, "url": page.url}])
    found = {}
    for name, path in pages.items():
        page.goto(path)
        assert page.locator("html").get_attribute("lang") == language
        if problems := violations(axe, page):
            found[name] = problems
    page.goto(pages["sheet-dice"])
    page.locator('button[name="target"][value="free:yams"]').click()
    page.locator("[data-confirm]").wait_for()
    found["sheet-confirm"] = violations(axe, page)
    page.goto(pages["sheet-triple"])
    page.locator('td[data-box="free:yams"]').click()
    page.locator(".refusal").wait_for()
    found["sheet-refusal"] = violations(axe, page)
    page.locator(".head-menu:not(.language) summary").click()
    found["sheet-menu"] = violations(axe, page)
    page.locator(".head-menu.language summary").click()
    found["sheet-languages"] = violations(axe, page)
    page.set_viewport_size(dict(zip(("width", "height"), TABLETS["portrait"], strict=True)))
    page.goto(pages["sheet-dice"])
    found["sheet-portrait"] = violations(axe, page)
    assert {name: problems for name, problems in found.items() if problems} == {}
