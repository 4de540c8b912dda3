"""Generala on paper (docs/rules.md §14): its blank grid, one page, its boxes in Spanish in
every language with what they score, no upper bonus; a played game's sheet with its
servidas and the game won at once."""

from contextlib import nullcontext

import pytest

from scorekeeper.play import load, play_turn, start_game
from scorekeeper.rules import Rules
from scorekeeper.sheets import PAPERS, BlankGrid
from scorekeeper.sheets import pdf as sheets_pdf
from scorekeeper.sheets.hints import box_hint, footnotes
from scorekeeper.sheets.layout import grid_rows
from scorekeeper.sheets.pdf import blank_pdf, game_pdf
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.quotas import NO_QUOTAS
from scorekeeper.web.language import COOKIE
from tests.support.prints import blocks_of_class, laid_out, read
from tests.support.prints import text as printed_text

GENERALA = Rules.from_dict({"preset": "generala"})
SPANISH = ("Escalera", "Full", "Póker", "Generala", "Doble Generala")


def test_the_grid_has_no_bonus_row_and_says_the_servida():
    kinds = [row.kind for row in grid_rows(GENERALA)]
    assert "upper_bonus" not in kinds and "yams_bonus" not in kinds
    assert kinds.count("box") == 11
    hint = box_hint(GENERALA, "full_house")
    assert hint.text % hint.params == "brelan + paire · 30, servida 35"
    plain = Rules.from_dict({"preset": "generala", "servida": False, "ace_high_straight": True})
    hint = box_hint(plain, "straight")
    assert hint.text % hint.params == "12345, 23456 ou 34561 · 20 points"
    hint = box_hint(GENERALA, "double_generala")
    assert hint.text % hint.params == "2e Generala · 100 points"
    notes = " ".join(note.text % note.params for note in footnotes(GENERALA))
    assert "l'Escalera vaut 25, le Full 35, le Póker 45" in notes
    assert "la partie est gagnée" in notes
    assert "Joker" not in notes and "+100" not in notes


@pytest.mark.parametrize("language", ["fr", "en"])
@pytest.mark.parametrize("paper", sorted(PAPERS))
def test_the_blank_grid_is_one_page_in_spanish_words(app, paper, language):
    with app.test_request_context("/", headers={"Cookie": f"{COOKIE}={language}"}):
        grid = BlankGrid(GENERALA, PAPERS[paper])
        _key, pdf = blank_pdf(grid, household=HOME_HOUSEHOLD, paying=nullcontext)
        document = laid_out(sheets_pdf.blank_html(grid), app.static_folder)
    assert len(read(pdf).pages) == 1
    text = printed_text(read(pdf))
    for name in SPANISH:
        assert name in text
    assert "Generala" in text.split()[0]  # the title
    assert "Prime" not in text and "Bonus" not in text and "Yams" not in text
    assert ("Total haut" if language == "fr" else "Upper total") in text
    # Every hint on one line, the games down to the notes.
    assert len(document.pages) == 1
    hints = blocks_of_class(document.pages[0], "hint")
    assert len(hints) == len(GENERALA.boxes)
    assert all(len(hint.children) == 1 for hint in hints), [
        hint.children[0].children[0].text for hint in hints if len(hint.children) > 1
    ]


def test_a_played_game_prints_its_servidas_and_the_win(app, store):
    game_id = start_game(
        store, GENERALA, ["Mag", "Alix"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS
    )
    turns = [
        ("full_house", "22333", 1),
        ("straight", "12345", None),
        ("generala", "44444", 1),
    ]
    for seq, (box, dice, throw) in enumerate(turns):
        play_turn(store, game_id, seq, "free", box, dice, household=HOME_HOUSEHOLD, throw=throw)
    record, state = load(store, game_id, household=HOME_HOUSEHOLD)
    assert state.is_over and state.winner == 0
    with app.test_request_context("/", headers={"Cookie": f"{COOKIE}=en"}):
        pdf = game_pdf(record, state, PAPERS["a4"], household=HOME_HOUSEHOLD, paying=nullcontext)
    text = printed_text(read(pdf[1]))
    assert "Mag wins at once: Generala servida!" in text
    assert "35 S" in text and "50 ★" in text
    for name in SPANISH:
        assert name in text
