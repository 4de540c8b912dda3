"""Game review: a finished game replayed entry by entry; abandoning and deleting games."""

import re

import pytest

from scorekeeper.app import STORE_EXTENSION
from scorekeeper.play import load
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.games import load_game
from tests.support.forms import page, page_text, post, totals_shown
from tests.support.games import duo_document, every_row, import_documents, solo_document


@pytest.fixture
def store(app):
    return app.extensions[STORE_EXTENSION]


@pytest.fixture
def duel(app):
    return import_documents(app.extensions[STORE_EXTENSION], duo_document("Mag", "Alix"))[0]


def test_a_finished_game_shows_its_ranking_its_log_and_links_to_its_pdf(client, duel):
    html = page(client, f"/games/{duel}/review")

    assert "terminée le" in html and "Classement" in html
    assert "Après 26 entrées sur 26" in html
    assert totals_shown(html) == [319, 319]
    assert f'href="/games/{duel}/sheet.pdf?paper=a4"' in html
    assert f'href="/games/{duel}/sheet.pdf?paper=letter"' in html
    assert f'href="/games/{duel}/game.json"' in html
    assert html.count(f'href="/games/{duel}/review?step=') >= 26
    assert "Mag · 6 6 6 6 6 → Yams : 50" in html


def test_each_step_shows_the_sheet_as_it_was(client, duel):
    html = page(client, f"/games/{duel}/review?step=3")

    assert "Après 3 entrées sur 26" in html
    assert "Entrée 3 : Mag · 2 2 2 2 1 → Deux : 8" in html
    assert totals_shown(html) == [12, 4]
    assert f'href="/games/{duel}/review?step=2"' in html
    assert f'href="/games/{duel}/review?step=4"' in html
    assert "Classement" not in html

    start = page(client, f"/games/{duel}/review?step=0")
    assert totals_shown(start) == [0, 0] and "Entrée précédente" not in start


@pytest.mark.parametrize(
    ("step", "message"),
    [
        ("27", "Cette partie a 26 entrées : l'étape « 27 » n'existe pas."),
        ("-1", "l'étape « -1 » n'existe pas."),
        ("trois", "l'étape « trois » n'existe pas."),
        ("", "l'étape «  » n'existe pas."),
    ],
)
def test_a_step_that_does_not_exist_is_a_french_404(client, duel, step, message):
    assert message in page(client, f"/games/{duel}/review?step={step}", 404)


@pytest.mark.parametrize(
    "url", ["/games/404/review", "/games/404/abandon", "/games/404/delete", "/games/404/game.json"]
)
def test_an_unknown_game_is_a_french_404(client, url):
    assert "Aucune partie n'a le numéro 404." in page(client, url, 404)


def test_a_game_in_progress_can_be_reviewed_and_resumed(client, table):
    game_id = table.new_game(["Mag", "Alix"])
    table.play(game_id, 0, "66662", "free:sixes")

    html = page(client, f"/games/{game_id}/review")
    assert "en cours" in html and "Après 1 entrée sur 1" in html
    assert f'href="/games/{game_id}"' in html
    assert f'href="/games/{game_id}/abandon"' in html


def test_abandon_after_a_confirmation(client, store, table):
    game_id = table.new_game(["Mag", "Alix"])
    html = page(client, f"/games/{game_id}/abandon")
    assert "Abandonner la partie ?" in html and "n'entre jamais au palmarès" in html
    assert f'href="/games/{game_id}/delete"' in html

    response = post(client, f"/games/{game_id}/abandon", {})

    assert response.status_code == 303 and response.headers["Location"] == "/"
    assert load(store, game_id, household=HOME_HOUSEHOLD)[0].status == "abandoned"
    home = page(client, "/")
    assert "Partie abandonnée" in home and f'href="/games/{game_id}"' not in home
    assert "abandonnée, commencée le" in page(client, f"/games/{game_id}/review")


def test_an_abandoned_game_can_be_taken_up_again(client, store, table):
    game_id = table.new_game(["Mag"])
    post(client, f"/games/{game_id}/abandon", {})

    response = post(client, f"/games/{game_id}/resume", {})

    assert response.headers["Location"] == f"/games/{game_id}"
    assert load(store, game_id, household=HOME_HOUSEHOLD)[0].status == "in_progress"
    again = post(client, f"/games/{game_id}/resume", {})
    assert again.status_code == 303
    assert "il n'y a rien à reprendre" in page(client, f"/games/{game_id}/review")


def test_a_finished_game_cannot_be_abandoned(client, store, duel):
    before = every_row(store)
    response = post(client, f"/games/{duel}/abandon", {})
    assert response.status_code == 409
    assert "Cette partie est terminée : elle ne s'abandonne pas." in page_text(response)
    assert every_row(store) == before


def test_delete_after_a_confirmation_also_takes_the_game_out_of_the_hall_of_fame(
    client, store, duel
):
    html = page(client, f"/games/{duel}/delete")
    assert "Supprimer la partie ?" in html and "quitte aussi le palmarès" in html

    response = post(client, f"/games/{duel}/delete", {})

    assert response.status_code == 303 and response.headers["Location"] == "/"
    assert load_game(store, duel, household=HOME_HOUSEHOLD) is None
    assert f"Partie n° {duel} supprimée." in page(client, "/")
    assert "Aucune partie terminée pour l'instant" in page(client, "/hall-of-fame")
    assert post(client, f"/games/{duel}/delete", {}).status_code == 404


def test_posts_without_the_csrf_token_change_nothing(client, store, duel, table):
    game_id = table.new_game(["Mag"])
    before = every_row(store)
    for action in ("abandon", "delete", "resume"):
        assert client.post(f"/games/{game_id}/{action}").status_code == 400
    assert client.post(f"/games/{duel}/delete").status_code == 400
    assert every_row(store) == before


def test_delete_asks_for_the_household_pin_when_there_is_one(app, client, store, duel):
    app.config["HOUSEHOLD_PIN"] = "2580"
    before = every_row(store)
    response = post(client, f"/games/{duel}/delete", {})
    assert response.status_code == 403 and "Code de la maison" in page_text(response)
    assert every_row(store) == before


def test_the_sheet_links_to_abandon_and_the_ranking_to_the_review(app, client, table):
    game_id = table.new_game(["Mag"])
    assert f'href="/games/{game_id}/abandon"' in page(client, f"/games/{game_id}")
    finished = import_documents(app.extensions[STORE_EXTENSION], solo_document("Alix"))[0]
    assert re.search(
        rf'href="/games/{finished}/review"', page(client, f"/games/{finished}/ranking")
    )
