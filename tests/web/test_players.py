"""Players' pages: figures, chart, renaming and merging through the forms, with CSRF on."""

import re

import pytest

from scorekeeper.app import STORE_EXTENSION
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.games import create_game
from scorekeeper.store.lifecycle import abandon_game
from scorekeeper.store.players import get_player
from scorekeeper.store.quotas import NO_QUOTAS
from tests.support.forms import page, page_text, post
from tests.support.games import duo_document, every_row, import_documents, solo_document


@pytest.fixture
def store(app):
    return app.extensions[STORE_EXTENSION]


@pytest.fixture
def family(app):
    """Mag (1) and Alix (2) played a duel Mag won; Mag played alone twice, as "maggie" (3)
    once."""
    duel = duo_document("Mag", "Alix")
    # Alix misses the Yams of the last round: 50 points behind.
    duel["entries"][-3]["dice"] = [1, 2, 3, 4, 5]
    return import_documents(
        app.extensions[STORE_EXTENSION],
        duel,
        solo_document("Mag", bonus=False, yams=False, finished_at="2024-02-01"),
        solo_document("maggie", finished_at="2024-03-01"),
    )


def test_the_players_list(client, family):
    html = page(client, "/players")
    rows = re.findall(r'href="/players/(\d+)">([^<]+)</a></td>\s*<td>(\d+)</td>\s*<td>(\d+)', html)
    assert rows == [("2", "Alix", "1", "0"), ("1", "Mag", "2", "1"), ("3", "maggie", "1", "0")]


def test_a_player_page_shows_the_figures_of_each_rule_set(client, family):
    html = page(client, "/players/1")

    assert "<h1>Mag</h1>" in html
    figures = re.search(r"<th scope=\"row\">.*?Classique</a></th>(.*?)</tr>", html, re.S)
    cells = [
        re.sub(r"<[^>]+>", "", cell).split()
        for cell in re.findall(r"<td>(.*?)</td>", figures.group(1), re.S)
    ]
    # 2 games: 319 and 171 (21 + 150), one duel won; 1 column of 2 had the bonus,
    # 1 game of 2 had a Yams, 1 barred box of 26.
    assert cells == [
        ["2"],
        ["1", "/", "1"],
        ["245,0"],
        ["319"],
        ["171"],
        ["50", "%"],
        ["50", "%"],
        ["4", "%"],
    ]
    assert f'href="/games/{family[0]}/review">319' in html
    yams_row = re.search(r"<th scope=\"row\">Yams</th>\s*<td>(\d+)</td>\s*<td>(\d+)</td>", html)
    assert yams_row.groups() == ("2", "1")


def test_the_chart_is_an_inline_svg_with_a_point_per_game(client, family):
    html = page(client, "/players/1")
    svg = html[html.index("<svg") : html.index("</svg>")]
    assert svg.count("<circle") == 2
    assert "<title" in svg and "Totaux de Mag, Classique" in svg
    assert "http" not in svg.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "style=" not in svg  # the Content-Security-Policy forbids inline styles


def test_a_player_without_finished_games_and_their_open_games(app, client, store):
    game_id = create_game(store, {}, ["Zoé", "Bob"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    other = create_game(store, {}, ["Zoé"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    abandon_game(store, other, household=HOME_HOUSEHOLD)

    html = page(client, "/players/1")
    assert "Zoé n'a encore fini aucune partie." in html
    assert f'href="/games/{game_id}"' in html and "À Zoé de jouer, tour 1 sur 13" in html
    assert "Zoé, Bob" in html
    assert f'href="/games/{other}/review"' in html and "abandonnée" in html


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("/players/404", "Aucun joueur n'a le numéro 404."),
        ("/players/1?rules=nope", "Mag n'a fini aucune partie avec ces règles."),
        ("/players/1?page=3", "La page « 3 » n'existe pas : choisissez entre 1 et 1."),
        ("/players?page=x", "La page « x » n'existe pas"),
        ("/players/404/rename", "Aucun joueur n'a le numéro 404."),
        ("/players/404/merge", "Aucun joueur n'a le numéro 404."),
    ],
)
def test_unknown_players_and_bad_pages_get_a_french_404(client, family, url, message):
    assert message in page(client, url, 404)


def test_rename(client, store, family):
    assert 'value="Mag"' in page(client, "/players/1/rename")

    response = post(client, "/players/1/rename", {"name": "  Magali "})

    assert response.status_code == 303 and response.headers["Location"] == "/players/1"
    assert get_player(store, 1, household=HOME_HOUSEHOLD).name == "Magali"
    assert "Mag s'appelle désormais Magali." in page(client, "/players/1")


def test_rename_to_a_taken_name_suggests_the_merge_and_changes_nothing(client, store, family):
    before = every_row(store)

    response = post(client, "/players/3/rename", {"name": "MAG"})

    text = page_text(response)
    assert response.status_code == 422
    assert "« Mag » est déjà le nom d'un autre joueur." in text
    assert 'href="/players/1/merge?other=3"' in text
    assert every_row(store) == before


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("", "Tapez un nom de 1 à 40 caractères."),
        ("x" * 41, "Tapez un nom de 1 à 40 caractères."),
        ("Tab\there", "contient des caractères invisibles"),
    ],
)
def test_rename_refuses_bad_names(client, store, family, name, message):
    before = every_row(store)
    response = post(client, "/players/1/rename", {"name": name})
    assert response.status_code == 422 and message in page_text(response)
    assert every_row(store) == before


def test_merge(client, store, family):
    html = page(client, "/players/1/merge?other=3")
    assert '<option selected value="3">maggie</option>' in html

    response = post(client, "/players/1/merge", {"other": "3"})

    assert response.status_code == 303 and response.headers["Location"] == "/players/1"
    assert get_player(store, 3, household=HOME_HOUSEHOLD) is None
    html = page(client, "/players/1")
    assert "maggie est rattaché à Mag" in html
    assert re.search(r"Classique</a></th>\s*<td>3</td>", html)


@pytest.mark.parametrize(
    ("other", "status", "message"),
    [
        ("2", 409, "Alix et Mag ont joué ensemble (partie n° 1) : ce sont deux personnes"),
        ("1", 422, "Choisissez dans la liste le joueur à rattacher."),
        ("404", 422, "Choisissez dans la liste le joueur à rattacher."),
        ("x", 422, "Choisissez dans la liste le joueur à rattacher."),
        ("1" + "0" * 30, 422, "Choisissez dans la liste le joueur à rattacher."),
    ],
)
def test_a_refused_merge_changes_nothing(client, store, family, other, status, message):
    before = every_row(store)
    response = post(client, "/players/1/merge", {"other": other})
    assert response.status_code == status
    assert message in page_text(response)
    assert every_row(store) == before


def test_posts_without_the_csrf_token_change_nothing(client, store, family):
    before = every_row(store)
    assert client.post("/players/1/rename", data={"name": "Zoé"}).status_code == 400
    assert client.post("/players/1/merge", data={"other": "3"}).status_code == 400
    assert every_row(store) == before


def test_merge_asks_for_the_household_pin_when_there_is_one(app, client, store, family):
    app.config["HOUSEHOLD_PIN"] = "2580"
    before = every_row(store)
    response = post(client, "/players/1/merge", {"other": "3"})
    assert response.status_code == 403 and "Code de la maison" in page_text(response)
    assert every_row(store) == before
