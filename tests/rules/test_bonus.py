"""The upper bonus as the sheet tells it: what is missing, and the pace (docs/rules.md §2)."""

import pytest

from scorekeeper.rules import Rules
from scorekeeper.rules.bonus import (
    AHEAD,
    BEHIND,
    MISSED,
    ON_PACE,
    OUT_OF_REACH,
    REACHED,
    bonus_pace,
    bonus_words,
)
from scorekeeper.rules.sheet import Column, Score


def column(upper_points, rules=None):
    """A free column whose upper boxes hold these points (box: points)."""
    cells = {box: Score("free", box, (), points) for box, points in upper_points.items()}
    return Column(rules or Rules(), "free", cells)


def said(words):
    return words.text % words.params, words.short % words.params


THREE_OF_EACH = {"ones": 3, "twos": 6, "threes": 9, "fours": 12, "fives": 15, "sixes": 18}


@pytest.mark.parametrize(
    ("points", "pace", "missing", "balance"),
    [
        ({}, None, 63, 0),
        ({"sixes": 24}, AHEAD, 39, 6),  # four sixes: +6
        ({"ones": 2}, BEHIND, 61, -1),  # two ones: −1
        ({"ones": 3, "fours": 12}, ON_PACE, 48, 0),
        # Sixes, fives and fours barred: five of each other face is 30, short of 63.
        ({"sixes": 0, "fives": 0, "fours": 0}, OUT_OF_REACH, 63, -45),
        # Sixes and fives barred: 5 × (1 + 2 + 3 + 4) is 50 at best, still short.
        ({"sixes": 0, "fives": 0}, OUT_OF_REACH, 63, -33),
        # Sixes barred: five of each of the others make 75, so 63 can still come.
        ({"sixes": 0}, BEHIND, 63, -18),
        # Reached before the last upper box: won for good.
        ({"sixes": 30, "fives": 25, "fours": 20}, REACHED, 0, 30),
        (THREE_OF_EACH, REACHED, 0, 0),
        ({**THREE_OF_EACH, "ones": 1}, MISSED, 2, -2),
    ],
)
def test_where_the_bonus_stands(points, pace, missing, balance):
    standing = bonus_pace(column(points))
    assert (standing.pace, standing.missing, standing.balance) == (pace, missing, balance)
    assert (standing.bonus, standing.threshold) == (35, 63)
    assert standing.is_open == (pace not in (REACHED, MISSED))
    assert standing.is_behind == (pace in (BEHIND, OUT_OF_REACH))


def test_the_bonus_value_comes_from_the_rule_set():
    yatzy = Rules.from_dict({"preset": "yatzy"})
    assert bonus_pace(column(THREE_OF_EACH, yatzy)).bonus == 50
    assert said(bonus_words(column(THREE_OF_EACH, yatzy)).result) == ("50 ✓", "50 ✓")


def test_the_words_of_each_case():
    words = bonus_words(column({}))
    assert said(words.missing) == ("encore 63 pour 35", "reste 63")
    assert words.pace is None and words.explained is None and words.result is None

    words = bonus_words(column({"sixes": 24}))
    assert said(words.missing) == ("encore 39 pour 35", "reste 39")
    assert said(words.pace) == ("en avance de 6", "avance")
    assert words.explained.text % words.explained.params == (
        "Prime du haut : encore 39 points pour 35, en avance de 6 sur le rythme de trois "
        "de chaque face."
    )
    assert said(bonus_words(column({"ones": 2})).pace) == ("en retard de 1", "retard")
    assert said(bonus_words(column({"ones": 3})).pace) == ("dans le rythme", "pile")
    out = bonus_words(column({"sixes": 0, "fives": 0, "fours": 0}))
    assert said(out.pace) == ("hors d'atteinte", "perdue")
    assert "hors d'atteinte" in out.explained.text % out.explained.params

    won = bonus_words(column({"sixes": 30, "fives": 25, "fours": 20}))
    assert said(won.result) == ("35 ✓", "35 ✓") and won.missing is None and won.pace is None
    lost = bonus_words(column({**THREE_OF_EACH, "sixes": 10}))
    assert said(lost.result) == ("manqué de 8", "manqué") and lost.missing is None
