"""The Conseil's tables built before they are asked for (ADVISOR_TABLES_AHEAD): a new game's
missing ones queued as it is created, at home and hosted (where each costs a build of the
household's), and a build under way telling the time left in words, French and English.

The builds are recorded here rather than run: tests/advisor/test_builds.py runs them, and
tests/test_serve.py a real server's."""

import re
import time
from html import unescape

import pytest

from scorekeeper.advisor.builds import Progress, Strategies
from scorekeeper.advisor.tables import cache_path, spreads_path
from scorekeeper.rules import Rules
from scorekeeper.web.conseil import ADVISOR_EXTENSION
from tests.support.apps import HOSTED, app_on
from tests.support.households import family, new_game
from tests.support.table import Table


class Recorded(Strategies):
    """No table, and every build asked for recorded instead of run."""

    def __init__(self, instance_path):
        super().__init__(instance_path)
        self.asked = []

    def get(self, rules):
        return None

    def build(self, rules, *, household, with_chances=True, ahead=False):
        self.asked.append((rules, with_chances, ahead))
        return True


def _recorded(app) -> Recorded:
    strategies = app.extensions[ADVISOR_EXTENSION] = Recorded(app.instance_path)
    return strategies


@pytest.fixture
def ahead_app(instance_path, database_url):
    with app_on(instance_path, database_url, ADVISOR_TABLES_AHEAD=True) as app:
        yield app


@pytest.mark.parametrize(("names", "with_chances"), [(["Mag"], False), (["Mag", "Alix"], True)])
def test_a_new_game_queues_its_missing_tables_as_it_is_created(ahead_app, names, with_chances):
    strategies = _recorded(ahead_app)
    table = Table(ahead_app.test_client())
    table.new_game(names, vache="y")
    # La vache plays on the classique table; the chances to win need its spreads too.
    assert strategies.asked == [(Rules(vache=True), with_chances, True)]
    table.new_game(names, preset="yatzy")
    assert strategies.asked[1:] == [(Rules.from_dict({"preset": "yatzy"}), with_chances, True)]


def test_a_new_game_queues_nothing_when_its_tables_are_saved(ahead_app):
    strategies = _recorded(ahead_app)
    cache_path(Rules(), ahead_app.instance_path).write_bytes(b"")
    Table(ahead_app.test_client()).new_game(["Mag"])
    assert strategies.asked == []
    # Two players want the spreads as well.
    Table(ahead_app.test_client()).new_game(["Mag", "Alix"])
    assert strategies.asked == [(Rules(), True, True)]
    spreads_path(Rules(), ahead_app.instance_path).write_bytes(b"")
    Table(ahead_app.test_client()).new_game(["Mag", "Alix"])
    assert len(strategies.asked) == 1


def test_nothing_is_built_ahead_when_the_setting_says_not_to(app, table):
    assert app.config["ADVISOR_TABLES_AHEAD"] is False
    strategies = _recorded(app)
    table.new_game(["Mag", "Alix"])
    assert strategies.asked == []
    # The Conseil asked still queues its build, as before.
    game_id = table.new_game(["Mag"], preset="yatzy")
    assert table.client.get(f"/games/{game_id}/advice?dice=66653").status_code == 503
    assert strategies.asked == [(Rules.from_dict({"preset": "yatzy"}), False, False)]


def test_hosted_a_game_built_ahead_costs_a_build_and_past_them_is_still_created(
    instance_path, database_url
):
    settings = {**HOSTED, "QUOTA_ADVISOR_BUILDS_PER_DAY": 1, "ADVISOR_TABLES_AHEAD": True}
    with app_on(instance_path, database_url, **settings) as hosted:
        strategies = _recorded(hosted)
        client = family(hosted)
        assert new_game(client).status_code == 303
        # The form as new_game posts it: no checkbox ticked, the Yams bonus among them.
        assert strategies.asked == [(Rules(yams_bonus=False), False, True)]
        # The household's one build is spent: the next game is created, nothing built.
        strategies.asked.clear()
        assert new_game(client, "Alix").status_code == 303
        assert strategies.asked == []


@pytest.mark.parametrize(
    ("lang", "building", "waiting", "under_way", "soon"),
    [
        (
            "fr",
            "Le conseil se prépare",
            "Temps restant : en cours d'estimation.",
            "Encore environ 3 minutes.",
            "Encore quelques secondes.",
        ),
        (
            "en",
            "The advice is being prepared",
            "Time left: being estimated.",
            "About 3 minutes left.",
            "A few seconds left.",
        ),
    ],
)
def test_a_table_building_says_the_time_left_in_words(
    app, table, lang, building, waiting, under_way, soon
):
    strategies = _recorded(app)
    table.client.set_cookie("lang", lang)
    game_id = table.new_game(["Mag", "Alix"])
    rules = Rules()

    def page():
        response = table.client.get(f"/games/{game_id}/advice?dice=66653")
        assert response.status_code == 503
        text = unescape(response.get_data(as_text=True))
        assert building in text
        return re.search(r'<p class="advice-time-left">(.*?)</p>', text).group(1)

    # Queued behind another build: its time is not known yet.
    strategies.building[rules] = None
    assert page() == waiting
    # A quarter done in a minute: three more.
    strategies.building[rules] = building_progress = Progress()
    strategies.started[rules] = time.monotonic() - 60
    building_progress.value = 0.25
    assert page() == under_way
    progress = table.client.get(f"/games/{game_id}/advice/progress").json
    assert progress == {"ready": False, "progress": 0.25, "time_left": under_way}
    building_progress.value = 0.99
    assert page() == soon
    building_progress.discard()
