"""Generala, docs/rules.md §14: every worked example of its sources, each cited there, and
the throw an entry may say (the servida), the instant win and the refusals."""

from itertools import product

import pytest

from scorekeeper.rules import (
    Entry,
    GameState,
    RuleError,
    Rules,
    read_document,
    replay,
    score,
    write_document,
)
from scorekeeper.rules.labels import OwnWord, box_name
from scorekeeper.rules.results import seat_results
from scorekeeper.rules.sheet import BARRED_BY_DICE, BARRED_BY_GENERALA

GENERALA = Rules.from_dict({"preset": "generala"})


def generala_game(turns, players=("Solo",), **options):
    """Replay (box, dice) or (box, dice, throw) turns, seats in order."""
    rules = Rules.from_dict({"preset": "generala", **options})
    entries = []
    for number, turn in enumerate(turns):
        box, dice, throw = turn if len(turn) == 3 else (*turn, None)
        entries.append(Entry(number % len(players), "free", box, tuple(dice), throw))
    return replay(rules, list(players), entries)


def points(box, dice, throw=None, **options):
    state = generala_game([(box, dice, throw)], **options)
    return state.sheets[0].columns["free"].cells[box].points


def test_the_sheet_has_eleven_boxes_in_the_sources_order_and_no_upper_bonus():
    assert GENERALA.boxes == (
        "ones",
        "twos",
        "threes",
        "fours",
        "fives",
        "sixes",
        "straight",
        "full_house",
        "four_kind",
        "generala",
        "double_generala",
    )
    assert GENERALA.turns_per_player == 11
    assert not GENERALA.has_upper_bonus and GENERALA.upper_bonus == 0
    assert not GENERALA.has_joker and not GENERALA.has_yams_bonus
    state = generala_game(
        [(box, (face,) * 5) for box, face in zip(GENERALA.boxes[:6], range(1, 7), strict=True)]
    )
    column = state.sheets[0].columns["free"]
    assert (column.upper, column.upper_bonus, column.total) == (105, 0, 105)


@pytest.mark.parametrize(
    ("box", "dice", "expected"),
    [
        # Reglamento de Generala: « tres 6 valen 18 puntos para el seis; dos 4 valen 8 »
        ("sixes", (6, 6, 6, 1, 2), 18),
        ("fours", (4, 4, 1, 2, 3), 8),
        # Diario Popular: « tres 5 valen 15 puntos para el cinco; dos 2 valen 4 »
        ("fives", (5, 5, 5, 1, 2), 15),
        ("twos", (2, 2, 1, 3, 4), 4),
    ],
)
def test_upper_boxes_from_the_sources(box, dice, expected):
    assert points(box, dice) == expected


@pytest.mark.parametrize(
    ("box", "dice", "expected"),
    [
        # Wikipedia, « Generala »: 4-4-4-2-6 is 12 in Fours, 2 in Twos, 6 in Sixes.
        ("fours", (4, 4, 4, 2, 6), 12),
        ("twos", (4, 4, 4, 2, 6), 2),
        ("sixes", (4, 4, 4, 2, 6), 6),
        ("full_house", (5, 5, 5, 3, 3), 30),
        ("four_kind", (2, 2, 2, 2, 6), 40),
    ],
)
def test_wikipedia_examples(box, dice, expected):
    assert points(box, dice) == expected


@pytest.mark.parametrize(
    ("box", "dice", "later", "served"),
    [
        # Reglamento de Generala and Board Game Central: Póker 45 / 40, Full 35 / 30;
        # Revista Mecha: Escalera 25 / 20.
        ("four_kind", (4, 4, 4, 4, 1), 40, 45),
        ("full_house", (2, 2, 3, 3, 3), 30, 35),
        ("straight", (1, 2, 3, 4, 5), 20, 25),
    ],
)
def test_servida_scores_more(box, dice, later, served):
    assert points(box, dice) == later
    assert points(box, dice, throw=2) == later
    assert points(box, dice, throw=3) == later
    assert points(box, dice, throw=1) == served
    # Without the servida values, the first throw scores as the others.
    assert points(box, dice, throw=1, servida=False) == later
    # A servida that makes nothing is still nothing.
    assert points(box, (1, 1, 2, 3, 6), throw=1) == 0


def test_straights():
    # Revista Mecha: « 12345, 23456, 34561. Lograrla otorga 20 puntos … en la primer
    # tirada otorga 25 »; the ace after the six is an option (Wikipedia: « In some
    # variations … three, four, five, six, and one »).
    assert points("straight", (5, 3, 1, 2, 4)) == 20
    assert points("straight", (2, 3, 4, 5, 6), throw=1) == 25
    assert points("straight", (3, 4, 5, 6, 1)) == 0
    assert points("straight", (3, 4, 5, 6, 1), ace_high_straight=True) == 20
    assert points("straight", (6, 1, 3, 5, 4), throw=1, ace_high_straight=True) == 25
    assert points("straight", (1, 2, 3, 4, 6), ace_high_straight=True) == 0


def test_five_alike_are_a_poker_but_no_full():
    assert points("four_kind", (3, 3, 3, 3, 3)) == 40
    state = generala_game([("full_house", (3, 3, 3, 3, 3))])
    assert state.sheets[0].columns["free"].cells["full_house"].barred_by == BARRED_BY_DICE


def test_generala_servida_wins_the_game_at_once():
    # Reglamento de Generala: « generala servida y el jugador automáticamente gana el juego »;
    # Wikipedia: « the player immediately wins the game ».
    state = generala_game(
        [
            ("sixes", (6, 6, 6, 6, 1)),
            ("full_house", (2, 2, 3, 3, 3), 1),
            ("generala", (1, 1, 1, 1, 1), 1),
        ],
        players=("Mag", "Alix"),
    )
    assert state.is_over and state.active_player is None
    assert state.winner == 0
    cell = state.sheets[0].columns["free"].cells["generala"]
    assert (cell.points, cell.wins, cell.served) == (50, True, True)
    # Alix's next turn never comes.
    standings = state.ranking()
    assert [(s.rank, s.name) for s in standings] == [(1, "Mag"), (2, "Alix")]
    with pytest.raises(RuleError, match="terminée"):
        state.play(Entry(1, "free", "ones", (1, 2, 3, 4, 5)))


def test_the_servida_winner_is_first_alone_even_behind_on_points():
    state = generala_game(
        [
            ("straight", (1, 2, 3, 4, 5)),
            ("double_generala", (6, 6, 6, 6, 6)),  # barred: no Generala of 50 yet
            ("sixes", (6, 6, 6, 6, 6)),
            ("generala", (2, 2, 2, 2, 2), 1),
        ],
        players=("Mag", "Alix"),
    )
    assert state.is_over and state.winner == 1
    assert (state.sheets[0].total, state.sheets[1].total) == (50, 50)
    assert [(s.rank, s.name, s.total) for s in state.ranking()] == [
        (1, "Alix", 50),
        (2, "Mag", 50),
    ]
    results = seat_results(state)
    assert [(r.rank, r.won) for r in results] == [(2, False), (1, True)]


def test_generala_servida_scores_50_when_it_does_not_win():
    state = generala_game([("generala", (4, 4, 4, 4, 4), 1)], servida_wins=False)
    assert not state.is_over and state.winner is None
    cell = state.sheets[0].columns["free"].cells["generala"]
    assert (cell.points, cell.wins) == (50, False)
    # On a later throw, a Generala is 50 and wins nothing, whatever the options.
    state = generala_game([("generala", (4, 4, 4, 4, 4), 2)])
    assert not state.is_over
    assert state.sheets[0].columns["free"].cells["generala"].points == 50


def test_no_servida_win_once_the_generala_box_is_barred():
    # Board Game Central: « if the 'Generala' category has been scratched … it is not an
    # automatic win »: the five alike may only go elsewhere, and the Doble is barred.
    state = generala_game([("generala", (1, 2, 3, 4, 6)), ("double_generala", (5, 5, 5, 5, 5), 1)])
    assert not state.is_over
    cell = state.sheets[0].columns["free"].cells["double_generala"]
    assert (cell.points, cell.barred_by, cell.wins) == (0, BARRED_BY_GENERALA, False)


def test_double_generala_needs_a_generala_of_50():
    # Wikipedia: the Double Generala is a Generala « for the second time in a game ».
    state = generala_game(
        [("generala", (3, 3, 3, 3, 3), 2), ("double_generala", (6, 6, 6, 6, 6), 1)]
    )
    cell = state.sheets[0].columns["free"].cells["double_generala"]
    assert (cell.points, cell.wins) == (100, False)
    assert not state.is_over
    before = generala_game([("double_generala", (6, 6, 6, 6, 6))])
    cell = before.sheets[0].columns["free"].cells["double_generala"]
    assert (cell.points, cell.barred_by) == (0, BARRED_BY_GENERALA)


def test_highest_score_is_360():
    faces = [(box, (face,) * 5, 1) for face, box in enumerate(GENERALA.boxes[:6], start=1)]
    state = generala_game(
        [
            *faces,
            ("straight", (1, 2, 3, 4, 5), 1),
            ("full_house", (6, 6, 6, 5, 5), 1),
            ("four_kind", (6, 6, 6, 6, 6), 1),
            ("generala", (6, 6, 6, 6, 6), 1),
            ("double_generala", (6, 6, 6, 6, 6), 1),
        ],
        servida_wins=False,
    )
    assert state.is_over and state.sheets[0].total == 360


def test_bad_throws_and_boxes_are_refused():
    start = GameState.start(GENERALA, ["Solo"])
    for throw in (0, 4, True, -1):
        with pytest.raises(RuleError, match="trois lancers"):
            start.score(Entry(0, "free", "straight", (1, 2, 3, 4, 5), throw))
    for box in ("yams", "three_kind", "chance", "small_straight"):
        with pytest.raises(RuleError, match="pas de case"):
            start.score(Entry(0, "free", box, (1, 1, 1, 1, 1)))
    classique = GameState.start(Rules(), ["Solo"])
    with pytest.raises(RuleError, match="Generala"):
        classique.score(Entry(0, "free", "full_house", (2, 2, 3, 3, 3), 1))
    with pytest.raises(RuleError, match="pas de case"):
        classique.score(Entry(0, "free", "generala", (2, 2, 2, 2, 2)))


def test_a_document_says_the_throw_and_reads_it_back():
    document = {
        "rules": {"preset": "generala", "ace_high_straight": True},
        "players": ["Mag", "Alix"],
        "entries": [
            {"player": "Mag", "box": "full_house", "dice": [2, 2, 3, 3, 3], "throw": 1},
            {"player": "Alix", "box": "straight", "dice": [3, 4, 5, 6, 1], "throw": 3},
            {"player": "Mag", "box": "generala", "dice": [5, 5, 5, 5, 5], "throw": 1},
        ],
    }
    state = read_document(document).replay()
    assert state.is_over and state.winner == 0
    assert [s.total for s in state.sheets] == [85, 20]
    written = write_document(state)
    assert written["entries"] == document["entries"]
    assert written["rules"] == {
        "preset": "generala",
        "columns": ["free"],
        "servida": True,
        "servida_wins": True,
        "ace_high_straight": True,
    }


@pytest.mark.parametrize("throw", ["1", 1.0, True, None, [1]])
def test_a_document_throw_is_a_whole_number(throw):
    document = {
        "rules": {"preset": "generala"},
        "players": ["Mag"],
        "entries": [{"player": "Mag", "box": "ones", "dice": [1, 1, 2, 3, 4], "throw": throw}],
    }
    with pytest.raises(RuleError, match="throw"):
        read_document(document)


@pytest.mark.parametrize(
    "rules",
    [
        {"preset": "generala", "vache": True},
        {"preset": "generala", "dice": 6},
        {"preset": "generala", "joker": "free"},
        {"preset": "generala", "columns": ["free", "sec"]},
        {"preset": "classique", "servida": False},
        {"preset": "yatzy", "ace_high_straight": True},
        {"preset": "triple", "servida_wins": False},
    ],
)
def test_options_of_another_game_are_refused(rules):
    with pytest.raises(RuleError):
        Rules.from_dict(rules)


def test_servida_changes_only_where_it_changes_the_score():
    start = GameState.start(GENERALA, ["Solo"])
    assert start.served_changes((2, 2, 3, 3, 3))  # Full 30 → 35
    assert start.served_changes((6, 6, 6, 6, 6))  # Póker 40 → 45, Generala wins
    assert not start.served_changes((1, 2, 2, 4, 6))  # nothing to make
    full_filled = generala_game([("full_house", (2, 2, 3, 3, 3))])
    assert not full_filled.served_changes((2, 2, 3, 3, 3))
    plain = generala_game([("ones", (1, 2, 3, 4, 5))], servida=False)
    assert not plain.served_changes((2, 2, 3, 3, 3))
    assert plain.served_changes((4, 4, 4, 4, 4))  # the win is still there
    assert not GameState.start(Rules(), ["Solo"]).served_changes((2, 2, 3, 3, 3))


def test_the_lower_boxes_keep_their_spanish_names_in_every_language():
    labels = GENERALA.box_labels
    assert [labels[box] for box in GENERALA.lower_boxes] == [
        "Escalera",
        "Full",
        "Póker",
        "Generala",
        "Doble Generala",
    ]
    shout = str.upper
    assert box_name(labels, "four_kind", shout) == "Póker"
    assert box_name(labels, "sixes", shout) == "SIX"
    assert isinstance(labels["full_house"], OwnWord)


def reference(box, dice, served, rules):
    """§14 restated plainly, apart from the engine."""
    counts = sorted(dice.count(face) for face in set(dice))
    faces = set(dice)
    upper = {"ones": 1, "twos": 2, "threes": 3, "fours": 4, "fives": 5, "sixes": 6}
    if box in upper:
        return upper[box] * dice.count(upper[box])
    straights = [{1, 2, 3, 4, 5}, {2, 3, 4, 5, 6}] + ([{1, 3, 4, 5, 6}] * rules.ace_high_straight)
    made = {
        "straight": faces in straights,
        "full_house": counts == [2, 3],
        "four_kind": counts[-1] >= 4,
        "generala": counts == [5],
        "double_generala": counts == [5],
    }[box]
    bonus = 5 if served and rules.servida and box in ("straight", "full_house", "four_kind") else 0
    value = {"straight": 20, "full_house": 30, "four_kind": 40, "generala": 50}
    return (value.get(box, 100) + bonus) if made else 0


@pytest.mark.parametrize(
    "options",
    [{}, {"servida": False}, {"ace_high_straight": True}],
    ids=["default", "plain", "ace"],
)
def test_every_roll_in_every_box(options):
    rules = Rules.from_dict({"preset": "generala", **options})
    for dice in product(range(1, 7), repeat=5):
        for box in rules.boxes:
            for served in (False, True):
                assert score(rules, box, dice, served=served) == reference(
                    box, list(dice), served, rules
                ), (box, dice, served)
