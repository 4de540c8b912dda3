"""The "Conseil" page and the review's précision, on the real optimal-strategy table.

The table is built once for the whole session (3 to 6 s on a quiet core), by the server's
own worker process: these tests check the advisor the web shows against the published start
value of the classique game.
"""

import re
import shutil
import time
from collections import Counter
from itertools import product
from pathlib import Path

import pytest

from scorekeeper.advisor.builds import Strategies
from scorekeeper.advisor.strategy import load_or_build
from scorekeeper.advisor.tables import cache_path
from scorekeeper.advisor.turn import ROLLS
from scorekeeper.rules import BOX_LABELS, GameState, Rules
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.play import load
from scorekeeper.web import advice as advice_module

RELEASE = "release-the-build"


@pytest.fixture(scope="session")
def classique_table(tmp_path_factory):
    folder = tmp_path_factory.mktemp("advisor")
    strategies = Strategies(str(folder))
    assert strategies.get(Rules()) is None and strategies.build(Rules(), household=1)
    deadline = time.monotonic() + 300
    while strategies.progress(Rules()) is not None:
        assert time.monotonic() < deadline, "the table was not built"
        time.sleep(0.2)
    strategy = strategies.get(Rules())
    assert round(strategy.start_value, 4) == 254.5877
    return cache_path(Rules(), folder)


def held_worker(rules, instance_dir, done):
    """Runs in the worker process: a build stuck half-way until the test releases it, then
    the session's real table put in place."""
    done.value = 0.5
    release = Path(instance_dir) / RELEASE
    while not release.exists():
        time.sleep(0.05)
    shutil.copy(release.read_text(), cache_path(rules, instance_dir))


@pytest.fixture
def with_table(classique_table, app):
    shutil.copy(classique_table, cache_path(Rules(), app.instance_path))


def test_advice_ranks_every_allowed_box(table, app, with_table):
    game_id = table.new_game(["Mag", "Alix"])
    table.play(game_id, 0, "66662", "free:sixes")
    response = table.client.get(f"/games/{game_id}/advice?dice=66653")
    page = response.get_data(as_text=True)
    assert response.status_code == 200
    assert "Pour Alix, avec les dés 66653" in page
    assert page.count("<tr") == 1 + 13  # the header row and every free box
    state = load(app.extensions["scorekeeper.store"], game_id, household=HOME_HOUSEHOLD)[1]
    ranked = load_or_build(Rules(), app.instance_path).advise(state, "66653")
    shown = [row.split("</th>")[0].strip() for row in page.split('<th scope="row">')[1:]]
    assert shown == [BOX_LABELS[item.box] for item in ranked]
    assert f"<td>{ranked[0].expected_total:.1f}</td>".replace(".", ",") in page
    totals = [item.expected_total for item in ranked]
    assert totals == sorted(totals, reverse=True) and totals[0] > totals[-1]


def test_advice_refuses_bad_dice_and_uncovered_rules(table, with_table):
    game_id = table.new_game(["Mag"])
    response = table.client.get(f"/games/{game_id}/advice?dice=6665")
    assert response.status_code == 422 and "Il faut 5 dés" in response.get_data(as_text=True)
    game_id = table.new_game(["Mag"], vache="y")
    response = table.client.get(f"/games/{game_id}/advice?dice=66653")
    assert response.status_code == 422
    assert "il n&#39;a pas de réponse exacte" in response.get_data(as_text=True)
    assert table.client.get("/games/999/advice?dice=66653").status_code == 404


def test_advice_shows_the_build_filling_then_the_advice(table, app, classique_table):
    app.extensions[advice_module.ADVISOR_EXTENSION] = Strategies(
        app.instance_path, worker=held_worker
    )
    game_id = table.new_game(["Mag"])
    response = table.client.get(f"/games/{game_id}/advice?dice=66653&throw=1")
    page = response.get_data(as_text=True)
    assert response.status_code == 503 and response.headers["Retry-After"] == "2"
    assert "Le conseil se prépare" in page and "<progress" in page
    assert '<noscript><meta http-equiv="refresh" content="2"></noscript>' in page
    assert "js/advice.js" in page
    deadline = time.monotonic() + 60
    while (progress := table.client.get(f"/games/{game_id}/advice/progress").json)[
        "progress"
    ] != 0.5:
        assert time.monotonic() < deadline and not progress["ready"]
        time.sleep(0.05)
    page = table.client.get(f"/games/{game_id}/advice?dice=66653").get_data(as_text=True)
    assert 'value="50"' in page and "50 %" in page
    aside = Path(app.instance_path) / "release.tmp"  # renamed: the worker reads it whole
    aside.write_text(str(classique_table))
    aside.replace(Path(app.instance_path) / RELEASE)
    while not (progress := table.client.get(f"/games/{game_id}/advice/progress").json)["ready"]:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert progress["progress"] == 1.0
    response = table.client.get(f"/games/{game_id}/advice?dice=66653&throw=1")
    assert response.status_code == 200 and "garder 6 6 6" in response.get_data(as_text=True)


def test_advice_after_the_first_throw_lists_the_best_keeps(table, app, with_table):
    game_id = table.new_game(["Mag"])
    response = table.client.get(f"/games/{game_id}/advice?dice=52551&throw=1")
    page = response.get_data(as_text=True)
    assert response.status_code == 200
    state = load(app.extensions["scorekeeper.store"], game_id, household=HOME_HOUSEHOLD)[1]
    keeps = load_or_build(Rules(), app.instance_path).advise_keeps(state, "52551", 1)
    assert keeps[0].keep == (5, 5, 5)
    shown = re.findall(r"<li[^>]*>([^<:]*) : ([\d,]+)</li>", page)
    assert shown == [
        (
            ("garder " + " ".join(map(str, item.keep))) if item.keep else "tout relancer",
            f"{item.expected_total:.1f}".replace(".", ","),
        )
        for item in keeps[:3]
    ]
    # The three fives stand out in the tray, in the order typed; the 2 and the 1 do not.
    marks = re.findall(r'<span class="advice-die( kept)?"><span class="die face-(\d)', page)
    assert marks == [(" kept", "5"), ("", "2"), (" kept", "5"), (" kept", "5"), ("", "1")]
    assert 'aria-current="page">1er lancer' in page


def test_advice_in_english_after_the_second_throw(table, app, with_table):
    game_id = table.new_game(["Mag"])
    page = table.client.get(
        f"/games/{game_id}/advice?dice=66666&throw=2", headers={"Accept-Language": "en"}
    ).get_data(as_text=True)
    assert "keep all five and score" in page and "2nd throw" in page


def test_best_first_keep_of_a_fresh_sheet_averages_to_the_published_value(classique_table):
    # The keep advice and the solver agree on the whole first turn: averaged over every
    # first roll, the best keep's total is the table's value of a fresh sheet.
    strategy = load_or_build(Rules(), classique_table.parent)
    state = GameState.start(Rules(), ["Solo"])
    chances = Counter(tuple(sorted(throw)) for throw in product(range(1, 7), repeat=5))
    average = (
        sum(
            chances[roll] * strategy.advise_keeps(state, roll, 1)[0].expected_total
            for roll in ROLLS
        )
        / 6**5
    )
    assert average == pytest.approx(strategy.start_value, abs=1e-9)
    assert round(average, 4) == 254.5877


def test_advice_refuses_a_bad_throw(table, with_table):
    game_id = table.new_game(["Mag"])
    response = table.client.get(f"/games/{game_id}/advice?dice=66653&throw=4")
    assert response.status_code == 422
    assert "n&#39;est pas un lancer : choisissez 1, 2 ou 3" in response.get_data(as_text=True)


def test_review_shows_precision_per_player(table, app, with_table):
    game_id = table.new_game(["Mag"])
    turns = [
        ("66662", "sixes"),
        ("55553", "fives"),
        ("44441", "fours"),
        ("33361", "threes"),
        ("22216", "twos"),
        ("11156", "ones"),
        ("66655", "three_kind"),
        ("55552", "four_kind"),
        ("22233", "full_house"),
        ("12346", "small_straight"),
        ("23456", "large_straight"),
        ("44444", "yams"),
        ("66543", "chance"),
    ]
    for seq, (dice, box) in enumerate(turns):
        table.play(game_id, seq, dice, f"free:{box}")
    page = table.client.get(f"/games/{game_id}/review").get_data(as_text=True)
    assert "Précision" in page and "meilleur choix" in page
    assert "Points laissés" in page


def test_review_counts_points_given_away(table, app, with_table):
    game_id = table.new_game(["Mag"])
    # Five sixes written in Chance while the Yams box is free gives away a lot.
    table.play(game_id, 0, "66666", "free:chance")
    for seq, box in enumerate(
        [
            "ones",
            "twos",
            "threes",
            "fours",
            "fives",
            "sixes",
            "three_kind",
            "four_kind",
            "full_house",
            "small_straight",
            "large_straight",
            "yams",
        ],
        start=1,
    ):
        table.play(game_id, seq, "12346", f"free:{box}", confirm=True)
    page = table.client.get(f"/games/{game_id}/review").get_data(as_text=True)
    assert "mieux : Yams" in page


def test_the_sheet_asks_for_advice_only_when_the_rules_are_covered(table):
    game_id = table.new_game(["Mag"])
    sheet = table.client.get(f"/games/{game_id}").get_data(as_text=True)
    assert 'name="advice"' in sheet
    # The throw the dice come from: one tap, the 3rd unless changed.
    assert re.findall(r'name="throw" value="(\d)"( checked)?', sheet) == [
        ("1", ""),
        ("2", ""),
        ("3", " checked"),
    ]
    response = table.entry_form(game_id, 0, dice="66653", advice="Conseil")
    assert response.status_code == 303
    assert response.headers["Location"].endswith(f"/games/{game_id}/advice?dice=66653")
    response = table.entry_form(game_id, 0, dice="66653", throw="2", advice="Conseil")
    assert response.headers["Location"].endswith(f"/games/{game_id}/advice?dice=66653&throw=2")
    triple = table.new_game(["Mag"], preset="triple")
    yatzy = table.new_game(["Mag"], preset="yatzy")
    assert 'name="advice"' in table.client.get(f"/games/{yatzy}").get_data(as_text=True)
    triple_sheet = table.client.get(f"/games/{triple}").get_data(as_text=True)
    assert 'name="advice"' not in triple_sheet and 'name="throw"' not in triple_sheet


def test_review_without_the_table_says_how_to_get_it_and_builds_nothing(table, app):
    game_id = table.new_game(["Mag"])
    for seq, box in enumerate(Rules().boxes):
        table.play(game_id, seq, "12346", f"free:{box}", confirm=True)
    page = table.client.get(f"/games/{game_id}/review").get_data(as_text=True)
    assert "une fois la table de conseil calculée" in page
    assert not app.extensions[advice_module.ADVISOR_EXTENSION].building
