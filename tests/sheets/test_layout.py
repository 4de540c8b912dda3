"""Layouts and the blank-grid query, without rendering anything."""

import pytest

from scorekeeper.rules import RuleError, Rules, score
from scorekeeper.sheets import MAX_PAGES, PAPERS, BlankGrid, PrintOptionError
from scorekeeper.sheets.layout import (
    GAMES_PER_PAGE,
    blank_grid_from_query,
    box_hint,
    fixed_value,
    game_layout,
    grid_rows,
    paper_from_query,
)

RULE_SETS = {
    "classique": [],
    "triple": [("preset", "triple")],
    "sec": [("sec", "1")],
    "triple sec": [("preset", "triple"), ("sec", "1")],
    "plus_minus": [("plus_minus", "1")],
    "yatzy": [("preset", "yatzy")],
}


def test_defaults_to_one_a4_page_of_classique():
    grid = blank_grid_from_query([])
    assert grid == BlankGrid(Rules(), PAPERS["a4"], 1)
    assert (grid.games_per_page, grid.landscape, grid.page_size) == (6, False, "A4 portrait")


@pytest.mark.parametrize(
    ("query", "columns", "games", "landscape"),
    [
        (RULE_SETS["classique"], ("free",), 6, False),
        (RULE_SETS["sec"], ("free", "sec"), 4, False),
        (RULE_SETS["triple"], ("down", "up", "free"), 3, True),
        (RULE_SETS["triple sec"], ("down", "up", "free", "sec"), 2, True),
        (RULE_SETS["yatzy"], ("free",), 6, False),
        ([("preset", "yatzy"), ("sec", "1")], ("free", "sec"), 4, False),
    ],
)
def test_wider_games_get_fewer_to_a_page(query, columns, games, landscape):
    grid = blank_grid_from_query(query + [("paper", "letter"), ("pages", "3")])
    assert grid.rules.columns == columns
    assert (grid.games_per_page, grid.landscape, grid.pages) == (games, landscape, 3)
    assert grid.paper == PAPERS["letter"]


def test_rule_options_come_through_rules_from_dict():
    grid = blank_grid_from_query(
        [
            ("four_kind", "fixed40"),
            ("full_house", "base"),
            ("three_kind", "base"),
            ("plus_minus", "true"),
            ("vache", "on"),
            ("yams_bonus", "0"),
            ("joker", "free"),
            ("dice", "6"),
        ]
    )
    assert grid.rules == Rules.from_dict(
        {
            "four_kind": "fixed40",
            "full_house": "base",
            "three_kind": "base",
            "plus_minus": True,
            "vache": True,
            "yams_bonus": False,
            "joker": "free",
            "dice": 6,
        }
    )


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ([("paper", "a3")], "Format de papier inconnu : « a3 » (a4 ou letter)."),
        ([("pages", "0")], "Le nombre de pages va de 1 à 50 : « 0 » ne convient pas."),
        ([("pages", "51")], "Le nombre de pages va de 1 à 50 : « 51 » ne convient pas."),
        ([("pages", "1000")], "Le nombre de pages va de 1 à 50 : « 1000 » ne convient pas."),
        ([("pages", "-1")], "Le nombre de pages va de 1 à 50 : « -1 » ne convient pas."),
        ([("pages", "deux")], "Le nombre de pages va de 1 à 50 : « deux » ne convient pas."),
        (
            [("preset", "poker")],
            "Règles inconnues : « poker » "
            "(classique, triple, yatzy, yahtzee, kniffel, generala ou maxi_yatzy).",
        ),
        ([("colour", "red")], "Option de règle inconnue : « colour »."),
        ([("four_kind", "50")], "Valeur inconnue pour l'option « four_kind » : « 50 »"),
        ([("dice", "7")], "Valeur inconnue pour l'option « dice » : « 7 »"),
        ([("vache", "peut-être")], "L'option « vache » vaut true ou false, pas « peut-être »."),
        ([("sec", "2")], "Le paramètre « sec » vaut 1 ou 0, pas « 2 »."),
        (
            [("preset", "yatzy"), ("four_kind", "fixed40")],
            "L'option « four_kind » ne s'applique pas au Yatzy.",
        ),
        ([("columns", "free,diagonal")], "Colonne inconnue : « diagonal »"),
        ([("paper", "a4"), ("paper", "letter")], "Le paramètre « paper » est donné deux fois."),
    ],
)
def test_bad_queries_say_what_is_wrong(query, message):
    with pytest.raises(RuleError) as caught:
        blank_grid_from_query(query)
    assert message in caught.value.render()


def test_empty_fields_take_the_defaults():
    assert blank_grid_from_query([("paper", ""), ("pages", "")]) == BlankGrid(
        Rules(), PAPERS["a4"], 1
    )


def test_pages_are_capped():
    assert blank_grid_from_query([("pages", str(MAX_PAGES))]).pages == MAX_PAGES


def test_a_filled_sheet_takes_only_the_paper():
    assert paper_from_query([("paper", "letter")]) == PAPERS["letter"]
    assert paper_from_query([]) == PAPERS["a4"]
    with pytest.raises(PrintOptionError, match="seul « paper »"):
        paper_from_query([("pages", "2")])
    with pytest.raises(PrintOptionError, match="a4 ou letter"):
        paper_from_query([("paper", "A5")])


@pytest.mark.parametrize("name", sorted(RULE_SETS))
def test_rows_follow_the_screen(name):
    rules = blank_grid_from_query(RULE_SETS[name]).rules
    rows = grid_rows(rules)
    assert [row.box for row in rows if row.is_box] == list(rules.boxes)
    kinds = [row.kind for row in rows if not row.is_box]
    expected = ["upper_total", "upper_bonus", "lower_total"]
    expected += ["yams_bonus"] if rules.has_yams_bonus else []
    expected += ["column_total"] if len(rules.columns) > 1 else []
    assert kinds == expected + ["total"]
    assert rows[6].kind == "upper_total" and rows[8].box == rules.lower_boxes[0]


@pytest.mark.parametrize("name", sorted(RULE_SETS))
@pytest.mark.parametrize("paper", sorted(PAPERS))
def test_rows_and_ticks_fit_a_pencil(name, paper):
    grid = blank_grid_from_query(RULE_SETS[name] + [("paper", paper)])
    assert 7 <= grid.row_height_mm <= 14
    assert 3 <= grid.tally_ticks <= 4
    assert grid.data_column_mm >= 18
    assert grid.games_per_page == GAMES_PER_PAGE[len(grid.rules.columns)]


@pytest.mark.parametrize(
    ("options", "box", "dice"),
    [
        ({}, "full_house", (2, 2, 3, 3, 3)),
        ({}, "small_straight", (1, 2, 3, 4, 6)),
        ({}, "large_straight", (2, 3, 4, 5, 6)),
        ({}, "yams", (4, 4, 4, 4, 4)),
        ({"four_kind": "fixed40"}, "four_kind", (5, 5, 5, 5, 2)),
        ({"preset": "yatzy"}, "small_straight", (1, 2, 3, 4, 5)),
        ({"preset": "yatzy"}, "large_straight", (2, 3, 4, 5, 6)),
        ({"preset": "yatzy"}, "yams", (6, 6, 6, 6, 6)),
    ],
)
def test_printed_fixed_values_are_the_engine_s(options, box, dice):
    rules = Rules.from_dict(options)
    assert fixed_value(rules, box) == score(rules, box, dice)
    assert box_hint(rules, box).params == {"points": score(rules, box, dice)}


@pytest.mark.parametrize(
    "options",
    [{}, {"four_kind": "base", "full_house": "base"}, {"preset": "yatzy"}, {"plus_minus": True}],
)
def test_variable_boxes_have_no_fixed_value(options):
    rules = Rules.from_dict(options)
    for box in rules.boxes:
        hint = box_hint(rules, box)
        if fixed_value(rules, box) is None:
            assert "points" not in hint.params and hint.text


@pytest.mark.parametrize(
    ("players", "kinds", "landscape", "sizes"),
    [
        (1, 1, False, [1]),
        (8, 1, False, [8]),
        (9, 1, True, [9]),
        (10, 1, True, [10]),
        (2, 4, False, [2]),
        (3, 3, True, [3]),
        (5, 3, True, [3, 2]),
        (10, 4, True, [3, 3, 2, 2]),
        (10, 3, True, [4, 3, 3]),
    ],
)
def test_filled_sheets_split_players_into_tables_that_fit(players, kinds, landscape, sizes):
    columns = ["free", "down", "up", "sec"][:kinds]
    layout = game_layout(Rules.from_dict({"columns": columns}), players, PAPERS["a4"])
    assert layout.landscape is landscape
    assert [len(table) for table in layout.tables] == sizes
    assert [seat for table in layout.tables for seat in table] == list(range(players))
