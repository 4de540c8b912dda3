"""Maxi Yatzy on paper (docs/rules.md §15): its blank grid of twenty Swedish rows, one page
on A4 and Letter in every language, with what each box scores, the bonus at 84 and a row for
the saved throws; a played game's sheet with each player's saved throws."""

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

MAXI = Rules.from_dict({"preset": "maxi_yatzy"})
SWEDISH = ("Ettor", "Sexor", "Ett par", "Tre par", "Femtal", "Full straight", "Kåk", "Hus", "Torn")


def test_the_grid_has_twenty_boxes_the_bonus_and_the_saved_throws():
    kinds = [row.kind for row in grid_rows(MAXI)]
    assert kinds.count("box") == 20
    assert "upper_bonus" in kinds and "yams_bonus" not in kinds
    assert kinds[-1] == "saved_throws"
    said = {box: box_hint(MAXI, box) for box in MAXI.boxes}
    assert said["full_straight"].text % said["full_straight"].params == "1-2-3-4-5-6 · 21 points"
    assert said["maxi_yatzy"].text % said["maxi_yatzy"].params == "6 dés pareils · 100 points"
    assert said["villa"].text % said["villa"].params == "2 brelans · somme des 6 dés"
    notes = " ".join(note.text % note.params for note in footnotes(MAXI))
    assert "Lancers gardés : trois lancers par tour" in notes
    assert "Yams 6" not in notes and "Joker" not in notes and "+100" not in notes


@pytest.mark.parametrize("language", ["fr", "en", "de", "es", "sv"])
@pytest.mark.parametrize("paper", sorted(PAPERS))
def test_the_blank_grid_is_one_page_in_swedish_words(app, paper, language):
    with app.test_request_context("/", headers={"Cookie": f"{COOKIE}={language}"}):
        grid = BlankGrid(MAXI, PAPERS[paper])
        _key, pdf = blank_pdf(grid, household=HOME_HOUSEHOLD, paying=nullcontext)
        document = laid_out(sheets_pdf.blank_html(grid), app.static_folder)
    assert len(read(pdf).pages) == 1
    text = printed_text(read(pdf))
    for name in SWEDISH:
        assert name in text
    assert "84" in text and "100" in text
    assert "Yams" not in text.split("Maxi")[0]
    # Every hint on one line, the games down to the notes.
    assert len(document.pages) == 1
    hints = blocks_of_class(document.pages[0], "hint")
    # One a box, the bonus's and the saved throws'.
    assert len(hints) == len(MAXI.boxes) + 2
    if language == "de":
        return  # German's longer words wrap some hints on every grid, classique's too
    assert all(len(hint.children) == 1 for hint in hints), [
        hint.children[0].children[0].text for hint in hints if len(hint.children) > 1
    ]


def test_a_played_game_prints_each_players_saved_throws(app, store):
    game_id = start_game(store, MAXI, ["Mag", "Alix"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    turns = [("villa", "222555", 1), ("tower", "336666", None), ("chance", "666665", None)]
    for seq, (box, dice, throws) in enumerate(turns):
        play_turn(store, game_id, seq, "free", box, dice, household=HOME_HOUSEHOLD, throws=throws)
    record, state = load(store, game_id, household=HOME_HOUSEHOLD)
    assert state.saved_throws == (2, 0)
    with app.test_request_context("/", headers={"Cookie": f"{COOKIE}=fr"}):
        pdf = game_pdf(record, state, PAPERS["a4"], household=HOME_HOUSEHOLD, paying=nullcontext)
    text = printed_text(read(pdf[1]))
    # The totals, then the saved throws, as the text of the table's cells runs.
    assert "Lancers gardés" in text and "56 30 2 0" in text
    for name in ("Hus", "Torn", "Chans"):
        assert name in text


def test_the_print_page_offers_the_blank_maxi_yatzy_grid(client):
    html = client.get("/print").get_data(as_text=True)
    assert 'name="preset" value="maxi_yatzy"' in html
    response = client.get("/sheets/blank.pdf?preset=maxi_yatzy&paper=letter&pages=2")
    assert response.status_code == 200
    assert len(read(response.data).pages) == 2
    # No option of the other games on a Maxi Yatzy grid: said, not ignored.
    refused = client.get("/sheets/blank.pdf?preset=maxi_yatzy&vache=1")
    assert refused.status_code == 400
