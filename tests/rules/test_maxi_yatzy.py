"""Maxi Yatzy, docs/rules.md §15: every worked example of maxiyatzy.com, replayed from game
documents by the engine and by `scorekeeper replay`; the bonus of 100 at 84, the boxes'
conditions against a plain restatement on every roll of six dice, the refusals, and the
saved throws derived from the entries."""

import json
from itertools import combinations_with_replacement, product

import pytest
from click.testing import CliRunner

from scorekeeper.cli import main
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
from scorekeeper.rules.bonus import MISSED, OUT_OF_REACH, REACHED, bonus_pace
from scorekeeper.rules.labels import OwnWord, box_name
from scorekeeper.rules.results import rules_key, seat_results
from scorekeeper.rules.scoring import score_maxi_yatzy
from scorekeeper.rules.throws import saved_throws

from .helpers import cell, play

MAXI = Rules.from_dict({"preset": "maxi_yatzy"})
SOURCE = "maxiyatzy.com, MaxiYatzy regler (maxiyahtzee.com, the same numbers)"

# (box, dice, points): the table of maxiyatzy.com, one example a box, its words quoted in
# docs/rules.md §15.
EXAMPLES = [
    ("ones", [3, 1, 1, 6, 1, 4], 3),
    ("twos", [2, 5, 4, 3, 2, 6], 4),
    ("threes", [3, 2, 1, 3, 4, 3], 9),
    ("fours", [4, 4, 3, 4, 5, 4], 16),
    ("fives", [5, 1, 2, 5, 5, 4], 15),
    ("sixes", [4, 6, 3, 1, 6, 6], 18),
    ("pair", [6, 4, 2, 6, 5, 1], 12),
    ("two_pairs", [2, 1, 3, 3, 5, 5], 16),
    ("three_pairs", [2, 2, 5, 5, 6, 6], 26),
    ("three_kind", [4, 5, 3, 5, 5, 4], 15),
    ("four_kind", [2, 4, 2, 2, 5, 2], 8),
    ("five_kind", [3, 3, 2, 3, 3, 3], 15),
    ("small_straight", [1, 2, 3, 4, 5, 3], 15),
    ("large_straight", [2, 3, 4, 5, 6, 6], 20),
    ("full_straight", [1, 2, 3, 4, 5, 6], 21),
    ("full_house", [3, 4, 4, 6, 6, 6], 26),
    ("villa", [2, 2, 2, 5, 5, 5], 21),
    ("tower", [3, 3, 6, 6, 6, 6], 30),
    ("chance", [3, 4, 2, 6, 5, 4], 24),
    ("maxi_yatzy", [4, 4, 4, 4, 4, 4], 100),
]


def maxi(turns, players=("Solo",)):
    return play(MAXI, list(players), turns)


def _document(box, dice):
    return {
        "rules": {"preset": "maxi_yatzy"},
        "players": ["Solo"],
        "entries": [{"player": "Solo", "box": box, "dice": dice}],
    }


def test_the_sheet_has_twenty_boxes_in_the_sources_order():
    assert MAXI.boxes == (
        "ones",
        "twos",
        "threes",
        "fours",
        "fives",
        "sixes",
        "pair",
        "two_pairs",
        "three_pairs",
        "three_kind",
        "four_kind",
        "five_kind",
        "small_straight",
        "large_straight",
        "full_straight",
        "full_house",
        "villa",
        "tower",
        "chance",
        "maxi_yatzy",
    )
    assert MAXI.turns_per_player == 20 and MAXI.dice == 6 and MAXI.columns == ("free",)
    assert not MAXI.has_joker and not MAXI.has_yams_bonus and not MAXI.has_kniffel_bonus
    assert (MAXI.upper_bonus, MAXI.upper_bonus_threshold) == (100, 84)
    assert MAXI.to_dict() == {"preset": "maxi_yatzy", "columns": ["free"]}


@pytest.mark.parametrize(("box", "dice", "points"), EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_each_worked_example_of_the_source(box, dice, points):
    state = read_document(_document(box, dice)).replay()
    assert cell(state, box).points == points, SOURCE
    # The function the advisor's policy calls, on the sorted dice.
    assert score_maxi_yatzy(box, tuple(sorted(dice))) == points


def test_scorekeeper_replay_agrees_with_every_worked_example(tmp_path):
    files = []
    for number, (box, dice, _points) in enumerate(EXAMPLES):
        path = tmp_path / f"example-{number}.json"
        path.write_text(json.dumps(_document(box, dice)), encoding="utf-8")
        files.append(str(path))
    result = CliRunner().invoke(main, ["replay", *files])
    assert result.exit_code == 0, result.output
    totals = [json.loads(line)["players"][0]["total"] for line in result.output.splitlines()]
    assert totals == [points for _box, _dice, points in EXAMPLES]


def _four_of_each(ones=4):
    """The upper boxes, four of each face (``ones`` ones), the other two dice elsewhere."""
    others = {1: [2, 3], 2: [1, 3], 3: [1, 2], 4: [1, 2], 5: [1, 2], 6: [1, 2]}
    turns = []
    for face, box in enumerate(MAXI.boxes[:6], start=1):
        count = ones if face == 1 else 4
        turns.append((box, [face] * count + others[face] + [5] * (4 - count)))
    return turns


def test_the_bonus_is_100_at_84_and_none_at_83():
    # « Bonus 100 poäng om summan av fälten Ettor t.o.m. Sexor är 84 poäng eller mer. Är
    # summan 83 eller mindre får man 0 poäng. » Four of each face is 84.
    column = maxi(_four_of_each()).sheets[0].columns["free"]
    assert (column.upper, column.upper_bonus, column.total) == (84, 100, 184)
    assert bonus_pace(column).pace == REACHED
    column = maxi(_four_of_each(ones=3)).sheets[0].columns["free"]
    assert (column.upper, column.upper_bonus, column.total) == (83, 0, 83)
    assert bonus_pace(column).pace == MISSED


def test_the_pace_is_four_of_each_face_and_six_dice_count():
    # Three sixes are 6 behind four of each; six dice of a face count in its box, so the
    # bonus stays in reach until even six of each could not make 84.
    column = maxi([("sixes", [6, 6, 6, 1, 2, 3])]).sheets[0].columns["free"]
    standing = bonus_pace(column)
    assert (standing.missing, standing.balance) == (84 - 18, -6)
    behind = maxi([("sixes", [1, 2, 3, 4, 5, 1]), ("fives", [1, 2, 3, 4, 1, 2])])
    standing = bonus_pace(behind.sheets[0].columns["free"])
    # Ones to fours with six dice each: 60, short of the 84 missing.
    assert standing.pace == OUT_OF_REACH


def test_six_alike_fill_every_box_of_a_kind_but_no_pairs_of_different_faces():
    six = (5,) * 6
    expected = {
        "fives": 30,
        "pair": 10,
        "three_kind": 15,
        "four_kind": 20,
        "five_kind": 25,
        "chance": 30,
        "maxi_yatzy": 100,
    }
    for box in MAXI.boxes:
        assert score(MAXI, box, six) == expected.get(box, 0), box


def test_combinations_take_the_best_dice_among_the_six():
    # **Choice** of §15: a Kåk takes its three from four alike, the highest pair and triple.
    assert score_maxi_yatzy("full_house", (3, 3, 6, 6, 6, 6)) == 24
    assert score_maxi_yatzy("full_house", (2, 2, 2, 5, 5, 5)) == 19
    assert score_maxi_yatzy("two_pairs", (2, 2, 6, 6, 6, 6)) == 16
    assert score_maxi_yatzy("two_pairs", (1, 1, 3, 3, 5, 5)) == 16
    assert score_maxi_yatzy("pair", (1, 1, 3, 3, 5, 5)) == 10
    assert score_maxi_yatzy("three_kind", (2, 2, 2, 5, 5, 5)) == 15
    # Three pairs of different faces, so four alike and a pair are not three pairs.
    assert score_maxi_yatzy("three_pairs", (2, 2, 6, 6, 6, 6)) == 0
    assert score_maxi_yatzy("small_straight", (1, 2, 3, 4, 5, 6)) == 15
    assert score_maxi_yatzy("large_straight", (1, 2, 3, 4, 5, 6)) == 20


def test_highest_score_is_649():
    upper = [(box, [face] * 6) for face, box in enumerate(MAXI.boxes[:6], start=1)]
    lower = [
        ("pair", [6, 6, 1, 2, 3, 4]),
        ("two_pairs", [6, 6, 5, 5, 1, 2]),
        ("three_pairs", [6, 6, 5, 5, 4, 4]),
        ("three_kind", [6, 6, 6, 1, 2, 3]),
        ("four_kind", [6, 6, 6, 6, 1, 2]),
        ("five_kind", [6, 6, 6, 6, 6, 1]),
        ("small_straight", [1, 2, 3, 4, 5, 6]),
        ("large_straight", [1, 2, 3, 4, 5, 6]),
        ("full_straight", [1, 2, 3, 4, 5, 6]),
        ("full_house", [6, 6, 6, 5, 5, 1]),
        ("villa", [6, 6, 6, 5, 5, 5]),
        ("tower", [6, 6, 6, 6, 5, 5]),
        ("chance", [6] * 6),
        ("maxi_yatzy", [6] * 6),
    ]
    state = maxi(upper + lower)
    assert state.is_over
    # 126 + 100 above; 12 + 22 + 30 + 18 + 24 + 30 + 15 + 20 + 21 + 28 + 33 + 34 + 36 + 100.
    assert state.sheets[0].total == 649
    (result,) = seat_results(state)
    # Its Yams are six alike: the six upper rolls, Chans and Maxiyatzy.
    assert result.yams_count == 8


def test_bad_dice_and_boxes_are_refused():
    start = GameState.start(MAXI, ["Solo"])
    with pytest.raises(RuleError, match="Trop de dés"):
        start.score(Entry(0, "free", "chance", (1, 2, 3, 4, 5, 6, 6)))
    with pytest.raises(RuleError, match="Pas assez"):
        start.score(Entry(0, "free", "chance", (1, 2, 3, 4, 5)))
    for die in (0, 7):
        with pytest.raises(RuleError, match="n'est pas un dé"):
            start.score(Entry(0, "free", "chance", (1, 2, 3, 4, 5, die)))
    for box in ("yams", "straight", "plus", "generala"):
        with pytest.raises(RuleError, match="pas de case"):
            start.score(Entry(0, "free", box, (1, 1, 1, 1, 1, 1)))
    classique = GameState.start(Rules(), ["Solo"])
    with pytest.raises(RuleError, match="pas de case"):
        classique.score(Entry(0, "free", "villa", (2, 2, 3, 3, 3)))


@pytest.mark.parametrize(
    "rules",
    [
        {"preset": "maxi_yatzy", "vache": True},
        {"preset": "maxi_yatzy", "dice": 5},
        {"preset": "maxi_yatzy", "dice": 6.0},
        {"preset": "maxi_yatzy", "joker": "free"},
        {"preset": "maxi_yatzy", "servida": False},
        {"preset": "maxi_yatzy", "columns": ["free", "sec"]},
    ],
)
def test_options_of_another_game_are_refused(rules):
    with pytest.raises(RuleError):
        Rules.from_dict(rules)


def test_a_document_may_say_its_six_dice_and_its_free_column():
    said = Rules.from_dict({"preset": "maxi_yatzy", "dice": 6, "columns": ["free"]})
    assert said == MAXI
    assert rules_key(said.to_dict()) == rules_key({"preset": "maxi_yatzy"})
    assert rules_key({"preset": "maxi_yatzy"}) != rules_key({"preset": "classique", "dice": 6})


def test_the_boxes_keep_their_swedish_names_in_every_language():
    labels = MAXI.box_labels
    assert [labels[box] for box in MAXI.boxes] == [
        "Ettor",
        "Tvåor",
        "Treor",
        "Fyror",
        "Femmor",
        "Sexor",
        "Ett par",
        "Två par",
        "Tre par",
        "Tretal",
        "Fyrtal",
        "Femtal",
        "Liten straight",
        "Stor straight",
        "Full straight",
        "Kåk",
        "Hus",
        "Torn",
        "Chans",
        "Maxiyatzy",
    ]
    assert all(isinstance(label, OwnWord) for label in labels.values())
    assert box_name(labels, "villa", str.upper) == "Hus"


def reference(box, dice):
    """§15 restated plainly, apart from the engine: the best dice among the six that make
    the box, its pairs and triples of different faces."""
    upper = {"ones": 1, "twos": 2, "threes": 3, "fours": 4, "fives": 5, "sixes": 6}
    if box in upper:
        return upper[box] * dice.count(upper[box])
    if box == "chance":
        return sum(dice)
    best = 0
    # Every way of choosing groups of alike dice of different faces among the six.
    groups = {
        "pair": (2,),
        "two_pairs": (2, 2),
        "three_pairs": (2, 2, 2),
        "three_kind": (3,),
        "four_kind": (4,),
        "five_kind": (5,),
        "full_house": (3, 2),
        "villa": (3, 3),
        "tower": (4, 2),
    }
    if box in groups:
        sizes = groups[box]
        for faces in product(range(1, 7), repeat=len(sizes)):
            if len(set(faces)) < len(faces):
                continue
            if all(dice.count(face) >= size for face, size in zip(faces, sizes, strict=True)):
                best = max(best, sum(face * size for face, size in zip(faces, sizes, strict=True)))
        return best
    straights = {
        "small_straight": ({1, 2, 3, 4, 5}, 15),
        "large_straight": ({2, 3, 4, 5, 6}, 20),
        "full_straight": ({1, 2, 3, 4, 5, 6}, 21),
    }
    if box in straights:
        needed, points = straights[box]
        return points if needed <= set(dice) else 0
    assert box == "maxi_yatzy"
    return 100 if len(set(dice)) == 1 else 0


def test_every_roll_in_every_box():
    # The 462 sorted rolls of six dice stand for the 46,656 ordered ones: no box looks at
    # the order (one ordered roll of each checks that, below).
    for dice in combinations_with_replacement(range(1, 7), 6):
        for box in MAXI.boxes:
            expected = reference(box, list(dice))
            assert score(MAXI, box, dice) == expected, (box, dice)
            assert score_maxi_yatzy(box, dice[::-1]) == expected, (box, dice)


def _throws_game(turns, players=("Mag", "Alix")):
    """Replay (box, dice, throws) turns, seats in order; throws None says nothing."""
    entries = [
        Entry(number % len(players), "free", box, tuple(dice), None, throws)
        for number, (box, dice, throws) in enumerate(turns)
    ]
    return replay(MAXI, list(players), entries)


def test_unused_throws_are_saved_for_the_players_later_turns():
    # « Tre kast per omgång. Ett kast måste göras per omgång. Ej utnyttjade kast sparas till
    # följande omgångar. »
    start = GameState.start(MAXI, ["Mag", "Alix"])
    assert start.saved_throws == (0, 0) and start.throws_at_hand(0) == 3
    state = _throws_game(
        [
            ("chance", [1, 2, 3, 4, 5, 6], 1),  # Mag saves two
            ("ones", [1, 1, 2, 3, 4, 5], None),  # Alix says nothing: three used
            ("twos", [2, 2, 2, 3, 4, 5], 2),  # Mag saves one more
            ("threes", [3, 3, 1, 2, 4, 5], 3),
        ]
    )
    assert state.saved_throws == (3, 0)
    assert (state.throws_at_hand(0), state.throws_at_hand(1)) == (6, 3)
    # Mag spends five of her six; then one is left.
    state = state.play(Entry(0, "free", "sixes", (6, 6, 6, 6, 6, 1), throws=5))
    assert state.saved_throws == (1, 0)
    assert state.entries[-1].throws == 5
    # Undoing is replaying one entry fewer: the saved throws follow.
    undone = replay(MAXI, ["Mag", "Alix"], state.entries[:-1])
    assert undone.saved_throws == (3, 0)


def test_saved_throws_have_no_limit():
    turns = []
    for face, box in enumerate(MAXI.boxes[:6], start=1):
        turns += [(box, [face] * 6, 1), (box, [face] * 6, None)]
    state = _throws_game(turns)
    assert state.saved_throws == (12, 0)
    assert saved_throws(2, state.entries) == (12, 0)


@pytest.mark.parametrize(
    ("throws", "message"),
    [
        (0, "au moins un lancer"),
        (-1, "au moins un lancer"),
        (True, "au moins un lancer"),
        (4, "n'a que 3 lancers"),
    ],
)
def test_throws_a_player_has_not_are_refused(throws, message):
    start = GameState.start(MAXI, ["Mag"])
    with pytest.raises(RuleError, match=message):
        start.score(Entry(0, "free", "chance", (1, 2, 3, 4, 5, 6), throws=throws))


def test_more_throws_than_saved_are_refused_and_the_message_says_how_many():
    state = _throws_game([("chance", [1, 2, 3, 4, 5, 6], 2)], players=("Mag",))
    assert state.throws_at_hand(0) == 4
    with pytest.raises(RuleError) as refused:
        state.score(Entry(0, "free", "ones", (1, 1, 1, 1, 1, 1), throws=5))
    assert str(refused.value) == "Mag n'a que 4 lancers (les 3 du tour et 1 gardés), pas 5."
    assert state.score(Entry(0, "free", "ones", (1, 1, 1, 1, 1, 1), throws=4)).points == 6


@pytest.mark.parametrize("preset", ["classique", "yatzy", "generala", "yahtzee"])
def test_throws_in_another_rule_set_are_refused(preset):
    rules = Rules.from_dict({"preset": preset})
    start = GameState.start(rules, ["Mag"])
    with pytest.raises(RuleError, match="Maxi Yatzy"):
        start.score(Entry(0, "free", "ones", (1,) * rules.dice, throws=3))
    document = {
        "rules": {"preset": preset},
        "players": ["Mag"],
        "entries": [{"player": "Mag", "box": "ones", "dice": [1] * rules.dice, "throws": 2}],
    }
    with pytest.raises(RuleError, match="Maxi Yatzy"):
        read_document(document).replay()


def test_a_document_says_the_throws_and_reads_them_back():
    document = {
        "rules": {"preset": "maxi_yatzy", "columns": ["free"]},
        "players": ["Mag", "Alix"],
        "entries": [
            {"player": "Mag", "box": "villa", "dice": [2, 2, 2, 5, 5, 5], "throws": 1},
            {"player": "Alix", "box": "tower", "dice": [3, 3, 6, 6, 6, 6]},
            {"player": "Mag", "box": "maxi_yatzy", "dice": [4, 4, 4, 4, 4, 4], "throws": 5},
        ],
    }
    state = read_document(document).replay()
    assert [sheet.total for sheet in state.sheets] == [121, 30]
    assert state.saved_throws == (0, 0)
    assert write_document(state) == document


@pytest.mark.parametrize("throws", ["4", 4.0, None, [4], False])
def test_a_document_throws_is_a_whole_number(throws):
    document = {
        "rules": {"preset": "maxi_yatzy"},
        "players": ["Mag"],
        "entries": [{"player": "Mag", "box": "ones", "dice": [1, 1, 2, 3, 4, 5], "throws": throws}],
    }
    with pytest.raises(RuleError, match="throws"):
        read_document(document)
