"""Rendering: valid PDFs of the right size and page count, with the right words in them."""

import io
from html.parser import HTMLParser

import pytest
from pypdf import PdfReader

from scorekeeper.rules import Rules
from scorekeeper.sheets import PAPERS, BlankGrid, blank_pdf, game_pdf, render_pdf
from scorekeeper.sheets import pdf as sheets_pdf
from scorekeeper.sheets.fetcher import STATIC_BASE_URL, StaticFilesFetcher
from scorekeeper.store.play import play_turn, start_game

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


def test_the_stylesheet_comes_through_the_locked_fetcher(ctx, monkeypatch):
    asked = []
    original = StaticFilesFetcher.fetch

    def spy(self, url, headers=None):
        asked.append(url)
        return original(self, url, headers)

    monkeypatch.setattr(StaticFilesFetcher, "fetch", spy)
    blank_pdf(BlankGrid(RULES["yatzy"], PAPERS["letter"]))
    assert asked == [STATIC_BASE_URL + "css/print.css"]


def test_a_game_sheet_prints_the_replayed_state(ctx, store):
    game_id = start_game(store, Rules(), ["Mag", "<img src=/etc/passwd>"])
    play_turn(store, game_id, 0, "free", "sixes", "66662")
    play_turn(store, game_id, 1, "free", "yams", "12345")
    reader = read(game_pdf(store, game_id, PAPERS["letter"]))
    assert [page_size(page) for page in reader.pages] == [SIZES["letter"]]
    text = words(reader.pages[0])
    assert "<img src=/etc/passwd>" in text and "Mag" in text
    assert "24" in text and "✗" in text and "Classement provisoire" in text
    assert "à Mag de jouer" in text


class _SheetRows(HTMLParser):
    """Each body row's label and the texts of its cells, as a reader sees them.

    Texts only for screen readers (and the short forms shown in narrow columns) are left out.
    """

    LEFT_OUT = {"visually-hidden", "missing-short", "hint"}
    VOID = {"meta", "link", "br", "img", "input", "hr", "col"}

    def __init__(self, html: str):
        super().__init__()
        self.rows: dict[str, list[str]] = {}
        self._left_out: list[bool] = []  # per open element
        self._in_body = False
        self._text: list[str] | None = None  # the th or td being read
        self._row: list[str] = []  # its label, then its cells' texts
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        if tag in self.VOID:
            return
        classes = set((dict(attrs).get("class") or "").split())
        self._left_out.append(bool(self.LEFT_OUT & classes) or any(self._left_out))
        if tag == "tbody":
            self._in_body = True
        elif self._in_body and tag == "tr":
            self._row = []
        elif self._in_body and tag in ("th", "td"):
            self._text = []

    def handle_endtag(self, tag):
        self._left_out.pop()
        if tag == "tbody":
            self._in_body = False
        elif self._in_body and tag in ("th", "td"):
            self._row.append(" ".join("".join(self._text).split()))
            self._text = None
        elif self._in_body and tag == "tr":
            label, *cells = self._row
            self.rows.setdefault(label, []).extend(cells)

    def handle_data(self, data):
        if self._text is not None and not any(self._left_out):
            self._text.append(data)


@pytest.mark.parametrize("rules", ["classique", "triple"])
def test_the_printed_sheet_shows_what_the_screen_shows(ctx, store, rules):
    """Every box and every total, blank or not, reads the same on paper and on screen: a sum
    stays blank until its part of the column is started, the Prime Yams until one is won."""
    from flask import get_template_attribute

    from scorekeeper.sheets.pdf import game_html
    from scorekeeper.store.play import load

    column = "down" if rules == "triple" else "free"
    game_id = start_game(store, RULES[rules], ["Mag", "Alix", "Chloé"])
    turns = [("66666", "ones" if rules == "triple" else "yams"), ("12345", "ones"),
             ("66612", "ones")]
    if rules == "classique":
        turns += [("66666", "sixes"), ("22345", "yams")]
    for seq, (dice, box) in enumerate(turns):
        play_turn(store, game_id, seq, column, box, dice)
    record, state = load(store, game_id)
    screen = _SheetRows(get_template_attribute("games/_sheet.html", "sheet_table")(state)).rows
    paper = _SheetRows(game_html(record, state, PAPERS["a4"])).rows
    assert set(screen) == set(paper)
    assert screen == paper
