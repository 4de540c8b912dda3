"""Every example of docs/rules.md §13, and the joker and +100 cases around them."""

import pytest

from scorekeeper.rules import BARRED_BY_DICE, Entry, RuleError, Rules, score

from .helpers import cell, play, solo


@pytest.mark.parametrize(
    ("box", "dice", "points"),
    [
        ("sixes", (6, 6, 6, 2, 1), 18),
        ("three_kind", (6, 6, 6, 5, 4), 27),
        ("four_kind", (5, 5, 5, 5, 2), 22),
        ("small_straight", (1, 2, 4, 5, 6), 0),
        ("small_straight", (3, 4, 5, 6, 6), 30),
        ("full_house", (2, 2, 2, 2, 2), 0),
    ],
)
def test_classique_examples(box, dice, points):
    state = solo([(box, dice)])
    assert cell(state, box).points == points


def test_five_alike_is_no_full_while_the_yams_box_is_free():
    state = solo([("full_house", (2, 2, 2, 2, 2))])
    assert cell(state, "full_house").barred_by == BARRED_BY_DICE
    assert not cell(state, "full_house").joker


def test_second_yams_goes_to_the_matching_upper_box_with_100():
    state = solo([("yams", (6, 6, 6, 6, 6)), ("fours", (4, 4, 4, 4, 4))])
    assert cell(state, "fours").points == 20
    assert cell(state, "fours").yams_bonus == 100
    sheet = state.sheets[0]
    assert (sheet.upper, sheet.lower, sheet.yams_bonus, sheet.total) == (20, 50, 100, 170)


def test_joker_forbids_another_box_while_the_upper_box_is_free():
    state = solo([("yams", (6, 6, 6, 6, 6))])
    with pytest.raises(RuleError) as caught:
        state.play(Entry(0, "free", "chance", (4, 4, 4, 4, 4)))
    assert "Joker" in str(caught.value) and "Quatre" in str(caught.value)


def test_joker_full_value_in_large_straight_once_the_upper_box_is_filled():
    state = solo(
        [("yams", (3, 3, 3, 3, 3)), ("fours", (4, 4, 1, 2, 3)), ("large_straight", (4, 4, 4, 4, 4))]
    )
    assert cell(state, "large_straight").points == 40
    assert cell(state, "large_straight").yams_bonus == 100


def test_barred_yams_box_gives_no_bonus_but_the_joker_still_directs():
    state = solo([("yams", (1, 2, 3, 4, 6))])
    assert cell(state, "yams").points == 0
    placement = state.placement(0, "free", (6, 6, 6, 6, 6))
    assert placement.boxes == ("sixes",)
    state = state.play(Entry(0, "free", "sixes", (6, 6, 6, 6, 6)))
    assert cell(state, "sixes").points == 30
    assert cell(state, "sixes").yams_bonus == 0


def test_joker_with_every_lower_box_filled_bars_an_upper_box():
    lower = [
        ("three_kind", (1, 1, 1, 2, 3)),
        ("four_kind", (1, 1, 1, 1, 2)),
        ("full_house", (1, 1, 1, 2, 2)),
        ("small_straight", (1, 2, 3, 4, 6)),
        ("large_straight", (1, 2, 3, 4, 5)),
        ("yams", (2, 2, 2, 2, 2)),
        ("chance", (1, 1, 2, 2, 3)),
        ("fives", (5, 5, 1, 1, 1)),
    ]
    state = solo(lower)
    placement = state.placement(0, "free", (5, 5, 5, 5, 5))
    assert set(placement.boxes) == {"ones", "twos", "threes", "fours", "sixes"}
    assert "barrer" in str(placement.forced)
    state = state.play(Entry(0, "free", "ones", (5, 5, 5, 5, 5)))
    assert cell(state, "ones").points == 0
    assert cell(state, "ones").yams_bonus == 100


def test_free_joker_goes_anywhere_with_full_values():
    state = solo([("yams", (6, 6, 6, 6, 6)), ("full_house", (4, 4, 4, 4, 4))], joker="free")
    assert cell(state, "full_house").points == 25
    assert cell(state, "full_house").yams_bonus == 100


def test_yams_bonus_can_be_switched_off():
    state = solo([("yams", (6, 6, 6, 6, 6)), ("fours", (4, 4, 4, 4, 4))], yams_bonus=False)
    assert cell(state, "fours").yams_bonus == 0
    assert state.sheets[0].total == 70


@pytest.mark.parametrize(
    ("options", "box", "dice", "points"),
    [
        ({"three_kind": "base"}, "three_kind", (4, 4, 4, 2, 1), 22),
        ({"four_kind": "base"}, "four_kind", (3, 3, 3, 3, 6), 32),
        ({"full_house": "base"}, "full_house", (5, 5, 2, 2, 2), 26),
        ({"four_kind": "fixed40"}, "four_kind", (1, 1, 1, 1, 2), 40),
        # « Dés identiques seulement »: only the alike dice count, even when five are alike.
        ({"three_kind": "matching"}, "three_kind", (6, 6, 4, 1, 6), 18),
        ({"four_kind": "matching"}, "four_kind", (5, 5, 5, 5, 2), 20),
        ({"three_kind": "matching"}, "three_kind", (6, 6, 6, 6, 6), 18),
        ({"four_kind": "matching"}, "four_kind", (6, 6, 6, 6, 6), 24),
    ],
)
def test_scoring_option_examples(options, box, dice, points):
    assert cell(solo([(box, dice)], **options), box).points == points


def test_matching_is_a_variable_box_for_la_vache():
    rules = Rules.from_dict({"vache": True, "three_kind": "matching"})
    state = play(
        rules, ["Mag", "Alix"], [("three_kind", (5, 5, 5, 1, 2)), ("three_kind", (4, 4, 4, 6, 6))]
    )
    # Alix's three fours (12) fall under Mag's three fives (15): barred, although the sum of
    # her dice (24) would have beaten Mag's 17.
    assert [cell(state, "three_kind", seat).points for seat in (0, 1)] == [15, 0]


@pytest.mark.parametrize(
    ("box", "dice", "points"),
    [
        ("pair", (6, 6, 5, 5, 1), 12),
        ("two_pairs", (6, 6, 5, 5, 1), 22),
        ("small_straight", (1, 2, 3, 4, 5), 15),
        ("large_straight", (2, 3, 4, 5, 6), 20),
        ("full_house", (2, 2, 3, 3, 3), 13),
        ("three_kind", (2, 2, 2, 5, 6), 6),
        ("four_kind", (6, 6, 6, 6, 6), 24),
    ],
)
def test_yatzy_examples(box, dice, points):
    assert cell(solo([(box, dice)], preset="yatzy"), box).points == points


def test_yatzy_has_no_joker_and_no_bonus():
    state = solo([("yams", (6, 6, 6, 6, 6)), ("full_house", (4, 4, 4, 4, 4))], preset="yatzy")
    assert cell(state, "full_house").points == 0
    assert state.sheets[0].yams_bonus == 0


def test_seed_example_la_vache():
    """Mag writes 24 in Six; Alix's four sixes may follow, her three sixes are barred."""
    rules = Rules(vache=True)
    state = play(rules, ["Mag", "Alix"], [("sixes", (6, 6, 6, 6, 2))])
    assert state.vache_floor(1, "free", "sixes") == 24
    assert state.preview((6, 6, 6, 6, 1))["free", "sixes"].points == 24
    barred = state.preview((6, 6, 6, 3, 1))["free", "sixes"]
    assert (barred.points, barred.barred_by) == (0, "vache")


def test_maximum_score_is_1575():
    # Thirteen Yams: the Yams box first, then every other box by joker, each with +100.
    turns = [("yams", (6, 6, 6, 6, 6))]
    turns += [
        (box, (face,) * 5)
        for face, box in enumerate(["ones", "twos", "threes", "fours", "fives", "sixes"], start=1)
    ]
    turns += [
        (box, (6,) * 5)
        for box in [
            "three_kind",
            "four_kind",
            "full_house",
            "small_straight",
            "large_straight",
            "chance",
        ]
    ]
    state = solo(turns)
    assert state.is_over
    assert state.sheets[0].total == 1575


def test_score_function_is_the_one_used_by_the_game():
    assert score(Rules(), "chance", (1, 2, 3, 4, 5)) == 15
