"""The Conseil in Chromium, for the rule sets a family plays: asked from the sheet, built,
then read as a tablet shows it, in French and English. Screenshots go to test-artifacts/.

The server's builds are stood in for by a worker that puts in place tables built once by
the run: a real build runs niced, in a niced session of its own, and on a machine whose
cores other work keeps busy it gets no CPU for minutes (the builds themselves are tested in
tests/advisor and tests/web/test_advice.py). The page still goes through the build: its bar,
then the advice it shows by itself."""

import functools
import shutil

import pytest

from scorekeeper.advisor.builds import Strategies
from scorekeeper.advisor.solver import SheetIndex, build_table
from scorekeeper.advisor.spreads import build_spreads
from scorekeeper.advisor.strategy import save_array
from scorekeeper.advisor.tables import cache_path, spreads_path
from scorekeeper.rules import Rules
from scorekeeper.web.conseil import ADVISOR_EXTENSION
from tests.browser.checks import low_contrast_texts, page_overflow
from tests.browser.tablets import load, screens
from tests.support.advisor_tables import tables_of
from tests.support.build_workers import tables_put_in_place
from tests.support.games import PLAIN_DICE

TABLET_SIZES = ("landscape", "portrait")
# (name, rules, players, dice): the dice typed on the sheet after the turns seeded.
GAMES = {
    "classique": ({}, ["Mag"], "66653"),
    "triple": ({"preset": "triple"}, ["Mag"], "66653"),
    "vache": ({"vache": True}, ["Mag", "Alix"], "66653"),
    "yams6": ({"dice": 6}, ["Mag"], "666532"),
}
# The stand-in build is a process started and a file copied; its page then asks how far
# the build went every second or so, and shows the advice.
BUILD_TIMEOUT_MS = 60_000

# The gap between the texts of each header and the next one, in pixels.
HEADER_GAPS = """() => [...document.querySelectorAll('.advice-page thead tr')].flatMap((row) => {
  const boxes = [...row.children].map((cell) => {
    const range = document.createRange();
    range.selectNodeContents(cell);
    return range.getBoundingClientRect();
  });
  return boxes.slice(1).map((box, i) => box.left - boxes[i].right);
})"""


@pytest.fixture(scope="module", autouse=True)
def stand_in_builds(live_app, shared_tables, tmp_path_factory):
    """Every rule set's tables, from the run's shared tables, then given by the server's
    builds; the server builds its own again once the module is done."""
    built = tmp_path_factory.mktemp("tables")
    for rules, _players, _dice in GAMES.values():
        for table in tables_of(Rules.from_dict(rules), shared_tables):
            shutil.copy(table, built)
    server_builds = live_app.extensions[ADVISOR_EXTENSION]
    live_app.extensions[ADVISOR_EXTENSION] = Strategies(
        live_app.instance_path, worker=functools.partial(tables_put_in_place, str(built))
    )
    yield
    live_app.extensions[ADVISOR_EXTENSION] = server_builds


@pytest.mark.parametrize("name", list(GAMES))
def test_the_conseil_says_what_to_do_then_shows_its_table(open_page, seed, artifacts, name):
    rules, players, dice = GAMES[name]
    turns = [("66664", "free:sixes")] if len(players) > 1 else []
    game_id = seed(players, turns, **rules)
    page = open_page("/")
    for size_name, lang in screens(page, TABLET_SIZES):
        load(page, f"/games/{game_id}", lang)
        page.fill("#dice", dice)
        page.click("button[name=advice], input[name=advice]")
        # The build's bar fills (the first time), then the page shows the advice by itself.
        page.wait_for_selector(".advice-verdict", timeout=BUILD_TIMEOUT_MS)
        # The page reloaded itself into the advice: measured once its stylesheet is in (the
        # verdict is there before; a header measured then had 4 px gaps, unstyled).
        page.wait_for_load_state("load")
        verdict = page.inner_text(".advice-verdict")
        assert verdict.startswith({"fr": "Mets ", "en": "Score "}[lang]), verdict
        # The sentence comes first, the table under it, and the line on how exact it is.
        assert (
            page.locator(".advice-verdict").bounding_box()["y"]
            < page.locator("table.advice").bounding_box()["y"]
        )
        quality = page.inner_text(".advice-quality")
        assert quality.startswith({"fr": ("Conseil ",), "en": ("Exact ", "Estimated ")}[lang])
        gaps = page.evaluate(HEADER_GAPS)
        assert gaps and min(gaps) >= 12, gaps
        assert page_overflow(page) <= 0
        assert low_contrast_texts(page) == []
        page.screenshot(
            path=str(artifacts / f"advice-{name}-{lang}-{size_name}.png"), full_page=True
        )

        # After the 1st throw: the dice to keep, in ascending order, in the sentence too.
        # A link: the next page, once loaded (the verdict of this one is still there until).
        with page.expect_navigation():
            page.click(".throw-choice a >> nth=0")
        verdict = page.inner_text(".advice-verdict")
        kept = [int(face) for face in verdict.split() if face.isdigit() and len(face) == 1]
        assert kept == sorted(kept), verdict
        assert min(page.evaluate(HEADER_GAPS)) >= 12
        page.screenshot(
            path=str(artifacts / f"advice-{name}-{lang}-{size_name}-keeps.png"), full_page=True
        )


# An end game of the free joker's rules (their own table files: the classique one stays the
# real, whole table): Alix with Chance left, Mag with Chance and Yams, level on 33 points.
END_GAME_RULES = {"joker": "free"}
OPEN_TO_MAG = ("chance", "yams")


@pytest.fixture
def end_game(live_app, seed):
    """The game, with the table and spreads of the boxes it has left in the app's instance
    folder (the end of a sheet: seconds, where the whole spreads take minutes)."""
    rules = Rules.from_dict(END_GAME_RULES)
    filled = [box for box in rules.boxes if box not in OPEN_TO_MAG]
    sheet = SheetIndex(rules)
    table = build_table(rules, filled=filled, sheet=sheet)
    spreads = build_spreads(rules, table, filled=filled)
    start = sheet.place(sheet.state({}))
    table[start], spreads[:, start] = 254.5, 0.0  # read as whole files
    save_array(table, cache_path(rules, live_app.instance_path))
    save_array(spreads, spreads_path(rules, live_app.instance_path))
    turns = [(PLAIN_DICE[box], f"free:{box}") for box in filled if box != "yams" for _ in "AM"]
    return seed(["Alix", "Mag"], turns + [(PLAIN_DICE["yams"], "free:yams")], **END_GAME_RULES)


def test_one_tap_ranks_the_keeps_to_win(open_page, end_game, artifacts):
    page = open_page("/")
    for size_name, lang in screens(page, TABLET_SIZES):
        words = {
            "fr": ("Garde 6 6 6", "Garde 5 6 6 6", "Pour gagner, garde plutôt 5 6 6 6 : "),
            "en": ("Keep 6 6 6", "Keep 5 6 6 6", "To win, keep 5 6 6 6 instead: "),
        }[lang]
        load(page, f"/games/{end_game}/advice?dice=66653&throw=1", lang)
        assert page.inner_text(".advice-verdict").startswith(words[0])
        assert page.inner_text(".advice-other").startswith(words[2])
        chances = page.locator("td.chance").all_inner_texts()
        assert len(chances) == 3 and all("%" in chance for chance in chances), chances
        assert (
            page.locator(".advice-chances")
            .inner_text()
            .startswith({"fr": "Chances de gagner exactes", "en": "Exact chances to win"}[lang])
        )
        assert page_overflow(page) <= 0 and low_contrast_texts(page) == []
        assert min(page.evaluate(HEADER_GAPS)) >= 12
        page.screenshot(
            path=str(artifacts / f"advice-to-win-{lang}-{size_name}-score.png"), full_page=True
        )
        # One tap: the keeps ranked by the chance to win, the throws keeping the mode.
        # A link (the page before it has a current mode too): the next page, once loaded.
        with page.expect_navigation():
            page.click(".mode-choice a >> nth=1")
        assert page.inner_text(".advice-verdict").startswith(words[1])
        assert (
            page.inner_text(".mode-choice a[aria-current=page]")
            == {
                "fr": "Pour gagner",
                "en": "To win",
            }[lang]
        )
        shares = [
            float(text.split("%")[0].replace(",", ".").strip("<> \u202f\xa0"))
            for text in page.locator("td.chance").all_inner_texts()
        ]
        assert shares == sorted(shares, reverse=True)
        assert page_overflow(page) <= 0 and low_contrast_texts(page) == []
        page.screenshot(
            path=str(artifacts / f"advice-to-win-{lang}-{size_name}-win.png"), full_page=True
        )
