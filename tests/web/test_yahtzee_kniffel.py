"""Yahtzee and Kniffel through the web (docs/rules.md §12): the new-game form, turns scored by
the server from the dice, refusals in the reader's language, the hall of fame, import and
export, the review and the prints."""

import json
import random
import re

import pytest

from scorekeeper.app import STORE_EXTENSION
from scorekeeper.play import load
from scorekeeper.rules import Rules
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.web.language import COOKIE as LANGUAGE_COOKIE
from testing.samples import random_document
from tests.support.forms import page, page_text, upload
from tests.support.games import import_documents
from tests.support.prints import SIZES, pdf_of, sizes, text

KNIFFEL = Rules.from_dict({"preset": "kniffel"})


def _state(app, game_id):
    return load(app.extensions[STORE_EXTENSION], game_id, household=HOME_HOUSEHOLD)[1]


def _cell(app, game_id, box, seat=0):
    return _state(app, game_id).sheets[seat].columns["free"].cells[box]


@pytest.mark.parametrize(
    ("lang", "yahtzee", "kniffel", "joker"),
    [
        (
            "fr",
            "Yahtzee — États-Unis, Canada (anglais)",
            "Kniffel — Allemagne (allemand)",
            "au choix : le Yams",
        ),
        (
            "en",
            "Yahtzee — United States, Canada (English)",
            "Kniffel — Germany (German)",
            "free choice: a Yams",
        ),
        (
            "de",
            "Yahtzee — USA, Kanada (Englisch)",
            "Kniffel — Deutschland (Deutsch)",
            "freie Wahl: ein Yams",
        ),
    ],
)
def test_the_form_offers_them_by_country_and_reads_them_back(
    table, app, lang, yahtzee, kniffel, joker
):
    table.client.set_cookie(LANGUAGE_COOKIE, lang)
    html = page(table.client, "/games/new")
    assert 'value="yahtzee"' in html and 'value="kniffel"' in html
    assert yahtzee in html and kniffel in html
    assert 'value="free_choice"' in html and joker in html
    game_id = table.new_game(["Mag"], preset="yahtzee", joker="free_choice")
    assert _state(app, game_id).rules == Rules.from_dict(
        {"preset": "yahtzee", "joker": "free_choice"}
    )
    # A house rule Kniffel does not have, sent with it, is left out, as for Yatzy.
    game_id = table.new_game(["Mag"], preset="kniffel", four_kind="fixed40", joker="free")
    assert _state(app, game_id).rules == KNIFFEL


def test_a_yahtzee_turn_is_scored_by_the_server_from_the_dice(table, app):
    game_id = table.new_game(["Mag", "Alix"], preset="yahtzee", joker="free_choice")
    assert table.play(game_id, 0, "11111", "free:yams").status_code == 303
    assert table.play(game_id, 1, "12346", "free:chance").status_code == 303
    # Verhoeff's joker: anywhere, but no full value while the Fours are open; the +100 comes
    # with the dice. A box the dice bar asks for a confirmation first.
    response = table.play(game_id, 2, "44444", "free:large_straight")
    assert response.status_code == 200 and "0" in page_text(response)
    assert table.play(game_id, 2, "44444", "free:large_straight", confirm=True).status_code == 303
    cell = _cell(app, game_id, "large_straight")
    assert (cell.points, cell.yams_bonus) == (0, 100)
    html = page(table.client, f"/games/{game_id}")
    assert "Prime Yahtzee (+100)" in html and ">Yahtzee<" in html


@pytest.mark.parametrize(
    ("lang", "bonus_row"), [("fr", "Prime Kniffel (+50)"), ("en", "Kniffel bonus (+50)")]
)
def test_a_kniffel_turn_and_its_sheet_in_german_words(table, app, lang, bonus_row):
    table.client.set_cookie(LANGUAGE_COOKIE, lang)
    game_id = table.new_game(["Mag"], preset="kniffel")
    assert table.play(game_id, 0, "33333", "free:yams").status_code == 303
    assert table.play(game_id, 1, "55555", "free:fives").status_code == 303
    cell = _cell(app, game_id, "fives")
    assert (cell.points, cell.yams_bonus) == (25, 50)
    html = page(table.client, f"/games/{game_id}")
    for word in ("Einser", "Fünfer", "Dreierpasch", "Kleine Straße", "Große Straße", bonus_row):
        assert word in html
    assert "Brelan" not in html and "Three of a kind" not in html
    assert _state(app, game_id).sheets[0].total == 50 + 25 + 50


@pytest.mark.parametrize("preset", ["yahtzee", "kniffel"])
@pytest.mark.parametrize(
    ("lang", "dice", "target", "message"),
    [
        ("fr", "12346", "free:pair", "Cette partie n'a pas de case « pair »."),
        ("en", "12346", "free:pair", "This game has no “pair” box."),
        ("fr", "666666", "free:sixes", "Trop de dés : il en faut 5, pas 6."),
        ("en", "6666666", "free:sixes", "Too many dice: 5 are needed, not 7."),
    ],
)
def test_a_box_of_another_rule_set_or_a_die_too_many_changes_nothing(
    table, snapshot, preset, lang, dice, target, message
):
    table.client.set_cookie(LANGUAGE_COOKIE, lang)
    game_id = table.new_game(["Mag"], preset=preset)
    before = snapshot()
    response = table.play(game_id, 0, dice, target)
    assert response.status_code == 422
    assert message in page_text(response)
    assert snapshot() == before


@pytest.mark.parametrize(
    ("lang", "message"),
    [
        ("fr", "Joker : ce Kniffel doit aller dans la case Fünfer."),
        ("en", "Joker: this Kniffel must go in the Fünfer box."),
        ("de", "Joker: Dieser Kniffel muss in das Feld Fünfer."),
    ],
)
def test_a_kniffel_refused_elsewhere_names_its_box_in_german(table, snapshot, lang, message):
    table.client.set_cookie(LANGUAGE_COOKIE, lang)
    game_id = table.new_game(["Mag"], preset="kniffel")
    table.play(game_id, 0, "33333", "free:yams")
    before = snapshot()
    response = table.play(game_id, 1, "55555", "free:three_kind")
    assert response.status_code == 422
    assert message in page_text(response)
    assert snapshot() == before


@pytest.mark.parametrize(
    ("preset", "lang", "forced", "again"),
    [
        (
            "yahtzee",
            "en",
            "Joker: this Yahtzee must go in the Fives box.",
            "Another Yahtzee: +100!",
        ),
        (
            "yahtzee",
            "de",
            "Joker: Dieser Yahtzee muss in das Feld Fünfer.",
            "Noch ein Yahtzee: +100!",
        ),
        (
            "kniffel",
            "en",
            "Joker: this Kniffel must go in the Fünfer box.",
            "Another Kniffel: +50!",
        ),
        (
            "kniffel",
            "de",
            "Joker: Dieser Kniffel muss in das Feld Fünfer.",
            "Noch ein Kniffel: +50!",
        ),
    ],
)
def test_the_sheet_says_the_game_s_word_for_five_alike(table, preset, lang, forced, again):
    # The joker's refusal and the second one's bonus on the turn panel say the game's own
    # word, from its box's label, never « Yams ».
    table.client.set_cookie(LANGUAGE_COOKIE, lang)
    game_id = table.new_game(["Mag"], preset=preset)
    table.play(game_id, 0, "33333", "free:yams")
    html = page(table.client, f"/games/{game_id}?dice=55555")
    assert forced in html
    response = table.play(game_id, 1, "55555", "free:three_kind")
    assert response.status_code == 422 and forced in page_text(response)
    panel = page(table.client, f"/games/{game_id}/turn?seq=1&dice=55555&target=free:fives")
    assert again in panel
    # « Yams » stays the app's name in the title, never the five alike's.
    said = html + page_text(response) + panel
    assert not re.search(r"Yams[ -](?!</title>)|(?:ein|this|Dieser) Yams", said)


@pytest.mark.parametrize(
    ("lang", "kept"),
    [
        ("en", "The Yahtzee bonus of +100 is still earned."),
        ("de", "Der Yahtzee-Bonus von +100 bleibt trotzdem erhalten."),
    ],
)
def test_a_yahtzee_crossing_out_a_box_keeps_its_bonus_in_its_word(table, lang, kept):
    table.client.set_cookie(LANGUAGE_COOKIE, lang)
    game_id = table.new_game(["Mag"], preset="yahtzee", joker="free_choice")
    table.play(game_id, 0, "33333", "free:yams")
    response = table.play(game_id, 1, "55555", "free:ones")
    assert kept in page_text(response)
    assert not re.search(r"Yams[ -](?!</title>)|(?:ein|this|Dieser) Yams", page_text(response))


def test_hall_of_fame_import_export_and_review_keep_them_apart(app, client):
    rng = random.Random(41)
    store = app.extensions[STORE_EXTENSION]
    documents = [
        random_document(Rules(), ["Mag"], rng),
        random_document(Rules.from_dict({"preset": "yahtzee"}), ["Alix"], rng),
        random_document(KNIFFEL, ["Zoé"], rng),
    ]
    import_documents(store, *documents)
    html = page(client, "/hall-of-fame")
    sets = re.findall(r'href="/hall-of-fame\?rules=[0-9a-f]+"[^>]*>\s*([^<]+?)\s*<', html)
    assert sorted(sets) == ["Classique", "Kniffel", "Yahtzee"]

    exported = json.loads(client.get("/import-export/games.json").get_data(as_text=True))
    assert sorted(game["rules"]["preset"] for game in exported) == [
        "classique",
        "kniffel",
        "yahtzee",
    ]
    [kniffel] = [game for game in exported if game["rules"]["preset"] == "kniffel"]
    assert kniffel["rules"] == {"preset": "kniffel", "columns": ["free"], "vache": False}

    review = page(client, f"/games/{kniffel['id']}/review")
    assert "Sechser" in review and "Six" not in review.replace("Sechser", "")


def test_an_exported_kniffel_imports_elsewhere_as_the_same_game(app, client, tmp_path):
    document = random_document(KNIFFEL, ["Zoé", "Lou"], random.Random(7))
    assert upload(client, json.dumps([document]).encode()).status_code == 303
    exported = json.loads(client.get("/import-export/games.json").get_data(as_text=True))
    assert [(game["rules"], game["entries"]) for game in exported] == [
        (document["rules"], document["entries"])
    ]


@pytest.mark.parametrize("paper", sorted(SIZES))
@pytest.mark.parametrize("preset", ["yahtzee", "kniffel"])
def test_blank_grids_of_both_on_both_papers(client, preset, paper):
    reader = pdf_of(client.get(f"/sheets/blank.pdf?preset={preset}&paper={paper}"))
    assert sizes(reader) == {SIZES[paper]} and len(reader.pages) == 1
    words = text(reader)
    if preset == "kniffel":
        assert "Dreierpasch" in words and "Partie 6" in words and "Prime Kniffel (+50)" in words
    else:
        assert "Brelan" in words and "Prime Yahtzee (+100)" in words


def test_the_print_page_has_their_forms(client):
    html = page(client, "/print")
    assert 'name="preset" value="yahtzee"' in html and 'name="preset" value="kniffel"' in html
    # Yahtzee's form offers its joker; Kniffel's has no option of the classique sheet.
    yahtzee = html[html.index('value="yahtzee"') : html.index('value="kniffel"')]
    kniffel = html[html.index('value="kniffel"') :]
    assert 'id="yahtzee-joker"' in yahtzee and 'value="free_choice"' in yahtzee
    assert 'name="joker"' not in kniffel and 'name="four_kind"' not in kniffel
    assert 'name="vache"' in kniffel and 'name="sec"' in kniffel


def test_a_played_kniffel_prints_in_english_with_its_german_boxes(table):
    table.client.set_cookie(LANGUAGE_COOKIE, "en")
    game_id = table.new_game(["Mag"], preset="kniffel")
    table.play(game_id, 0, "33333", "free:yams")
    table.play(game_id, 1, "55555", "free:fives")
    words = text(pdf_of(table.client.get(f"/games/{game_id}/sheet.pdf?paper=letter")))
    assert words.startswith("Kniffel · game")
    # The Fünfer's 25 and its +50, then the bonus row's 50 (the labels come after the cells).
    assert "25 +50" in words and "Fünfer" in words and "Kniffel bonus (+50)" in words
    assert "Upper total" in words and "Fives" not in words
