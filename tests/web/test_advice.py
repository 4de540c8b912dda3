"""The "Conseil" page and the review's précision, on the real optimal-strategy table.

The table is built once for the whole session (about 15 s): these tests check the advisor
the web shows against the published start value of the classique game.
"""

import shutil
import threading

import pytest

from scorekeeper.advisor import cache_path, load_or_build
from scorekeeper.rules import BOX_LABELS, Rules
from scorekeeper.store.play import load
from scorekeeper.web import advice as advice_module


@pytest.fixture(scope="session")
def classique_table(tmp_path_factory):
    folder = tmp_path_factory.mktemp("advisor")
    strategy = load_or_build(Rules(), folder)
    assert round(strategy.start_value, 4) == 254.5877
    return cache_path(Rules(), folder)


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
    state = load(app.extensions["scorekeeper.store"], game_id)[1]
    ranked = load_or_build(Rules(), app.instance_path).advise(state, "66653")
    shown = [row.split("</th>")[0].strip() for row in page.split('<th scope="row">')[1:]]
    assert shown == [BOX_LABELS[item.box] for item in ranked]
    assert f"<td>{ranked[0].expected_total:.1f}</td>" in page
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


def test_advice_says_when_the_table_is_being_built(table, app, monkeypatch):
    started, release = threading.Event(), threading.Event()

    def slow_build(rules, folder):
        started.set()
        release.wait(10)
        raise RuntimeError("stopped by the test")

    monkeypatch.setattr(advice_module, "load_or_build", slow_build)
    game_id = table.new_game(["Mag"])
    response = table.client.get(f"/games/{game_id}/advice?dice=66653")
    assert response.status_code == 503
    assert "Le conseil se prépare" in response.get_data(as_text=True)
    assert started.wait(10)
    release.set()


def test_review_shows_precision_per_player(table, app, with_table):
    game_id = table.new_game(["Mag"])
    turns = [("66662", "sixes"), ("55553", "fives"), ("44441", "fours"), ("33361", "threes"),
             ("22216", "twos"), ("11156", "ones"), ("66655", "three_kind"),
             ("55552", "four_kind"), ("22233", "full_house"), ("12346", "small_straight"),
             ("23456", "large_straight"), ("44444", "yams"), ("66543", "chance")]
    for seq, (dice, box) in enumerate(turns):
        table.play(game_id, seq, dice, f"free:{box}")
    page = table.client.get(f"/games/{game_id}/review").get_data(as_text=True)
    assert "Précision" in page and "meilleur choix" in page
    assert "Points laissés" in page


def test_review_counts_points_given_away(table, app, with_table):
    game_id = table.new_game(["Mag"])
    # Five sixes written in Chance while the Yams box is free gives away a lot.
    table.play(game_id, 0, "66666", "free:chance")
    for seq, box in enumerate(["ones", "twos", "threes", "fours", "fives", "sixes",
                               "three_kind", "four_kind", "full_house", "small_straight",
                               "large_straight", "yams"], start=1):
        table.play(game_id, seq, "12346", f"free:{box}", confirm=True)
    page = table.client.get(f"/games/{game_id}/review").get_data(as_text=True)
    assert "mieux : Yams" in page


def test_the_sheet_asks_for_advice_only_when_the_rules_are_covered(table):
    game_id = table.new_game(["Mag"])
    assert 'name="advice"' in table.client.get(f"/games/{game_id}").get_data(as_text=True)
    response = table.entry_form(game_id, 0, dice="66653", advice="Conseil")
    assert response.status_code == 303
    assert response.headers["Location"].endswith(f"/games/{game_id}/advice?dice=66653")
    triple = table.new_game(["Mag"], preset="triple")
    assert 'name="advice"' not in table.client.get(f"/games/{triple}").get_data(as_text=True)


def test_review_without_the_table_says_how_to_get_it_and_builds_nothing(table, app,
                                                                         monkeypatch):
    def no_build(rules, folder):
        raise AssertionError("a review must not start a build")

    monkeypatch.setattr(advice_module, "load_or_build", no_build)
    game_id = table.new_game(["Mag"])
    for seq, box in enumerate(Rules().boxes):
        table.play(game_id, seq, "12346", f"free:{box}", confirm=True)
    page = table.client.get(f"/games/{game_id}/review").get_data(as_text=True)
    assert "une fois la table de conseil calculée" in page
    assert not app.extensions[advice_module.ADVISOR_EXTENSION].building
