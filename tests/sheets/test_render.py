"""Rendering: valid PDFs of the right size and page count, with the right words in them."""

import io

import pytest
from pypdf import PdfReader

from scorekeeper.rules import Rules
from scorekeeper.sheets import PAPERS, BlankGrid
from scorekeeper.sheets import pdf as sheets_pdf
from scorekeeper.sheets.fetcher import STATIC_BASE_URL, StaticFilesFetcher
from scorekeeper.sheets.pdf import blank_pdf, game_pdf
from scorekeeper.sheets.render import render_pdf
from scorekeeper.store.play import load, play_turn, start_game

SIZES = {"a4": (595, 842), "letter": (612, 792)}


def read(pdf: bytes) -> PdfReader:
    assert pdf.startswith(b"%PDF-") and pdf.rstrip().endswith(b"%%EOF")
    return PdfReader(io.BytesIO(pdf))


def words(page) -> str:
    """The page's text with every run of spaces and line breaks as one space."""
    return " ".join(page.extract_text().split())


def page_size(page) -> tuple[int, int]:
    return round(float(page.mediabox.width)), round(float(page.mediabox.height))


@pytest.fixture
def ctx(app):
    with app.test_request_context("/"):
        yield app


RULES = {
    "classique": Rules(),
    "triple": Rules.from_dict({"preset": "triple"}),
    "sec": Rules.from_dict({"columns": ["free", "sec"]}),
    "triple sec": Rules.from_dict({"preset": "triple", "columns": ["free", "down", "up", "sec"]}),
    "plus_minus": Rules.from_dict({"plus_minus": True}),
    "yatzy": Rules.from_dict({"preset": "yatzy"}),
    "everything": Rules.from_dict({
        "preset": "triple", "columns": ["free", "down", "up", "sec"], "vache": True,
        "four_kind": "base", "three_kind": "base", "full_house": "base", "joker": "free",
        "plus_minus": True, "dice": 6}),
}


@pytest.mark.parametrize("paper", sorted(PAPERS))
@pytest.mark.parametrize("name", sorted(RULES))
def test_every_blank_grid_is_one_page_of_its_paper(ctx, name, paper):
    grid = BlankGrid(RULES[name], PAPERS[paper])
    _key, pdf = blank_pdf(grid)
    reader = read(pdf)
    assert len(reader.pages) == 1, "the grid overflowed onto another page"
    width, height = SIZES[paper]
    assert page_size(reader.pages[0]) == ((height, width) if grid.landscape else (width, height))
    text = words(reader.pages[0])
    for label in ("As", "Six", "Total haut", "Total bas", "Brelan", "Carré", "Total"):
        assert label in text
    assert text.count("Nom") == grid.games_per_page and text.count("Date") == grid.games_per_page
    assert ("Prime Yams (+100)" in text) is grid.rules.has_yams_bonus


def test_many_pages_share_one_drawing(ctx):
    one = blank_pdf(BlankGrid(Rules(), PAPERS["a4"], 1))[1]
    twenty = blank_pdf(BlankGrid(Rules(), PAPERS["a4"], 20))[1]
    reader = read(twenty)
    assert len(reader.pages) == 20
    assert all(page_size(page) == SIZES["a4"] for page in reader.pages)
    assert reader.pages[19].extract_text() == reader.pages[0].extract_text()
    # Twenty pages weigh barely more than one: they are one content stream, referenced.
    assert len(twenty) < len(one) + 20 * 200


def test_blank_grids_are_deterministic(ctx):
    grid = BlankGrid(RULES["triple"], PAPERS["letter"], 2)
    first = render_pdf(sheets_pdf.blank_html(grid), ctx.static_folder, copies=2)
    assert render_pdf(sheets_pdf.blank_html(grid), ctx.static_folder, copies=2) == first


def test_hints_and_rules_reflect_the_options(ctx):
    text = words(read(blank_pdf(BlankGrid(RULES["everything"], PAPERS["a4"]))[1]).pages[0])
    for expected in ("Plus", "Moins", "10 + les trois dés pareils", "20 + les quatre dés pareils",
                  "10 + la somme des dés", "Descendante", "Montante", "Sec",
                  "règle de la vache", "joker libre", "Yams 6"):
        assert expected in text
    yatzy = words(read(blank_pdf(BlankGrid(RULES["yatzy"], PAPERS["a4"]))[1]).pages[0])
    assert "Paire" in yatzy and "Deux paires" in yatzy and "Prime (50)" in yatzy
    assert "15 points" in yatzy and "20 points" in yatzy


@pytest.fixture
def fetched(monkeypatch):
    """Every URL the locked fetcher is asked for, in this process: the tests below draw
    here rather than by a worker, where a spy could not see."""
    asked = []
    original = StaticFilesFetcher.fetch

    def spy(self, url, headers=None):
        asked.append(url)
        return original(self, url, headers)

    monkeypatch.setattr(StaticFilesFetcher, "fetch", spy)
    return asked


def test_the_stylesheet_comes_through_the_locked_fetcher(ctx, fetched):
    render_pdf(sheets_pdf.blank_html(BlankGrid(RULES["yatzy"], PAPERS["letter"])),
               ctx.static_folder)
    assert fetched == [STATIC_BASE_URL + "css/print.css"]


def test_a_hostile_name_loads_nothing(ctx, store, fetched):
    game_id = start_game(store, Rules(), ["<img src=/etc/passwd>",
                                          "<link rel=stylesheet href=/x.css>"])
    record, state = load(store, game_id)
    render_pdf(sheets_pdf.game_html(record, state, PAPERS["a4"]), ctx.static_folder)
    assert fetched == [STATIC_BASE_URL + "css/print.css"]


def test_a_game_sheet_prints_the_replayed_state(ctx, store):
    game_id = start_game(store, Rules(), ["Mag", "<img src=/etc/passwd>"])
    play_turn(store, game_id, 0, "free", "sixes", "66662")
    play_turn(store, game_id, 1, "free", "yams", "12345")
    reader = read(game_pdf(store, game_id, PAPERS["letter"])[1])
    assert [page_size(page) for page in reader.pages] == [SIZES["letter"]]
    text = words(reader.pages[0])
    assert "<img src=/etc/passwd>" in text and "Mag" in text
    assert "24" in text and "✗" in text and "Classement provisoire" in text
    assert "à Mag de jouer" in text
