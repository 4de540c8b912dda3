"""Every box against a hand-written definition, on every one of the 7,776 ordered rolls."""

from itertools import product

import pytest

from scorekeeper.rules import Rules, is_variable, score

EVERY_ROLL = list(product(range(1, 7), repeat=5))


def n_alike(dice):
    return max(dice.count(face) for face in range(1, 7))


def is_full(dice):
    return sorted(dice.count(face) for face in set(dice)) == [2, 3]


def has_run(dice, run):
    return all(face in dice for face in run)


def classique_reference(box, dice, rules, joker=False):
    """docs/rules.md §2 and §6, written plainly and independently of the engine."""
    faces = {"ones": 1, "twos": 2, "threes": 3, "fours": 4, "fives": 5, "sixes": 6}
    if box in faces:
        return faces[box] * dice.count(faces[box])
    if box in ("chance", "plus", "minus"):
        return sum(dice)
    if box == "three_kind":
        if n_alike(dice) < 3:
            return 0
        face = next(f for f in range(1, 7) if dice.count(f) >= 3)
        return {"sum": sum(dice), "base": 10 + 3 * face, "matching": 3 * face}[rules.three_kind]
    if box == "four_kind":
        if n_alike(dice) < 4:
            return 0
        face = next(f for f in range(1, 7) if dice.count(f) >= 4)
        return {"sum": sum(dice), "fixed40": 40, "base": 20 + 4 * face, "matching": 4 * face}[
            rules.four_kind
        ]
    if box == "full_house":
        if not (is_full(dice) or joker):
            return 0
        return 25 if rules.full_house == "fixed25" else 10 + sum(dice)
    if box == "small_straight":
        runs = ((1, 2, 3, 4), (2, 3, 4, 5), (3, 4, 5, 6))
        return 30 if joker or any(has_run(dice, run) for run in runs) else 0
    if box == "large_straight":
        return 40 if joker or sorted(dice) in ([1, 2, 3, 4, 5], [2, 3, 4, 5, 6]) else 0
    if box == "yams":
        return 50 if n_alike(dice) == 5 else 0
    raise AssertionError(box)


def yatzy_reference(box, dice):
    pairs = [f for f in range(6, 0, -1) if dice.count(f) >= 2]
    if box == "pair":
        return 2 * pairs[0] if pairs else 0
    if box == "two_pairs":
        return 2 * (pairs[0] + pairs[1]) if len(pairs) >= 2 else 0
    if box == "three_kind":
        return next((3 * f for f in range(6, 0, -1) if dice.count(f) >= 3), 0)
    if box == "four_kind":
        return next((4 * f for f in range(6, 0, -1) if dice.count(f) >= 4), 0)
    if box == "small_straight":
        return 15 if sorted(dice) == [1, 2, 3, 4, 5] else 0
    if box == "large_straight":
        return 20 if sorted(dice) == [2, 3, 4, 5, 6] else 0
    if box == "full_house":
        return sum(dice) if is_full(dice) else 0
    return classique_reference(box, dice, Rules())


CLASSIQUE_VARIANTS = [
    Rules(),
    Rules(three_kind="base", four_kind="base", full_house="base"),
    Rules(four_kind="fixed40", plus_minus=True),
    Rules(three_kind="matching", four_kind="matching"),
]


@pytest.mark.parametrize(
    "rules", CLASSIQUE_VARIANTS, ids=["classique", "base", "fixed40-pm", "matching"]
)
@pytest.mark.parametrize("joker", [False, True], ids=["plain", "joker"])
def test_every_classique_box_on_every_roll(rules, joker):
    for dice in EVERY_ROLL:
        if joker and n_alike(dice) < 5:
            continue  # the joker only ever applies to a Yams
        for box in rules.boxes:
            assert score(rules, box, dice, joker=joker) == classique_reference(
                box, dice, rules, joker
            ), (box, dice)


def test_every_yatzy_box_on_every_roll():
    rules = Rules.from_dict({"preset": "yatzy"})
    assert len(rules.boxes) == 15
    for dice in EVERY_ROLL:
        for box in rules.boxes:
            assert score(rules, box, dice) == yatzy_reference(box, dice), (box, dice)


def test_six_dice_score_their_best_five():
    rules = Rules(dice=6)
    assert score(rules, "sixes", (6, 6, 6, 6, 6, 6)) == 30
    assert score(rules, "chance", (1, 6, 6, 5, 5, 4)) == 26
    assert score(rules, "large_straight", (1, 2, 3, 4, 5, 5)) == 40
    assert score(rules, "full_house", (2, 2, 2, 3, 3, 1)) == 25
    assert score(rules, "yams", (4, 4, 4, 4, 4, 1)) == 50
    assert score(rules, "three_kind", (6, 6, 6, 1, 1, 5)) == 6 * 3 + 5 + 1


def test_six_dice_match_the_best_five_on_many_rolls():
    rules = Rules(dice=6)
    for dice in list(product(range(1, 7), repeat=6))[::7]:
        for box in rules.boxes:
            best = max(classique_reference(box, dice[:i] + dice[i + 1 :], rules) for i in range(6))
            assert score(rules, box, dice) == best, (box, dice)


@pytest.mark.parametrize(
    ("options", "variable"),
    [
        ({}, {"ones", "sixes", "three_kind", "four_kind", "chance"}),
        ({"four_kind": "fixed40"}, {"ones", "sixes", "three_kind", "chance"}),
        (
            {"three_kind": "matching", "four_kind": "matching"},
            {"ones", "sixes", "three_kind", "four_kind", "chance"},
        ),
        (
            {"full_house": "base", "plus_minus": True},
            {"ones", "sixes", "three_kind", "four_kind", "full_house", "plus", "minus"},
        ),
        (
            {"preset": "yatzy"},
            {
                "ones",
                "sixes",
                "pair",
                "two_pairs",
                "three_kind",
                "four_kind",
                "full_house",
                "chance",
            },
        ),
    ],
)
def test_variable_boxes_for_la_vache(options, variable):
    rules = Rules.from_dict(options)
    fixed = {"small_straight", "large_straight", "yams", "full_house", "four_kind"} - variable
    for box in rules.boxes:
        if box in variable:
            assert is_variable(rules, box), box
        elif box in fixed:
            assert not is_variable(rules, box), box
