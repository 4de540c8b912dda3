"""Printing through the Flask test client: the print page, blank grids, and game sheets."""

from html.parser import HTMLParser

import pytest

from scorekeeper.app import STORE_EXTENSION, create_app
from scorekeeper.rules.options import OPTION_BY_NAME, OPTIONS, PRESETS, SEC
from scorekeeper.sheets import blank_grid_from_query
from scorekeeper.sheets import pdf as sheets_pdf
from scorekeeper.sheets.workers import PdfWorkers, PrintersBusy
from scorekeeper.web import prints
from tests.support.games import GAME
from tests.support.prints import SIZES, pdf_of, sizes, text

HOSTILE = "<img src=/etc/passwd>"

RULE_SETS = {
    "classique": "preset=classique",
    "triple": "preset=triple",
    "sec": "preset=classique&sec=1",
    "triple sec": "preset=triple&sec=1",
    "plus_minus": "preset=classique&plus_minus=1",
    "yatzy": "preset=yatzy",
}


@pytest.fixture
def count_renders(monkeypatch):
    """How many times the PDF workers were asked to render, from now on."""
    calls = []
    original = PdfWorkers.render

    def counting(self, *args, **kwargs):
        calls.append(args)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(PdfWorkers, "render", counting)
    return calls


def test_print_page_offers_every_rule_set_paper_and_pages(client):
    page = client.get("/print").get_data(as_text=True)
    assert page.count('action="/sheets/blank.pdf"') == 7
    for value in (
        'value="classique"',
        'value="triple"',
        'value="yatzy"',
        'value="yahtzee"',
        'value="kniffel"',
        'value="generala"',
        'name="ace_high_straight"',
        'value="maxi_yatzy"',
        'value="a4"',
        'value="letter"',
        'name="pages"',
        'name="sec"',
        'name="plus_minus"',
    ):
        assert value in page
    assert "Imprimer des grilles" in page


class _Forms(HTMLParser):
    """The print page's grid forms: for each, its fields and the values each can send."""

    def __init__(self):
        super().__init__()
        self.forms, self._form, self._select = [], None, None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self._form = {}
            if attrs.get("action") == "/sheets/blank.pdf":
                self.forms.append(self._form)
        elif tag == "select":
            self._select = attrs["name"]
        elif tag == "option":
            self._form.setdefault(self._select, []).append(attrs["value"])
        elif tag == "input" and attrs.get("name") not in (None, "pages"):
            self._form.setdefault(attrs["name"], []).append(attrs["value"])


def test_print_page_offers_every_option_the_url_takes(client):
    parser = _Forms()
    parser.feed(client.get("/print").get_data(as_text=True))
    # Each preset's form has the options that preset has, each with every value; Generala
    # has no Sec column.
    assert [form["preset"] for form in parser.forms] == [[preset] for preset in PRESETS]
    for form in parser.forms:
        [preset] = form["preset"]
        mine = [option for option in OPTIONS if option.applies_to(preset)]
        sec = {SEC.name} if SEC.applies_to(preset) else set()
        assert set(form) == {"preset", "paper", *sec, *(option.name for option in mine)}
        for option in mine:
            assert sorted(form[option.name]) == sorted(
                choice.query
                for choice in option.choices
                if choice.value or not option.is_flag or option.default
            )
    # Each value of each field, alone, is read into the rules it names.
    for form in parser.forms:
        for field, values in form.items():
            for value in values if field != "preset" else []:
                rules = blank_grid_from_query([("preset", form["preset"][0]), (field, value)]).rules
                if field in OPTION_BY_NAME:
                    assert OPTION_BY_NAME[field].choice(getattr(rules, field)).query == value
    everything = (
        "preset=triple&sec=1&vache=1&plus_minus=1&four_kind=matching"
        "&three_kind=matching&full_house=base&joker=free&yams_bonus=0&dice=6"
    )
    assert "Brelan dés identiques" in text(pdf_of(client.get(f"/sheets/blank.pdf?{everything}")))


@pytest.mark.parametrize(
    "query",
    [
        "preset=classique&four_kind=sum&three_kind=sum&full_house=fixed25&paper=a4&pages=1",
        "preset=triple&sec=1&plus_minus=1&four_kind=fixed40&three_kind=base&full_house=base"
        "&paper=letter&pages=2",
        "preset=yatzy&sec=1&paper=a4&pages=1",
    ],
)
def test_what_the_print_page_forms_send_is_accepted(client, query):
    assert client.get(f"/sheets/blank.pdf?{query}").status_code == 200


def test_home_links_to_the_print_page(client):
    assert 'href="/print"' in client.get("/").get_data(as_text=True)


@pytest.mark.parametrize("paper", sorted(SIZES))
@pytest.mark.parametrize("name", sorted(RULE_SETS))
def test_blank_grid_for_every_rule_set_and_paper(client, name, paper):
    response = client.get(f"/sheets/blank.pdf?{RULE_SETS[name]}&paper={paper}&pages=2")
    reader = pdf_of(response)
    assert len(reader.pages) == 2
    width, height = SIZES[paper]
    landscape = name in ("triple", "triple sec")
    assert sizes(reader) == {(height, width) if landscape else (width, height)}
    words = text(reader)
    for label in ("As", "Deux", "Six", "Total haut", "Brelan", "Full", "Total bas", "Total"):
        assert label in words
    assert ("Paire" in words) is (name == "yatzy")
    assert ("Moins" in words) is (name == "plus_minus")
    assert ("Sec" in words) is ("sec" in name)
    assert 'inline; filename="yams-grille-' in response.headers["Content-Disposition"]


def test_six_games_a_page_in_one_column(client):
    words = text(pdf_of(client.get("/sheets/blank.pdf")))
    assert words.count("Nom") == 6 and words.count("Date") == 6
    assert "Prime (35)" in words and "Prime Yams (+100)" in words


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("paper=a3", "Format de papier inconnu : « a3 » (a4 ou letter)."),
        ("pages=0", "Le nombre de pages va de 1 à 50 : « 0 » ne convient pas."),
        ("pages=1000", "Le nombre de pages va de 1 à 50 : « 1000 » ne convient pas."),
        (
            "preset=poker",
            "Règles inconnues : « poker » "
            "(classique, triple, yatzy, yahtzee, kniffel, generala ou maxi_yatzy).",
        ),
        ("size=xl", "Option de règle inconnue : « size »."),
        ("four_kind=60", "Valeur inconnue pour l&#39;option « four_kind » : « 60 »"),
        ("sec=maybe", "Le paramètre « sec » vaut 1 ou 0, pas « maybe »."),
        (
            "preset=yatzy&plus_minus=1",
            "L&#39;option « plus_minus » ne s&#39;applique pas au Yatzy.",
        ),
        ("pages=2&pages=3", "Le paramètre « pages » est donné deux fois."),
        ("pages=%C2%B2", "Le nombre de pages va de 1 à 50 : « ² » ne convient pas."),
        ("pages=%D9%A3", "Le nombre de pages va de 1 à 50 : « ٣ » ne convient pas."),
        ("dice=%C2%B2", "Valeur inconnue pour l&#39;option « dice » : « ² »"),
        (f"preset={HOSTILE}", "« &lt;img src=/etc/passwd&gt; »"),
    ],
)
def test_bad_blank_queries_get_a_french_message(client, query, message):
    response = client.get(f"/sheets/blank.pdf?{query}")
    assert response.status_code == 400
    assert response.mimetype == "text/html"
    assert message in response.get_data(as_text=True)


def test_a_repeated_blank_grid_renders_nothing(client, count_renders):
    first = client.get("/sheets/blank.pdf?preset=triple&paper=letter&pages=3")
    assert len(count_renders) == 1
    again = client.get("/sheets/blank.pdf?paper=letter&pages=3&preset=triple")
    assert len(count_renders) == 1
    assert again.data == first.data and again.headers["ETag"] == first.headers["ETag"]
    # The tablet revalidates with the ETag and gets no body at all.
    unchanged = client.get(
        "/sheets/blank.pdf?preset=triple&paper=letter&pages=3",
        headers={"If-None-Match": first.headers["ETag"]},
    )
    assert unchanged.status_code == 304 and not unchanged.data
    assert len(count_renders) == 1
    client.get("/sheets/blank.pdf?preset=triple&paper=letter&pages=4")
    assert len(count_renders) == 2


def test_the_cache_survives_a_restart_in_the_instance_folder(
    app, client, instance_path, count_renders
):
    first = client.get("/sheets/blank.pdf?preset=yatzy")
    assert len(count_renders) == 1
    assert list((instance_path / sheets_pdf.CACHE_FOLDER).glob("*.pdf"))
    restarted = create_app({"TESTING": True}, instance_path=instance_path)
    try:
        again = restarted.test_client().get("/sheets/blank.pdf?preset=yatzy")
        assert again.data == first.data
        assert len(count_renders) == 1
        assert restarted.extensions[sheets_pdf.EXTENSION].disk_hits == 1
    finally:
        restarted.extensions[STORE_EXTENSION].dispose()


def play_whole_game(table, names):
    game_id = table.new_game(names)
    seq = 0
    for first, second in GAME:
        for dice, box in (first, second):
            assert table.play(game_id, seq, dice, f"free:{box}").status_code == 303
            seq += 1
    return game_id


@pytest.mark.parametrize("paper", sorted(SIZES))
def test_a_finished_game_prints_what_the_screen_shows(table, paper):
    game_id = play_whole_game(table, ["Mag", "Alix"])
    response = table.client.get(f"/games/{game_id}/sheet.pdf?paper={paper}")
    reader = pdf_of(response)
    assert len(reader.pages) == 1 and sizes(reader) == {SIZES[paper]}
    words = text(reader)
    # The totals of test_game_flow: Mag 332, Alix 413 with one extra Yams.
    assert "1 Alix 413 points" in words and "2 Mag 332 points" in words
    for label in (
        "As",
        "Six",
        "Total haut",
        "Prime (35)",
        "Petite suite",
        "Grande suite",
        "Yams",
        "Chance",
        "Total bas",
        "Prime Yams (+100)",
        "Classement",
        "joker officiel",
        "Terminée le",
    ):
        assert label in words
    assert "25 +100" in words
    assert response.headers["Cache-Control"] == "no-store"


def test_the_sheet_page_and_ranking_link_to_the_pdf(table):
    game_id = table.new_game(["Mag"])
    assert f'href="/games/{game_id}/sheet.pdf"' in table.client.get(f"/games/{game_id}").get_data(
        as_text=True
    )
    game_id = play_whole_game(table, ["Mag", "Alix"])
    assert f'href="/games/{game_id}/sheet.pdf"' in table.client.get(
        f"/games/{game_id}/ranking"
    ).get_data(as_text=True)


def test_a_game_in_progress_with_barred_boxes(table):
    game_id = table.new_game(["Mag", "Alix"], preset="triple", sec="y")
    assert table.play(game_id, 0, "66662", "free:sixes").status_code == 303
    assert table.play(game_id, 1, "12345", "free:yams", confirm=True).status_code == 303
    words = text(pdf_of(table.client.get(f"/games/{game_id}/sheet.pdf")))
    assert "Classement provisoire" in words and "à Mag de jouer" in words
    assert "tour 2 sur 52" in words
    assert "✗" in words and "case barrée" in words
    assert "Descendante" in words and "Montante" in words and "Sec" in words


def test_a_hostile_name_prints_as_text(table):
    # That it loads nothing is tested where the PDF is drawn (tests/sheets/test_render.py).
    game_id = table.new_game([HOSTILE, "Mag"])
    assert table.play(game_id, 0, "11111", "free:yams").status_code == 303
    words = text(pdf_of(table.client.get(f"/games/{game_id}/sheet.pdf")))
    # In the ranking, and in the table's header where the name may wrap: never an image.
    assert "".join(words.split()).count("".join(HOSTILE.split())) == 2


def test_a_filled_sheet_is_drawn_once_per_version_paper_and_language(table, count_renders):
    game_id = table.new_game(["Mag", "Alix"])
    first = table.client.get(f"/games/{game_id}/sheet.pdf")
    again = table.client.get(f"/games/{game_id}/sheet.pdf")
    assert pdf_of(again) and again.data == first.data and len(count_renders) == 1
    table.client.get(f"/games/{game_id}/sheet.pdf?paper=letter")
    table.client.set_cookie("lang", "en")
    table.client.get(f"/games/{game_id}/sheet.pdf")
    table.client.delete_cookie("lang")
    assert len(count_renders) == 3
    # The next turn is a new version: its sheet is drawn again, and shows it.
    assert table.play(game_id, 0, "66662", "free:sixes").status_code == 303
    after = table.client.get(f"/games/{game_id}/sheet.pdf")
    assert len(count_renders) == 4 and "24" in text(pdf_of(after))


@pytest.mark.parametrize(
    ("lang", "sentence"),
    [("fr", "réessayez dans quelques secondes"), ("en", "try again in a few seconds")],
)
def test_busy_printers_answer_503_with_retry_after(table, monkeypatch, snapshot, lang, sentence):
    game_id = table.new_game(["Mag"])
    before = snapshot()

    def busy(self, *args, **kwargs):
        raise PrintersBusy

    monkeypatch.setattr(PdfWorkers, "render", busy)
    table.client.set_cookie("lang", lang)
    for url in (f"/games/{game_id}/sheet.pdf", "/sheets/blank.pdf?preset=yatzy&pages=7"):
        response = table.client.get(url)
        assert response.status_code == 503 and response.mimetype == "text/html"
        assert response.headers["Retry-After"] == str(prints.RETRY_AFTER_SECONDS)
        assert sentence in response.get_data(as_text=True)
    assert snapshot() == before


def test_ten_players_in_four_columns_spread_over_landscape_pages(table):
    names = [f"Joueur {number}" for number in range(1, 11)]
    game_id = table.new_game(names, preset="triple", sec="y")
    reader = pdf_of(table.client.get(f"/games/{game_id}/sheet.pdf?paper=letter"))
    assert len(reader.pages) == 4 and sizes(reader) == {(792, 612)}
    words = text(reader)
    assert all(name in words for name in names)


@pytest.mark.parametrize(
    ("query", "status", "message"),
    [
        ("paper=a3", 400, "Format de papier inconnu : « a3 » (a4 ou letter)."),
        ("paper=a4&pages=2", 400, "Paramètre inconnu : « pages »"),
        ("paper=a4&paper=letter", 400, "Le paramètre « paper » est donné deux fois."),
    ],
)
def test_bad_game_sheet_queries(table, query, status, message):
    game_id = table.new_game(["Mag"])
    response = table.client.get(f"/games/{game_id}/sheet.pdf?{query}")
    assert response.status_code == status
    assert message in response.get_data(as_text=True)


def test_an_unknown_game_has_no_sheet(client):
    response = client.get("/games/999/sheet.pdf")
    assert response.status_code == 404
    assert "Aucune partie n&#39;a le numéro 999." in response.get_data(as_text=True)
