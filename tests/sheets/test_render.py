"""Rendering: valid PDFs of the right size and page count, with the right words in them."""

import json
import re
from contextlib import nullcontext
from html.parser import HTMLParser

import pytest
from flask import current_app
from weasyprint.formatting_structure.boxes import BlockBox, TableBox, TableCellBox, TextBox

from scorekeeper.play import load, play_turn, start_game
from scorekeeper.rules import Rules
from scorekeeper.sheets import PAPERS, BlankGrid
from scorekeeper.sheets import pdf as sheets_pdf
from scorekeeper.sheets.fetcher import STATIC_BASE_URL, StaticFilesFetcher
from scorekeeper.sheets.layout import MARGIN_MM
from scorekeeper.sheets.pdf import blank_pdf, game_pdf
from scorekeeper.sheets.render import render_pdf
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.documents import check_files
from scorekeeper.store.quotas import NO_QUOTAS
from scorekeeper.store.transfer import import_games
from scorekeeper.web.language import COOKIE
from tests.fixtures.finished_games import finished_game_document
from tests.support.prints import SIZES, laid_out, read


def blank(grid: BlankGrid) -> tuple[str, bytes]:
    """The grid's PDF, asked for by the home household."""
    return blank_pdf(grid, household=HOME_HOUSEHOLD, paying=nullcontext)


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
    "yahtzee": Rules.from_dict({"preset": "yahtzee", "joker": "free_choice"}),
    "kniffel": Rules.from_dict({"preset": "kniffel"}),
    "everything": Rules.from_dict(
        {
            "preset": "triple",
            "columns": ["free", "down", "up", "sec"],
            "vache": True,
            "four_kind": "base",
            "three_kind": "base",
            "full_house": "base",
            "joker": "free",
            "plus_minus": True,
            "dice": 6,
        }
    ),
    "matching": Rules.from_dict(
        {
            "three_kind": "matching",
            "four_kind": "matching",
            "vache": True,
            "dice": 6,
            "plus_minus": True,
        }
    ),
}


@pytest.mark.parametrize("paper", sorted(PAPERS))
@pytest.mark.parametrize("name", sorted(RULES))
def test_every_blank_grid_is_one_page_of_its_paper(ctx, name, paper):
    grid = BlankGrid(RULES[name], PAPERS[paper])
    _key, pdf = blank(grid)
    reader = read(pdf)
    assert len(reader.pages) == 1, "the grid overflowed onto another page"
    width, height = SIZES[paper]
    assert reader.pages[0].size == ((height, width) if grid.landscape else (width, height))
    text = reader.pages[0].words()
    rules = grid.rules
    boxes = [rules.box_labels[box] for box in ("ones", "sixes", "three_kind", "four_kind")]
    for label in ("Total haut", "Total bas", "Total", *boxes):
        assert label in text
    # A name above each game, or once for a block's page (Kniffel's).
    assert text.count("Nom") == (1 if grid.one_player else grid.games_per_page)
    assert text.count("Date") == grid.games_per_page
    assert (f"(+{rules.yams_bonus_points})" in text) is bool(rules.yams_bonus_points)


def test_many_pages_share_one_drawing(ctx):
    one = blank(BlankGrid(Rules(), PAPERS["a4"], 1))[1]
    twenty = blank(BlankGrid(Rules(), PAPERS["a4"], 20))[1]
    reader = read(twenty)
    assert len(reader.pages) == 20
    assert all(page.size == SIZES["a4"] for page in reader.pages)
    assert reader.pages[19].text == reader.pages[0].text
    # Twenty pages weigh barely more than one: they are one content stream, referenced.
    assert len(twenty) < len(one) + 20 * 200


def test_blank_grids_are_deterministic(ctx):
    grid = BlankGrid(RULES["triple"], PAPERS["letter"], 2)
    first = render_pdf(sheets_pdf.blank_html(grid), ctx.static_folder, copies=2)
    assert render_pdf(sheets_pdf.blank_html(grid), ctx.static_folder, copies=2) == first


def blank_text(rules, paper="a4"):
    return read(blank(BlankGrid(rules, PAPERS[paper]))[1]).pages[0].words()


def test_hints_and_rules_reflect_the_options(ctx):
    text = blank_text(RULES["everything"])
    for expected in (
        "Plus",
        "Moins",
        "≥ 3 dés pareils · 10 + ces 3 dés",
        "≥ 4 dés pareils · 20 + ces 4 dés",
        "brelan + paire · 10 + les 5 dés",
        "Descendante",
        "Montante",
        "Sec",
        "règle de la vache",
        "joker libre",
        "Yams 6",
    ):
        assert expected in text
    yatzy = blank_text(RULES["yatzy"])
    assert "Paire" in yatzy and "Deux paires" in yatzy and "Prime (50)" in yatzy
    assert "1-2-3-4-5 · 15 points" in yatzy and "2-3-4-5-6 · 20 points" in yatzy


def test_every_box_says_when_it_scores_and_what(ctx):
    text = blank_text(RULES["classique"])
    for hint in (
        "total des 1",
        "total des 6",
        "≥ 3 dés pareils · somme des 5 dés",
        "≥ 4 dés pareils · somme des 5 dés",
        "brelan + paire · 25 points",
        "1234, 2345 ou 3456 · 30 points",
        "12345 ou 23456 · 40 points",
        "5 dés pareils · 50 points",
        "tout lancer · somme des 5 dés",
        "si le total haut fait 63 ou plus",
    ):
        assert hint in text
    matching = blank_text(RULES["matching"])
    assert "≥ 3 dés pareils · 3 × la face" in matching
    assert "≥ 4 dés pareils · 4 × la face" in matching


def test_yatzy_speaks_yatzy(ctx):
    text = blank_text(RULES["yatzy"])
    assert "Yatzy 5 dés pareils · 50 points" in text
    assert "Yams" not in text
    assert "Joker" not in text and "+100" not in text


@pytest.mark.parametrize(
    ("name", "notes", "absent"),
    [
        (
            "classique",
            [
                "Une case par tour",
                "Joker : un Yams, case Yams remplie, va en haut",
                "(Full 25, suites 30 et 40)",
                "+100 : une coche par Yams de plus",
            ],
            ["Joker libre", "Vache", "Yams 6", "Plus et Moins :", "Sec :", "Descendante :"],
        ),
        (
            "everything",
            [
                "Joker libre : un Yams",
                "Vache : sur une ligne",
                "Yams 6 : on lance six dés",
                "Plus et Moins : le Plus doit finir",
                "Sec : un seul lancer",
                "Descendante : de haut en bas",
            ],
            ["Joker : un Yams"],
        ),
    ],
)
def test_footnotes_explain_the_options_in_force(ctx, name, notes, absent):
    text = blank_text(RULES[name])
    for note in notes:
        assert note in text
    for note in absent:
        assert note not in text


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
    render_pdf(
        sheets_pdf.blank_html(BlankGrid(RULES["yatzy"], PAPERS["letter"])), ctx.static_folder
    )
    assert fetched == [STATIC_BASE_URL + "css/print.css"]


def test_a_hostile_name_loads_nothing(ctx, store, fetched):
    game_id = start_game(
        store,
        Rules(),
        ["<img src=/etc/passwd>", "<link rel=stylesheet href=/x.css>"],
        household=HOME_HOUSEHOLD,
        quotas=NO_QUOTAS,
    )
    record, state = load(store, game_id, household=HOME_HOUSEHOLD)
    render_pdf(sheets_pdf.game_html(record, state, PAPERS["a4"]), ctx.static_folder)
    assert fetched == [STATIC_BASE_URL + "css/print.css"]


def test_a_game_sheet_prints_the_replayed_state(ctx, store):
    game_id = start_game(
        store, Rules(), ["Mag", "<img src=/etc/passwd>"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS
    )
    play_turn(store, game_id, 0, "free", "sixes", "66662", household=HOME_HOUSEHOLD)
    play_turn(store, game_id, 1, "free", "yams", "12345", household=HOME_HOUSEHOLD)
    reader = read(
        game_pdf(
            *load(store, game_id, household=HOME_HOUSEHOLD),
            PAPERS["letter"],
            household=HOME_HOUSEHOLD,
            paying=nullcontext,
        )[1]
    )
    assert [page.size for page in reader.pages] == [SIZES["letter"]]
    text = reader.pages[0].words()
    assert "<img src=/etc/passwd>" in text and "Mag" in text
    assert "24" in text and "✗" in text and "Classement provisoire" in text
    assert "à Mag de jouer" in text


def test_a_finished_sheet_prints_the_bonus_result_whole(ctx, store):
    document = finished_game_document(["bonus", "poor", "close", "bonus"] * 2)
    [game_id] = import_games(
        store,
        check_files([("game.json", json.dumps(document))]),
        household=HOME_HOUSEHOLD,
        quotas=NO_QUOTAS,
    )
    reader = read(
        game_pdf(
            *load(store, game_id, household=HOME_HOUSEHOLD),
            PAPERS["a4"],
            household=HOME_HOUSEHOLD,
            paying=nullcontext,
        )[1]
    )
    lines = [" ".join(line.split()) for page in reader.pages for line in page.text.splitlines()]
    text = " ".join(lines)
    assert text.count("35 ✓") == 4
    # A miss wrapped in a narrow column may come out of the PDF with no space at its break.
    misses = re.findall(r"manqué ?de (\d+)", text)
    assert sorted(misses) == ["1", "1", "42", "42"]
    assert "encore" not in text
    # "35 ✓" never wrapped, even in the narrowest column; a miss may take two lines there.
    assert not any(line.endswith("35") for line in lines)


MM = 96 / 25.4  # WeasyPrint lays out in CSS pixels


def _laid_out(html):
    return laid_out(html, current_app.static_folder)


def _layout(grid):
    """The first page of the grid as WeasyPrint lays it out, and its boxes with a class."""
    document = _laid_out(sheets_pdf.blank_html(grid))
    page = document.pages[0]
    classes = [
        (box.element.get("class") or "", box)
        for box in page._page_box.descendants()
        if isinstance(box, BlockBox) and getattr(box, "element", None) is not None
    ]
    return document, page, classes


@pytest.mark.parametrize("language", ["fr", "en"])
@pytest.mark.parametrize("paper", sorted(PAPERS))
@pytest.mark.parametrize("name", sorted(RULES))
def test_games_fill_the_page_and_hints_keep_to_one_line(app, name, paper, language):
    with app.test_request_context("/", headers={"Cookie": f"{COOKIE}={language}"}):
        grid = BlankGrid(RULES[name], PAPERS[paper])
        document, page, classes = _layout(grid)
    assert len(document.pages) == 1, "the grid overflowed onto another page"
    hints = [box for kind, box in classes if kind == "hint"]
    extra_yams = bool(grid.rules.yams_bonus_points)
    assert len(hints) == len(grid.rules.boxes) + 1 + extra_yams
    # Every hint of a box or of the upper bonus on one line: a second would eat the room of
    # the pencil (the extra-Yams row is taller and may take two).
    box_hints = hints[:-1] if extra_yams else hints
    assert all(len(hint.children) == 1 for hint in box_hints), [
        hint.children[0].children[0].text for hint in box_hints if len(hint.children) > 1
    ]
    [footer] = [box for kind, box in classes if kind == "print-foot notes"]
    bottom = page.height - MARGIN_MM * MM
    left_blank = (bottom - (footer.position_y + footer.height)) / MM
    assert 0 <= left_blank <= 8, f"{left_blank:.1f} mm left blank under the notes"


PT = 96 / 72  # CSS pixels in a point


def _finished(store, players):
    document = finished_game_document((["bonus", "poor", "close"] * 3)[:players])
    [game_id] = import_games(
        store,
        check_files([("game.json", json.dumps(document))]),
        household=HOME_HOUSEHOLD,
        quotas=NO_QUOTAS,
    )
    return game_id


def _triple_under_way(store, players):
    """Triple in progress: the widest table (12 columns), with the bonus row's pace words
    and « à son tour »."""
    names = [f"Joueur {seat + 1}" for seat in range(players)]
    rules = Rules.from_dict({"preset": "triple"})
    game_id = start_game(store, rules, names, household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
    for seq in range(players):  # each player's ones, then the first player's twos
        play_turn(store, game_id, seq, "down", "ones", "11234", household=HOME_HOUSEHOLD)
    play_turn(store, game_id, players, "down", "twos", "22666", household=HOME_HOUSEHOLD)
    return game_id


SHEETS = {
    "finished, 2 players": lambda store: _finished(store, 2),
    "finished, 6 players": lambda store: _finished(store, 6),
    "finished, 8 players": lambda store: _finished(store, 8),
    "triple under way, 4 players": lambda store: _triple_under_way(store, 4),
}


@pytest.mark.parametrize("language", ["fr", "en"])
@pytest.mark.parametrize("paper", sorted(PAPERS))
@pytest.mark.parametrize("sheet", sorted(SHEETS))
def test_a_filled_sheet_fills_the_page_width_and_reads_at_8_points(
    app, store, sheet, paper, language
):
    """The filled sheet's table spans the printable width, whatever the number of players,
    and no text on it is smaller than 8 pt or wider than its cell (the bonus row's words
    included)."""
    game_id = SHEETS[sheet](store)
    with app.test_request_context("/", headers={"Cookie": f"{COOKIE}={language}"}):
        record, state = load(store, game_id, household=HOME_HOUSEHOLD)
        pages = _laid_out(sheets_pdf.game_html(record, state, PAPERS[paper])).pages
    for page in pages:
        printable = page.width - 2 * MARGIN_MM * MM
        boxes = list(page._page_box.descendants())
        tables = [box for box in boxes if isinstance(box, TableBox)]
        assert tables and all(table.width >= 0.95 * printable for table in tables)
        small = {
            box.text: box.style["font_size"] / PT
            for box in boxes
            if isinstance(box, TextBox) and box.style["font_size"] < 8 * PT - 0.01
        }
        assert not small, small
        # Nor wider than its cell: a number or a word of the bonus row running into the next.
        overflowing = [
            text.text
            for cell in boxes
            if isinstance(cell, TableCellBox)
            for text in cell.descendants()
            if isinstance(text, TextBox)
            and text.position_x + text.width > cell.position_x + cell.border_width() + 0.5
        ]
        assert not overflowing, overflowing


class _SheetRows(HTMLParser):
    """Each body row's label and the texts of its cells, as a reader sees them.

    Texts only for screen readers (and the short forms shown in narrow columns) are left out.
    """

    LEFT_OUT = {"visually-hidden", "short-form", "hint"}
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

    from scorekeeper.play import load
    from scorekeeper.sheets.pdf import game_html

    column = "down" if rules == "triple" else "free"
    game_id = start_game(
        store, RULES[rules], ["Mag", "Alix", "Chloé"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS
    )
    turns = [
        ("66666", "ones" if rules == "triple" else "yams"),
        ("12345", "ones"),
        ("66612", "ones"),
    ]
    if rules == "classique":
        turns += [("66666", "sixes"), ("22345", "yams")]
    for seq, (dice, box) in enumerate(turns):
        play_turn(store, game_id, seq, column, box, dice, household=HOME_HOUSEHOLD)
    record, state = load(store, game_id, household=HOME_HOUSEHOLD)
    screen = _SheetRows(get_template_attribute("games/_sheet.html", "sheet_table")(state)).rows
    paper = _SheetRows(game_html(record, state, PAPERS["a4"])).rows
    assert set(screen) == set(paper)
    assert screen == paper


def test_kniffel_prints_its_block_in_its_own_words(ctx):
    # docs/rules.md §12: German boxes on a French page, six games of one player a page.
    text = blank_text(RULES["kniffel"])
    for words_of_the_block in (
        "Einser",
        "Sechser",
        "Dreierpasch",
        "Viererpasch",
        "Full House",
        "Kleine Straße",
        "Große Straße",
        "Kniffel",
        "Chance",
        "Prime Kniffel (+50)",
    ):
        assert words_of_the_block in text
    assert [f"Partie {number}" in text for number in range(1, 8)] == [True] * 6 + [False]
    assert "Kniffel en plus, case Kniffel remplie : dans la case du haut de sa face" in text
    assert "Prime Yams" not in text and "+100" not in text and "Brelan" not in text


def test_yahtzee_prints_its_name_and_its_joker(ctx):
    text = blank_text(RULES["yahtzee"])
    assert text.startswith("Yahtzee")
    assert "Prime Yahtzee (+100)" in text and "joker au choix" in text
    # The game's word for the box of five alike, in the notes and the +100's row.
    assert "Joker au choix : un Yahtzee, case Yahtzee remplie, va dans n'importe" in text
    assert "une coche par Yahtzee en plus, quand la case Yahtzee vaut 50" in text
    assert "Yams" not in text
    # Its other boxes in the page's language, as on the classique sheet.
    assert "Brelan" in text and "Dreierpasch" not in text
