"""Maxi Yatzy through the web (docs/rules.md §15): the new-game form, the sheet of twenty
Swedish rows with what six dice would score, each player's saved throws, the throws used in
one tap, bad input in the reader's language, import and export."""

import json
import re

import pytest

from scorekeeper.app import STORE_EXTENSION
from scorekeeper.play import load
from scorekeeper.rules import Rules
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.exports import export_documents
from scorekeeper.web.language import COOKIE
from testing.samples import new_game_form
from tests.support.forms import page, page_text, upload

SWEDISH = ("Ettor", "Sexor", "Ett par", "Tre par", "Femtal", "Full straight", "Kåk", "Hus", "Torn")


@pytest.fixture
def store(app):
    return app.extensions[STORE_EXTENSION]


def state_of(store, game_id):
    return load(store, game_id, household=HOME_HOUSEHOLD)[1]


def play(table, game_id, seq, dice, target, throws=None, **extra):
    data = {"seq": seq, "dice": dice, "target": target, "version": table.version(game_id)}
    if throws is not None:
        data["throws"] = str(throws)
    return table.post(f"/games/{game_id}/entries", {**data, **extra})


@pytest.fixture
def maxi(table):
    return table.new_game(["Mag", "Alix"], preset="maxi_yatzy")


def throws_choice(html):
    found = re.search(r'<fieldset id="throws-choice".*?</fieldset>', html, re.S)
    return found and found.group(0)


def test_the_new_game_form_offers_maxi_yatzy_by_its_countries(client):
    html = page(client, "/games/new")
    assert 'value="maxi_yatzy"' in html
    assert "Maxi Yatzy — Suède, Danemark, Norvège (suédois, danois, norvégien)" in html
    assert "6 dés, 20 cases en suédois, lancers gardés pour plus tard" in html
    client.set_cookie(COOKIE, "en")
    english = page(client, "/games/new")
    assert "Maxi Yatzy — Sweden, Denmark, Norway (Swedish, Danish, Norwegian)" in english
    assert "6 dice, 20 boxes in Swedish, throws saved for later" in english


def test_a_maxi_yatzy_game_starts_with_six_dice_whatever_the_form_says(table, store):
    game_id = table.new_game(["Mag"], preset="maxi_yatzy", vache="y", dice="5", joker="free")
    rules = state_of(store, game_id).rules
    assert rules.is_maxi_yatzy and (rules.vache, rules.dice, rules.columns) == (
        False,
        6,
        ("free",),
    )
    response = table.post("/games/new", {**new_game_form(["Mag"], "maxi_yatzy"), "sec": "y"})
    assert response.status_code == 422
    assert "Le Maxi Yatzy se joue sur une seule colonne" in page_text(response)


@pytest.mark.parametrize("language", ["fr", "en", "sv"])
def test_the_sheet_has_twenty_swedish_rows_and_the_bonus_of_100(client, maxi, language):
    client.set_cookie(COOKIE, language)
    html = page(client, f"/games/{maxi}")
    sheet = re.search(r'<table class="sheet.*?</table>', html, re.S).group(0)
    assert len(re.findall(r'<tr class="box-row', sheet)) == 20
    for name in SWEDISH:
        assert f">{name}</th>" in sheet
    assert "(100)" in sheet and "Yams" not in sheet
    assert "84" in sheet  # « encore 84 pour 100 »


def test_each_free_box_shows_what_six_dice_would_score(client, maxi):
    html = page(client, f"/games/{maxi}/turn?seq=0&dice=333666")
    assert "Hus, 27 points possibles" in html
    assert "Kåk, 24 points possibles" in html
    assert "Tre par, 0" not in html and "Tre par, barrée à 0" in html
    assert "Chans, 27 points possibles" in html and "Sexor, 18 points possibles" in html
    # Five dice are not yet a throw of six: the sheet waits for the sixth.
    html = page(client, f"/games/{maxi}/turn?seq=0&dice=33366")
    assert "points possibles" not in html


def test_the_throws_are_offered_in_one_tap_three_by_default(client, maxi):
    choice = throws_choice(page(client, f"/games/{maxi}"))
    assert re.findall(r'value="(\d+)"', choice) == ["1", "2", "3"]
    assert re.search(r'value="3"\s*checked', choice)
    assert "gardé" not in choice


def test_saved_throws_are_shown_and_offered_then_spent(table, store, maxi):
    assert play(table, maxi, 0, "123456", "free:full_straight", throws=1).status_code == 303
    assert play(table, maxi, 1, "111234", "free:ones").status_code == 303
    state = state_of(store, maxi)
    assert state.saved_throws == (2, 0)
    assert [entry.throws for entry in state.entries] == [1, None]
    html = page(table.client, f"/games/{maxi}")
    choice = throws_choice(html)
    assert re.findall(r'value="(\d+)"', choice) == ["1", "2", "3", "4", "5"]
    assert "Lancers utilisés (2 gardés)" in choice
    assert "2 lancers gardés" in html  # Mag's chip
    row = re.search(r'<tr class="subtotal saved-throws">.*?</tr>', html, re.S).group(0)
    assert re.findall(r"<td[^>]*>(\d+)</td>", row) == ["2", "0"]
    assert play(table, maxi, 2, "666666", "free:maxi_yatzy", throws=5).status_code == 303
    assert state_of(store, maxi).saved_throws == (0, 0)
    # Undo gives them back.
    assert table.undo(maxi, 3).status_code == 303
    assert state_of(store, maxi).saved_throws == (2, 0)


@pytest.mark.parametrize(
    ("language", "throws", "message"),
    [
        ("fr", 4, "Mag n'a que 3 lancers (les 3 du tour et 0 gardés), pas 4."),
        ("fr", 0, "Un tour fait au moins un lancer"),
        ("en", 4, "Mag has only 3 throws"),
    ],
)
def test_more_throws_than_the_player_has_are_refused_and_change_nothing(
    table, snapshot, maxi, language, throws, message
):
    table.client.set_cookie(COOKIE, language)
    before = snapshot()
    response = play(table, maxi, 0, "123456", "free:chance", throws=throws)
    assert response.status_code == 422
    assert message in page_text(response)
    assert snapshot() == before


def test_throws_in_another_game_are_refused_and_change_nothing(table, snapshot):
    game_id = table.new_game(["Mag"])
    before = snapshot()
    response = play(table, game_id, 0, "22333", "free:full_house", throws=2)
    assert response.status_code == 422
    assert "Les lancers utilisés ne se notent qu'au Maxi Yatzy" in page_text(response)
    assert snapshot() == before


@pytest.mark.parametrize(("dice", "message"), [("1234566", "Trop de dés"), ("123450", "pas un dé")])
def test_a_seventh_die_or_a_die_0_is_refused(table, snapshot, maxi, dice, message):
    before = snapshot()
    response = play(table, maxi, 0, dice, "free:chance")
    assert response.status_code == 422 and message in page_text(response)
    assert snapshot() == before


def test_a_box_of_another_rule_set_is_refused(table, snapshot, maxi):
    before = snapshot()
    response = play(table, maxi, 0, "666666", "free:yams")
    assert response.status_code == 422
    assert "Cette partie n'a pas de case « yams »." in page_text(response)
    assert snapshot() == before


def test_the_throws_chosen_outlive_a_keypad_tap_without_scripts(table, maxi):
    response = table.entry_form(maxi, 0, dice="12345", add="6", throws="2")
    assert response.status_code == 303
    assert "throws=2" in response.headers["Location"]
    html = page(table.client, response.headers["Location"])
    assert re.search(r'value="2"\s*checked', throws_choice(html))


GAME = {
    "rules": {"preset": "maxi_yatzy"},
    "players": ["Mag", "Alix"],
    "entries": [
        {"player": "Mag", "box": "villa", "dice": [2, 2, 2, 5, 5, 5], "throws": 2},
        {"player": "Alix", "box": "tower", "dice": [3, 3, 6, 6, 6, 6]},
        {"player": "Mag", "box": "maxi_yatzy", "dice": [4, 4, 4, 4, 4, 4], "throws": 4},
    ],
}


def test_import_and_export_keep_the_throws(client, store):
    response = upload(client, json.dumps([GAME]).encode())
    assert response.status_code == 303, page_text(response)
    [document] = export_documents(store, household=HOME_HOUSEHOLD)
    assert document["entries"] == GAME["entries"]
    assert document["rules"] == {"preset": "maxi_yatzy", "columns": ["free"]}


def test_more_throws_than_saved_are_refused_by_the_import(client, store):
    bad = json.loads(json.dumps(GAME))
    bad["entries"][2]["throws"] = 5
    response = upload(client, json.dumps([bad]).encode())
    assert response.status_code == 422
    assert "Mag n'a que 4 lancers (les 3 du tour et 1 gardés), pas 5." in page_text(response)
    assert list(export_documents(store, household=HOME_HOUSEHOLD)) == []


@pytest.mark.parametrize(
    ("dice", "after"), [("", "66"), ("1234", "123466"), ("12345", "123456"), ("123456", "123456")]
)
def test_a_pair_key_adds_two_dice_as_many_as_there_is_room_for(table, maxi, dice, after):
    html = page(table.client, f"/games/{maxi}")
    assert 'name="add" value="66"' in html and "Ajouter deux 6" in html
    response = table.entry_form(maxi, 0, dice=dice, add="66")
    assert response.status_code == 303
    assert response.headers["Location"] == f"/games/{maxi}?dice={after}"


def test_only_maxi_yatzy_has_pair_keys_and_a_pair_must_be_of_one_face(table, maxi):
    classique = table.new_game(["Mag"])
    assert 'value="66"' not in page(table.client, f"/games/{classique}")
    response = table.entry_form(maxi, 0, dice="12", add="56")
    assert 400 <= response.status_code < 500
    assert "Rechargez la feuille et recommencez." in page_text(response)


def test_the_conseil_advises_at_once_and_builds_nothing(app, client, maxi):
    # Maxi Yatzy's Conseil is a policy without a table (docs/advisor.md): the advice at once.
    html = page(client, f"/games/{maxi}/advice?dice=123456")
    assert "advice-verdict" in html and "Conseil estimé" in html
    tables = app.extensions["scorekeeper.advisor"]
    assert tables.progress(Rules.from_dict({"preset": "maxi_yatzy"})) is None
