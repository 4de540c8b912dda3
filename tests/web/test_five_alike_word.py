"""Five dice alike in the game's own word beyond the sheet: the hall of fame's record, the
player's figures and the card to share say « Kniffel » of a Kniffel game, « Generala » of a
Generala game, and « Yams » of the classique sheet, in every language."""

import random
import re

import pytest

from scorekeeper.app import STORE_EXTENSION
from scorekeeper.play import load
from scorekeeper.rules import Rules
from scorekeeper.rules.results import rules_key
from scorekeeper.sheets.card import card_html
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.web.language import COOKIE as LANGUAGE_COOKIE
from testing.samples import SCORING_TURNS, random_document
from tests.support.forms import page
from tests.support.games import import_documents, solo_document

FINISHED = {
    "created_at": "2026-11-30T19:55:00+00:00",
    "started_at": "2026-11-30T20:00:00+00:00",
    "finished_at": "2026-11-30T21:12:00+00:00",
}
# Two Kniffel: four fours in their upper box, then five sixes in the Kniffel box.
KNIFFEL_GAME = {
    "rules": {"preset": "kniffel"},
    "players": ["Zoé"],
    "entries": [
        {"player": "Zoé", "box": box, "dice": [int(die) for die in dice]}
        # The sheet's scoring turns, five 4s in Fours: two five-alike in the game.
        for dice, box in (
            ("44444", box) if box == "fours" else (dice, box) for dice, box in SCORING_TURNS
        )
    ],
    **FINISHED,
}
# A Generala servida at the first turn ends the game: one Generala.
GENERALA_GAME = {
    "rules": {"preset": "generala"},
    "players": ["Lou", "Bob"],
    "entries": [
        {"player": "Lou", "box": "four_kind", "dice": [4, 4, 4, 4, 1], "throw": 1},
        {"player": "Bob", "box": "generala", "dice": [2, 2, 2, 2, 2], "throw": 1},
    ],
    **FINISHED,
}
CLASSIQUE_GAME = solo_document("Mag", finished_at=FINISHED["finished_at"])

# What each page says, by language and game: the record's title and value, the player's
# note under their figures, and the card's line.
SAID = {
    "fr": {
        "kniffel": (
            "Le plus de Kniffel dans une partie",
            "2 Kniffel",
            "Kniffel : part des parties avec au moins un Kniffel.",
            "2 Kniffel dans la partie",
        ),
        "generala": (
            "Le plus de Generala dans une partie",
            "1 Generala",
            "Generala : part des parties avec au moins un Generala.",
            "1 Generala dans la partie",
        ),
        "classique": (
            "Le plus de Yams dans une partie",
            "1 Yams",
            "Yams : part des parties avec au moins un Yams.",
            "1 Yams dans la partie",
        ),
    },
    "de": {
        "kniffel": (
            "Die meisten Kniffel in einer Partie",
            "2 Kniffel",
            "Kniffel: Anteil der Partien mit mindestens einem Kniffel.",
            "2 Kniffel in der Partie",
        ),
        "generala": (
            "Die meisten Generala in einer Partie",
            "1 Generala",
            "Generala: Anteil der Partien mit mindestens einem Generala.",
            "1 Generala in der Partie",
        ),
        "classique": (
            "Die meisten Yams in einer Partie",
            "1 Yams",
            "Yams: Anteil der Partien mit mindestens einem Yams.",
            "1 Yams in der Partie",
        ),
    },
}
GAMES = {"kniffel": KNIFFEL_GAME, "generala": GENERALA_GAME, "classique": CLASSIQUE_GAME}
WORDS = {"kniffel": "Kniffel", "generala": "Generala", "classique": "Yams"}
RECORDS = re.compile(r'<section class="card" aria-labelledby="records-title">.*?</section>', re.S)
FIGURES = re.compile(r'<section class="card" aria-labelledby="figures-title">.*?</section>', re.S)
HEADERS = re.compile(r'<th scope="col">\s*([^<]*?)\s*</th>')


@pytest.fixture
def games(app):
    """The three games imported, by preset: their ids."""
    ids = import_documents(app.extensions[STORE_EXTENSION], *GAMES.values())
    return dict(zip(GAMES, ids, strict=True))


def player_id(client, name):
    html = page(client, "/players")
    return int(re.search(rf'href="/players/(\d+)"[^>]*>\s*{name}\s*<', html).group(1))


@pytest.mark.parametrize("language", ["fr", "de"])
@pytest.mark.parametrize("preset", ["kniffel", "generala", "classique"])
def test_the_record_the_figures_and_the_card_say_the_game_s_word(
    app, client, games, language, preset
):
    title, value, note, card_line = SAID[language][preset]
    word = WORDS[preset]
    client.set_cookie(LANGUAGE_COOKIE, language)

    key = rules_key(GAMES[preset]["rules"])
    records = RECORDS.search(page(client, f"/hall-of-fame?rules={key}")).group()
    assert f"<dt>{title}</dt>" in records and value in records
    if preset != "classique":
        assert "Yams" not in records

    holder = GAMES[preset]["players"][-1]
    figures = FIGURES.search(page(client, f"/players/{player_id(client, holder)}")).group()
    assert word in HEADERS.findall(figures)
    assert note in figures
    if preset != "classique":
        assert "Yams" not in figures

    with app.test_request_context(headers={"Accept-Language": language}):
        record, state = load(
            app.extensions[STORE_EXTENSION], games[preset], household=HOME_HOUSEHOLD
        )
        card = card_html(record, state)
    assert f'<p class="yams">{card_line}</p>' in card


def test_a_player_of_two_games_has_both_words_in_one_column(app, client):
    """Rows of a classique and a Kniffel game under one heading: « Yams / Kniffel », each
    word once however many rule sets say it."""
    kniffel = {**KNIFFEL_GAME, "players": ["Mag"]}
    kniffel["entries"] = [{**entry, "player": "Mag"} for entry in kniffel["entries"]]
    with_vache = solo_document("Mag")
    with_vache["rules"] = {"preset": "classique", "vache": True}
    import_documents(app.extensions[STORE_EXTENSION], CLASSIQUE_GAME, kniffel, with_vache)
    figures = FIGURES.search(page(client, f"/players/{player_id(client, 'Mag')}")).group()
    rows = re.findall(r'<th scope="row">', figures)
    assert len(rows) == 3
    heading = next(h for h in HEADERS.findall(figures) if "Kniffel" in h)
    assert sorted(heading.split(" / ")) == ["Kniffel", "Yams"]
    assert f"{heading} : part des parties avec au moins un {heading}." in figures


def test_the_pages_of_players_of_a_game_won_at_once_show_their_figures(app, client):
    """A servida at the first turn leaves every box of the other seat empty, and most of
    the winner's: nothing filled is nothing barred, 0 %, not an error."""
    won_at_once = {
        "rules": {"preset": "generala"},
        "players": ["Lou", "Bob"],
        "entries": [{"player": "Lou", "box": "generala", "dice": [3] * 5, "throw": 1}],
        **FINISHED,
    }
    import_documents(app.extensions[STORE_EXTENSION], won_at_once)
    for name in ("Lou", "Bob"):
        figures = FIGURES.search(page(client, f"/players/{player_id(client, name)}")).group()
        assert "Generala" in HEADERS.findall(figures)


def test_maxi_yatzy_s_record_says_its_six_alike_in_its_word(app, client):
    """Maxi Yatzy's six alike is its « Maxiyatzy » box (docs/rules.md §15)."""
    rules = Rules.from_dict({"preset": "maxi_yatzy"})
    document = random_document(rules, ["Zoé"], random.Random(3))
    import_documents(app.extensions[STORE_EXTENSION], document)
    records = RECORDS.search(page(client, f"/hall-of-fame?rules={rules_key(rules.to_dict())}"))
    assert "<dt>Le plus de Maxiyatzy dans une partie</dt>" in records.group()
    figures = FIGURES.search(page(client, f"/players/{player_id(client, 'Zoé')}")).group()
    assert "Maxiyatzy" in HEADERS.findall(figures)
