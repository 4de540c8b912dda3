"""The dice to keep after the first and second throws, against the independent brute force
on the end of a game, and against the table's own value of the state."""

from collections import Counter
from itertools import combinations, product

import pytest

from scorekeeper.advisor.solver import build_table
from scorekeeper.advisor.strategy import Strategy
from scorekeeper.advisor.tables import check_throw
from scorekeeper.advisor.turn import ROLLS
from scorekeeper.rules import Rules
from scorekeeper.rules.errors import RuleError
from tests.advisor.brute_force import BruteForce
from tests.advisor.helpers import solo_state

# (rules, boxes left to play, points already written in some of the others; the rest hold 0).
SUB_GAMES = [
    pytest.param(
        {},
        ["fives", "sixes", "yams"],
        {"ones": 4, "twos": 8, "threes": 9, "fours": 12},
        id="upper-bonus-and-yams",
    ),
    pytest.param(
        {}, ["fours", "full_house", "large_straight"], {"yams": 50}, id="official-joker-and-100"
    ),
    pytest.param(
        {"joker": "free", "three_kind": "base"},
        ["three_kind", "small_straight"],
        {"yams": 50},
        id="free-joker",
    ),
    pytest.param({"preset": "yatzy"}, ["sixes", "two_pairs", "yams"], {"fives": 15}, id="yatzy"),
    pytest.param({"plus_minus": True}, ["plus", "minus"], {"sixes": 24}, id="plus-et-moins"),
    pytest.param(
        {"columns": ["up"]}, ["ones", "twos", "threes"], {"fours": 16, "yams": 50}, id="up"
    ),
]
DICE = ["55521", "66666", "12345", "44331", "61526"]


def _sub_game(options, free, points):
    rules = Rules.from_dict(options)
    written = {box: 0 for box in rules.boxes if box not in free} | points
    state = solo_state(rules, written)
    kind = rules.columns[0]
    return state, Strategy(rules, {kind: build_table(rules, kind, filled=written)}), written


ROLL_CHANCES = {
    roll: count / 6**5
    for roll, count in Counter(
        tuple(sorted(throw)) for throw in product(range(1, 7), repeat=5)
    ).items()
}


@pytest.mark.parametrize(("options", "free", "points"), SUB_GAMES)
def test_every_keep_matches_brute_force(options, free, points):
    state, strategy, _written = _sub_game(options, free, points)
    reference = BruteForce()
    last = {roll: max(gain for _, gain in reference.choices(state, roll)) for roll in ROLLS}
    second = reference.best_keeps(last)
    total = state.sheets[0].total
    for dice in DICE:
        roll = tuple(sorted(int(face) for face in dice))
        for throw, after in ((1, second), (2, last)):
            advice = strategy.advise_keeps(state, dice, throw)
            expected = {
                keep: total + (last[roll] if keep == roll else reference.keep_value(keep, after))
                for keep in {tuple(sorted(kept)) for kept in _sub_keeps(roll)}
            }
            assert {item.keep: item.expected_total for item in advice} == pytest.approx(
                expected, abs=1e-9
            )
            assert len(advice) == len(expected)
            totals = [item.expected_total for item in advice]
            assert totals == sorted(totals, reverse=True)


def _sub_keeps(roll):
    return [kept for size in range(6) for kept in combinations(roll, size)]


@pytest.mark.parametrize(("options", "free", "points"), SUB_GAMES)
def test_best_keep_averages_to_the_state_value(options, free, points):
    # Over every first roll, the best keep's total averages to the table's value of the
    # state: the keep advice and the solver agree on the whole turn.
    state, strategy, written = _sub_game(options, free, points)
    average = sum(
        ROLL_CHANCES[roll] * strategy.advise_keeps(state, roll, 1)[0].expected_total
        for roll in ROLLS
    )
    expected = state.sheets[0].total + strategy.expected_rest(
        state.sheets[0].columns[state.rules.columns[0]]
    )
    assert average == pytest.approx(expected, abs=1e-9)


def test_keeping_all_five_after_the_second_throw_is_the_best_box_now():
    state, strategy, _written = _sub_game(
        {}, ["fours", "full_house", "large_straight"], {"yams": 50}
    )
    for dice in DICE:
        kept_all = next(
            item for item in strategy.advise_keeps(state, dice, 2) if len(item.keep) == 5
        )
        assert kept_all.expected_total == pytest.approx(
            strategy.advise(state, dice)[0].expected_total, abs=1e-9
        )


def test_keeps_list_each_distinct_keep_once_lowest_face_first():
    state, strategy, _written = _sub_game({}, ["fives", "sixes"], {})
    advice = strategy.advise_keeps(state, "52551", 1)
    # 4 x 2 x 2 sub-multisets of 5-2-5-5-1 (0 to 3 fives, with or without the 2 and the 1).
    assert len(advice) == 16
    assert advice[0].keep == (5, 5, 5) and advice[0].positions == (0, 2, 3)
    kept = {item.keep: item.positions for item in advice}
    assert kept[1, 2, 5, 5] == (0, 1, 2, 4) and kept[()] == ()
    for item in advice:
        assert tuple(sorted("52551"[position] for position in item.positions)) == tuple(
            str(face) for face in item.keep
        )


@pytest.mark.parametrize(("throw", "expected"), [(None, 3), ("", 3), ("1", 1), (2, 2), (" 3 ", 3)])
def test_throw_is_read(throw, expected):
    assert check_throw(throw) == expected


@pytest.mark.parametrize("throw", ["0", "4", "deux", "1.5", True])
def test_bad_throw_says_what_to_choose(throw):
    with pytest.raises(RuleError, match="choisissez 1, 2 ou 3"):
        check_throw(throw)


def test_keeps_are_not_asked_after_the_third_throw():
    state, strategy, _written = _sub_game({}, ["fives", "sixes"], {})
    with pytest.raises(RuleError, match="après le 1er ou le 2e lancer"):
        strategy.advise_keeps(state, "55521", 3)
