"""Yahtzee and Kniffel (docs/rules.md §12): every worked example of the sources the rules
document cites, replayed from game documents, by the engine and by `scorekeeper replay`; then
their jokers, Kniffel's +50 and their own words."""

import json

import pytest
from click.testing import CliRunner

from scorekeeper.cli import main
from scorekeeper.rules import Entry, RuleError, Rules, read_document
from scorekeeper.rules.results import rules_key

from .helpers import cell, play

HASBRO = "Hasbro booklet (rogerhurwitz/yahtz rules.md)"
TARNINGSSPEL = "tarningsspel.se, Internationell yatzy"
MAPLESOFT = "Maplesoft Yahtzee help"
VERHOEFF = "Verhoeff's rules page"
SCHMIDT = "Schmidt Reise-Kniffel rulebook, p. 4"
KITKNIFF = "sternenbotschaft.de, KitKniff rules"
RUNDSCHAU = "Kölnische Rundschau, Kniffel – die Regeln"

# Turns a joker example needs first, with what they write: a Yahtzee box barred or at 50,
# the upper box of the Yahtzee's face filled.
YAHTZEE_BARRED = [("yams", [1, 2, 3, 4, 6], 0)]
FOURS_FILLED = [("fours", [4, 4, 1, 2, 3], 8)]
KNIFFEL_FIFTY = [("yams", [3, 3, 3, 3, 3], 50)]
FIVES_FILLED = [("fives", [5, 5, 1, 2, 3], 10)]

# (source, preset, turns played before, box, dice, points written, bonus earned). Yahtzee's
# examples hold for Kniffel too (the same boxes and scores, docs/rules.md §12).
EXAMPLES = [
    (HASBRO, "yahtzee", [], "threes", [3, 3, 3, 2, 4], 9, 0),
    (HASBRO, "yahtzee", [], "twos", [3, 3, 3, 2, 4], 2, 0),
    (HASBRO, "yahtzee", [], "fours", [3, 3, 3, 2, 4], 4, 0),
    (HASBRO, "yahtzee", [], "three_kind", [5, 5, 5, 2, 1], 18, 0),
    (HASBRO, "yahtzee", [], "chance", [5, 5, 5, 2, 1], 18, 0),
    (HASBRO, "yahtzee", [], "fives", [5, 5, 5, 2, 1], 15, 0),
    (HASBRO, "yahtzee", [], "twos", [5, 5, 5, 2, 1], 2, 0),
    (HASBRO, "yahtzee", [], "ones", [5, 5, 5, 2, 1], 1, 0),
    (HASBRO, "yahtzee", [], "four_kind", [2, 2, 2, 2, 6], 14, 0),
    (HASBRO, "yahtzee", [], "three_kind", [2, 2, 2, 2, 6], 14, 0),
    (HASBRO, "yahtzee", [], "chance", [2, 2, 2, 2, 6], 14, 0),
    (HASBRO, "yahtzee", [], "twos", [2, 2, 2, 2, 6], 8, 0),
    (HASBRO, "yahtzee", [], "sixes", [2, 2, 2, 2, 6], 6, 0),
    (HASBRO, "yahtzee", [], "full_house", [3, 3, 3, 5, 5], 25, 0),
    (HASBRO, "yahtzee", [], "three_kind", [3, 3, 3, 5, 5], 19, 0),
    (HASBRO, "yahtzee", [], "chance", [3, 3, 3, 5, 5], 19, 0),
    (HASBRO, "yahtzee", [], "threes", [3, 3, 3, 5, 5], 9, 0),
    (HASBRO, "yahtzee", [], "fives", [3, 3, 3, 5, 5], 10, 0),
    # « 1 2 3 4 X », « 2 3 4 5 X », « 3 4 5 6 X »: any fifth die.
    (HASBRO, "yahtzee", [], "small_straight", [1, 2, 3, 4, 1], 30, 0),
    (HASBRO, "yahtzee", [], "small_straight", [2, 3, 4, 5, 2], 30, 0),
    (HASBRO, "yahtzee", [], "small_straight", [3, 4, 5, 6, 6], 30, 0),
    (HASBRO, "yahtzee", [], "large_straight", [1, 2, 3, 4, 5], 40, 0),
    (HASBRO, "yahtzee", [], "large_straight", [2, 3, 4, 5, 6], 40, 0),
    (HASBRO, "yahtzee", [], "yams", [1, 1, 1, 1, 1], 50, 0),
    (HASBRO, "yahtzee", [], "chance", [1, 4, 5, 6, 6], 22, 0),
    # « You've already entered zero in the YAHTZEE box, and have also scored in the Fours box
    # … You decide to score 40 points in the Large Straight box. » No bonus: the box holds 0.
    (HASBRO, "yahtzee", YAHTZEE_BARRED + FOURS_FILLED, "large_straight", [4] * 5, 40, 0),
    (TARNINGSSPEL, "yahtzee", [], "three_kind", [4, 4, 4, 6, 1], 19, 0),
    (TARNINGSSPEL, "yahtzee", [], "four_kind", [4, 4, 4, 4, 1], 17, 0),
    (TARNINGSSPEL, "yahtzee", [], "chance", [1, 5, 4, 3, 3], 16, 0),
    (MAPLESOFT, "yahtzee", [], "threes", [3, 1, 3, 5, 3], 9, 0),
    (MAPLESOFT, "yahtzee", [], "full_house", [6, 6, 1, 6, 1], 25, 0),
    # « Small Straight | sequence of 4 or more | 30 »: a large straight is a small one too.
    (VERHOEFF, "yahtzee", [], "small_straight", [1, 2, 3, 4, 5], 30, 0),
    # « bei einem 5er Kniffel: 25 Punkte » in the Fünfer, « weitere 50 Punkte ».
    (SCHMIDT, "kniffel", KNIFFEL_FIFTY, "fives", [5] * 5, 25, 50),
    # « 40 Punkte für eine große Straße », the Kniffel's number box filled: no bonus.
    (SCHMIDT, "kniffel", KNIFFEL_FIFTY + FIVES_FILLED, "large_straight", [5] * 5, 40, 0),
    # « bei 4 gleichen Würfeln … (4 x 2 = 8) oder bei 2 gleichen Würfeln … (2 x 2 = 4) ».
    (KITKNIFF, "kniffel", [], "twos", [2, 2, 2, 2, 5], 8, 0),
    (KITKNIFF, "kniffel", [], "twos", [2, 2, 1, 3, 5], 4, 0),
    (RUNDSCHAU, "kniffel", [], "full_house", [4, 4, 4, 1, 1], 25, 0),
]
EXAMPLE_IDS = [
    f"{preset}-{box}-{''.join(map(str, dice))}-{len(before)}"
    for _source, preset, before, box, dice, _points, _bonus in EXAMPLES
]


def _document(preset, before, box, dice):
    turns = [*((name, roll) for name, roll, _points in before), (box, dice)]
    return {
        "rules": {"preset": preset},
        "players": ["Solo"],
        "entries": [{"player": "Solo", "box": name, "dice": roll} for name, roll in turns],
    }


@pytest.mark.parametrize(
    ("source", "preset", "before", "box", "dice", "points", "bonus"), EXAMPLES, ids=EXAMPLE_IDS
)
def test_each_worked_example_of_the_sources(source, preset, before, box, dice, points, bonus):
    presets = (preset,) if before else ("yahtzee", "kniffel")
    for played in presets:
        state = read_document(_document(played, before, box, dice)).replay()
        written = cell(state, box)
        assert (written.points, written.yams_bonus) == (points, bonus), (source, played)


def test_scorekeeper_replay_agrees_with_every_worked_example(tmp_path):
    files, expected = [], []
    for number, (_source, preset, before, box, dice, points, bonus) in enumerate(EXAMPLES):
        path = tmp_path / f"example-{number}.json"
        path.write_text(json.dumps(_document(preset, before, box, dice)), encoding="utf-8")
        files.append(str(path))
        expected.append(sum(written for *_turn, written in before) + points + bonus)
    result = CliRunner().invoke(main, ["replay", *files])
    assert result.exit_code == 0, result.output
    totals = [json.loads(line)["players"][0]["total"] for line in result.output.splitlines()]
    assert totals == expected


def _yahtzee(turns, **options):
    return play(Rules.from_dict({"preset": "yahtzee", **options}), ["Solo"], turns)


def _kniffel(turns):
    return play(Rules.from_dict({"preset": "kniffel"}), ["Solo"], turns)


def test_yahtzee_plays_the_booklets_forced_joker_by_default():
    # « Score the total of all 5 dice in the appropriate Upper Section box » first.
    state = _yahtzee([("yams", [6] * 5)])
    assert state.rules.joker == "official"
    assert state.placement(0, "free", (4,) * 5).boxes == ("fours",)
    with pytest.raises(RuleError, match="Quatre"):
        state.play(Entry(0, "free", "large_straight", (4,) * 5))
    state = state.play(Entry(0, "free", "fours", (4,) * 5))
    assert (cell(state, "fours").points, cell(state, "fours").yams_bonus) == (20, 100)


def test_verhoeffs_choice_lets_a_yahtzee_go_anywhere_full_value_once_its_box_is_filled():
    # docs/rules.md §4: any free box; Full and the straights at full value only once the
    # face's upper box is filled; the +100 wherever it goes.
    state = _yahtzee([("yams", [6] * 5)], joker="free_choice")
    assert "chance" in state.placement(0, "free", (4,) * 5).boxes
    before = state.preview((4,) * 5)
    assert before["free", "large_straight"].points == 0
    assert before["free", "full_house"].points == 0
    assert before["free", "twos"].points == 0
    assert before["free", "fours"].points == 20
    assert {cell.yams_bonus for cell in before.values()} == {100}
    state = state.play(Entry(0, "free", "fours", (4, 4, 1, 2, 3)))
    after = state.preview((4,) * 5)
    assert (after["free", "large_straight"].points, after["free", "full_house"].points) == (40, 25)
    # The classique sheet's free joker gives the full value at once.
    free = _yahtzee([("yams", [6] * 5)], joker="free").preview((4,) * 5)
    assert free["free", "large_straight"].points == 40


def test_a_second_kniffel_must_take_its_number_box_with_50():
    state = _kniffel([("yams", [3] * 5)])
    assert state.placement(0, "free", (5,) * 5).boxes == ("fives",)
    with pytest.raises(RuleError, match="Fünfer"):
        state.play(Entry(0, "free", "three_kind", (5,) * 5))
    # Outside its number's box a Kniffel earns nothing more: no +100 in Kniffel.
    state = _kniffel([("yams", [3] * 5), ("fives", [5] * 5), ("chance", [5] * 5)])
    assert cell(state, "fives").yams_bonus == 50
    assert (cell(state, "chance").points, cell(state, "chance").yams_bonus) == (25, 0)
    sheet = state.sheets[0]
    assert (sheet.upper, sheet.lower, sheet.yams_bonus, sheet.total) == (25, 75, 50, 150)


def test_a_barred_kniffel_box_still_brings_the_joker_and_the_50():
    # « einen Eintrag in seinem Kniffelfeld »: any entry, 0 too (docs/rules.md §12, Choice).
    state = _kniffel([("yams", [1, 2, 3, 4, 6]), ("sixes", [6] * 5)])
    assert (cell(state, "sixes").points, cell(state, "sixes").yams_bonus) == (30, 50)
    # A Yahtzee box at 0 earns nothing (the booklet), though the joker still directs.
    state = _yahtzee([("yams", [1, 2, 3, 4, 6]), ("sixes", [6] * 5)])
    assert (cell(state, "sixes").points, cell(state, "sixes").yams_bonus) == (30, 0)


def test_a_kniffel_with_every_lower_box_filled_strikes_an_upper_box_without_50():
    lower = [
        ("three_kind", [1, 1, 1, 2, 3]),
        ("four_kind", [1, 1, 1, 1, 2]),
        ("full_house", [1, 1, 1, 2, 2]),
        ("small_straight", [1, 2, 3, 4, 6]),
        ("large_straight", [1, 2, 3, 4, 5]),
        ("yams", [2] * 5),
        ("chance", [1, 1, 2, 2, 3]),
        ("fives", [5, 5, 1, 1, 1]),
    ]
    state = _kniffel(lower)
    placement = state.placement(0, "free", (5,) * 5)
    assert set(placement.boxes) == {"ones", "twos", "threes", "fours", "sixes"}
    state = state.play(Entry(0, "free", "ones", (5,) * 5))
    assert (cell(state, "ones").points, cell(state, "ones").yams_bonus) == (0, 0)


def test_kniffels_50_in_a_down_column_goes_with_its_number_box():
    rules = Rules.from_dict({"preset": "kniffel", "columns": ["down"]})
    boxes = rules.boxes
    turns = [(box, [1, 2, 3, 4, 6]) for box in boxes[: boxes.index("yams") + 1]]
    state = play(rules, ["Solo"], turns)
    assert cell(state, "yams", column="down").points == 0
    # The order's next box is Chance: a Kniffel there is no number box, so no +50.
    state = state.play(Entry(0, "down", "chance", (6,) * 5))
    assert cell(state, "chance", column="down").yams_bonus == 0
    # An up column starts at Chance and reaches the upper boxes with the Kniffel box filled.
    rules = Rules.from_dict({"preset": "kniffel", "columns": ["up"]})
    turns = [(box, [3] * 5) for box in reversed(rules.boxes[6:])] + [("sixes", [6] * 5)]
    state = play(rules, ["Solo"], turns)
    assert (
        cell(state, "sixes", column="up").points,
        cell(state, "sixes", column="up").yams_bonus,
    ) == (
        30,
        50,
    )


def test_kniffel_names_its_boxes_in_german_in_every_language():
    rules = Rules.from_dict({"preset": "kniffel"})
    assert [rules.box_labels[box] for box in rules.boxes] == [
        "Einser",
        "Zweier",
        "Dreier",
        "Vierer",
        "Fünfer",
        "Sechser",
        "Dreierpasch",
        "Viererpasch",
        "Full House",
        "Kleine Straße",
        "Große Straße",
        "Kniffel",
        "Chance",
    ]
    state = _kniffel([("sixes", [6, 6, 1, 2, 3])])
    with pytest.raises(RuleError) as caught:
        state.play(Entry(0, "free", "sixes", (6,) * 5))
    # The sentence goes through the translation, the box's German name does not.
    rendered = caught.value.render(lambda text: f"[{text}]")
    assert rendered == "[La case Sechser est déjà remplie.]"
    assert Rules.from_dict({"preset": "yahtzee"}).box_labels["yams"] == "Yahtzee"


def test_yahtzee_and_kniffel_are_rule_sets_of_their_own():
    keys = {
        rules_key({"preset": preset}) for preset in ("classique", "yahtzee", "kniffel", "yatzy")
    }
    assert len(keys) == 4
    for options in (
        {"preset": "yahtzee", "joker": "free_choice", "vache": True, "columns": ["free", "sec"]},
        {"preset": "kniffel", "columns": ["down", "up", "free"]},
    ):
        rules = Rules.from_dict(options)
        assert Rules.from_dict(rules.to_dict()) == rules
    assert Rules.from_dict({"preset": "kniffel"}).to_dict() == {
        "preset": "kniffel",
        "columns": ["free"],
        "vache": False,
    }


@pytest.mark.parametrize("preset", ["yahtzee", "kniffel"])
def test_a_box_of_another_rule_set_or_a_die_too_many_is_refused(preset):
    state = play(Rules.from_dict({"preset": preset}), ["Solo"], [])
    with pytest.raises(RuleError, match="pair"):
        state.score(Entry(0, "free", "pair", (6, 6, 1, 2, 3)))
    for dice in ((6, 6, 6, 6, 6, 6), (6, 6, 6, 6, 6, 6, 6)):
        with pytest.raises(RuleError):
            state.score(Entry(0, "free", "sixes", dice))
