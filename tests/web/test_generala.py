"""Generala through the web (docs/rules.md §14): the new-game form, the sheet in Spanish
words, the servida asked where it changes the score, the game won at once, bad input in the
reader's language, the documents, the hall of fame, the review and the Conseil."""

import json
import re

import pytest
from click.testing import CliRunner

from scorekeeper.app import STORE_EXTENSION
from scorekeeper.cli import main
from scorekeeper.play import load
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.exports import export_documents
from scorekeeper.web.language import COOKIE
from testing.samples import new_game_form
from tests.support.forms import page, page_text, upload

SPANISH = ("Escalera", "Full", "Póker", "Generala", "Doble Generala")


@pytest.fixture
def store(app):
    return app.extensions[STORE_EXTENSION]


def state_of(store, game_id):
    return load(store, game_id, household=HOME_HOUSEHOLD)[1]


def play(table, game_id, seq, dice, target, served=False, **extra):
    data = {
        "seq": seq,
        "dice": dice,
        "target": target,
        "version": table.version(game_id),
        **extra,
    }
    if served:
        data["served"] = "y"
    return table.post(f"/games/{game_id}/entries", data)


@pytest.fixture
def generala(table):
    return table.new_game(["Mag", "Alix"], preset="generala")


def test_the_new_game_form_offers_generala_by_its_countries(client):
    html = page(client, "/games/new")
    assert 'value="generala"' in html
    assert "Generala — Argentine, Uruguay, Espagne (espagnol)" in html
    for name in ("servida", "servida_wins", "ace_high_straight"):
        assert f'name="{name}"' in html
    # Each house rule says the presets it is for, which the form's script shows alone.
    servida = re.search(r'data-presets="([^"]*)"><input[^>]*name="servida"', html)
    vache = re.search(r'data-presets="([^"]*)"><input[^>]*name="vache"', html)
    assert servida.group(1) == "generala"
    assert vache.group(1) == "classique triple yatzy yahtzee kniffel"
    for language, offer in [
        ("en", "Generala — Argentina, Uruguay, Spain (Spanish)"),
        ("es", "Generala — Argentina, Uruguay, España (español)"),
    ]:
        client.set_cookie(COOKIE, language)
        assert offer in page(client, "/games/new")


def test_a_generala_game_starts_with_its_options(table, store):
    game_id = table.new_game(["Mag"], preset="generala", servida=False, ace_high_straight="y")
    rules = state_of(store, game_id).rules
    assert rules.is_generala and not rules.servida and rules.servida_wins
    assert rules.ace_high_straight
    # The French sheet's options, sent by the form as they are, do not reach it.
    game_id = table.new_game(["Mag"], preset="generala", vache="y", dice="6", joker="free")
    rules = state_of(store, game_id).rules
    assert (rules.vache, rules.dice, rules.columns) == (False, 5, ("free",))
    # A Sec column is no Generala's.
    response = table.post("/games/new", {**new_game_form(["Mag"], "generala"), "sec": "y"})
    assert response.status_code == 422
    assert "La Generala se joue sur une seule colonne" in page_text(response)


@pytest.mark.parametrize("language", ["fr", "en"])
def test_the_sheet_names_the_boxes_in_spanish_whatever_the_language(client, generala, language):
    client.set_cookie(COOKIE, language)
    html = page(client, f"/games/{generala}")
    sheet = re.search(r'<table class="sheet.*?</table>', html, re.S).group(0)
    for name in SPANISH:
        assert f">{name}</th>" in sheet
    assert ("Total haut" if language == "fr" else "Upper total") in sheet
    # No upper bonus at Generala, no Yams.
    assert "Prime" not in sheet and "Bonus" not in sheet and "Yams" not in sheet
    assert "Full house" not in html and "Four of a kind" not in html


def servida_choice(html):
    found = re.search(r'<div id="servida-choice"[^>]*>(.*?)</div>', html, re.S)
    return found and found.group(0)


def test_the_servida_is_asked_only_where_it_changes_the_score(client, generala):
    # Nothing made: nothing to ask.
    html = page(client, f"/games/{generala}/turn?seq=0&dice=12246")
    assert "hidden" in servida_choice(html) and 'name="served"' not in html
    # A Full: asked; the preview says 30, and 35 once the first throw is said.
    html = page(client, f"/games/{generala}/turn?seq=0&dice=22333")
    assert 'name="served"' in servida_choice(html) and "checked" not in servida_choice(html)
    assert "Full, 30 points possibles" in html
    html = page(client, f"/games/{generala}/turn?seq=0&dice=22333&served=1")
    assert "checked" in servida_choice(html)
    assert "Full, 35 points possibles" in html and "Trois, 9 points possibles" in html
    # Five alike on the first throw: the Generala box wins the game.
    html = page(client, f"/games/{generala}/turn?seq=0&dice=44444&served=1")
    assert "Generala, gagne la partie" in html and "box-btn preview wins" in html
    # Without scripts, the sheet with dice typed asks it the same way.
    html = page(client, f"/games/{generala}?dice=22333")
    assert 'name="served"' in servida_choice(html)


def test_a_servida_is_written_with_its_throw(table, store, generala):
    response = play(table, generala, 0, "22333", "free:full_house", served=True)
    assert response.status_code == 303
    assert "Mag marque 35 en Full." in page(table.client, f"/games/{generala}")
    response = play(table, generala, 1, "23456", "free:straight")
    state = state_of(store, generala)
    cells = [state.sheets[seat].columns["free"].cells for seat in (0, 1)]
    assert (cells[0]["full_house"].points, cells[0]["full_house"].throw) == (35, 1)
    assert (cells[1]["straight"].points, cells[1]["straight"].throw) == (20, None)
    [document] = export_documents(store, generala, household=HOME_HOUSEHOLD)
    assert document["entries"][0] == {
        "player": "Mag",
        "box": "full_house",
        "dice": [2, 2, 3, 3, 3],
        "throw": 1,
    }
    assert "throw" not in document["entries"][1]


def test_a_generala_servida_ends_the_game_with_its_winner(table, store, generala):
    assert play(table, generala, 0, "66666", "free:sixes").status_code == 303
    assert play(table, generala, 1, "55555", "free:generala", served=True).status_code == 303
    state = state_of(store, generala)
    assert state.is_over and state.winner == 1
    html = page(table.client, f"/games/{generala}")
    assert "Alix gagne sur-le-champ : Generala servida !" in html
    assert "Generala servida : Alix gagne la partie !" in html
    ranking = page(table.client, f"/games/{generala}/ranking")
    assert "Alix gagne sur-le-champ : Generala servida !" in ranking
    assert re.search(
        r'class="rank-1">\s*<span class="rank">1</span>\s*<span class="name">Alix', ranking
    )
    review = page(table.client, f"/games/{generala}/review")
    assert "(Generala servida : la partie est gagnée)" in review
    # The hall of fame groups it under its own rule set.
    fame = page(table.client, "/hall-of-fame")
    assert "Generala" in fame


@pytest.mark.parametrize(
    ("language", "message"),
    [
        ("fr", "Le lancer d'où viennent les dés ne compte qu'à la Generala"),
        ("en", "The throw the dice came from only counts in Generala"),
    ],
)
def test_a_servida_in_another_game_is_refused_and_changes_nothing(
    table, snapshot, language, message
):
    game_id = table.new_game(["Mag"])
    table.client.set_cookie(COOKIE, language)
    before = snapshot()
    response = play(table, game_id, 0, "22333", "free:full_house", served=True)
    assert response.status_code == 422
    assert message in page_text(response)
    assert snapshot() == before


@pytest.mark.parametrize(
    ("language", "message"),
    [("fr", "Cette partie n'a pas de case « yams »."), ("en", "This game has no “yams” box.")],
)
def test_a_box_of_another_rule_set_is_refused_and_changes_nothing(
    table, snapshot, generala, language, message
):
    table.client.set_cookie(COOKIE, language)
    before = snapshot()
    response = play(table, generala, 0, "66666", "free:yams")
    assert response.status_code == 422 and message in page_text(response)
    assert snapshot() == before


def test_the_doble_before_a_generala_asks_to_bar_it(table, generala):
    response = play(table, generala, 0, "66666", "free:double_generala")
    assert response.status_code == 200
    assert "La Doble Generala ne compte qu'une fois la case Generala à 50." in page_text(response)


GAME = {
    "rules": {"preset": "generala"},
    "players": ["Mag", "Alix"],
    "entries": [
        {"player": "Mag", "box": "four_kind", "dice": [4, 4, 4, 4, 1], "throw": 1},
        {"player": "Alix", "box": "generala", "dice": [2, 2, 2, 2, 2], "throw": 1},
    ],
}


def test_import_and_export_keep_the_throws_and_the_win(client, store):
    response = upload(client, json.dumps([GAME]).encode())
    assert response.status_code == 303, page_text(response)
    [document] = export_documents(store, household=HOME_HOUSEHOLD)
    assert document["status"] == "finished"
    assert document["entries"] == GAME["entries"]
    assert document["rules"]["preset"] == "generala"


def test_a_servida_on_a_fourth_throw_is_refused_by_the_import(client, store):
    bad = json.loads(json.dumps(GAME))
    bad["entries"][0]["throw"] = 4
    response = upload(client, json.dumps([bad]).encode())
    assert response.status_code == 422
    assert "Un tour a trois lancers : le lancer vaut 1, 2 ou 3, pas « 4 »." in page_text(response)
    assert list(export_documents(store, household=HOME_HOUSEHOLD)) == []


def test_replay_says_who_won_at_once(tmp_path):
    path = tmp_path / "generala.json"
    path.write_text(json.dumps(GAME), encoding="utf-8")
    result = CliRunner().invoke(main, ["replay", str(path)])
    assert result.exit_code == 0
    line = json.loads(result.output)
    assert [player["total"] for player in line["players"]] == [45, 50]
    assert line["won_at_once"] == "Alix"


def test_the_print_page_and_the_blank_grid(client):
    html = page(client, "/print")
    assert 'name="preset" value="generala"' in html
    response = client.get("/sheets/blank.pdf?preset=generala&ace_high_straight=1&servida=0")
    assert response.status_code == 200 and response.mimetype == "application/pdf"
    response = client.get("/sheets/blank.pdf?preset=generala&sec=1")
    assert response.status_code == 400
    assert "La Generala se joue sur une seule colonne" in page_text(response)
