"""The turn's keep-and-throw arithmetic against the brute force's explicit probabilities,
with five dice and with six (Yams 6)."""

import numpy as np
import pytest

from scorekeeper.advisor.turn import ROLLS, Throws
from tests.advisor.brute_force import ROLLS as REFERENCE_ROLLS
from tests.advisor.brute_force import BruteForce, rolls, throws


def test_keeps_and_rolls_are_every_multiset():
    assert [len(level) for level in Throws.of(5).keeps] == [1, 6, 21, 56, 126, 252]
    assert ROLLS == REFERENCE_ROLLS
    six = Throws.of(6)
    assert sum(len(level) for level in six.keeps) == 924
    assert len(six.rolls) == 462 and six.rolls == rolls(6)
    assert six.roll_chances.sum() == pytest.approx(1, abs=1e-12)


@pytest.mark.parametrize("dice", [5, 6])
def test_constant_value_is_kept(dice):
    last_roll = np.full((len(Throws.of(dice).rolls), 3), 7.5)
    assert Throws.of(dice).turn_value(last_roll) == pytest.approx([7.5, 7.5, 7.5], abs=1e-12)


@pytest.mark.parametrize(("dice", "seed"), [(5, 0), (5, 1), (5, 2), (6, 3)])
def test_random_last_roll_values_match_explicit_enumeration(dice, seed):
    turn = Throws.of(dice)
    last_roll = np.random.default_rng(seed).uniform(0, 50, size=(len(turn.rolls), 2))
    values = turn.turn_value(last_roll)
    reference = BruteForce()
    for state in range(last_roll.shape[1]):
        after = dict(zip(turn.rolls, last_roll[:, state], strict=True))
        for _ in range(2):
            after = reference.best_keeps(after, dice)
        assert values[state] == pytest.approx(reference.keep_value((), after, dice), abs=1e-10)


def test_a_first_throw_scored_now_is_worth_the_better_of_both():
    # Sec beside other columns: after the first throw the dice may go to Sec now, or be
    # kept for two more throws; with Sec alone the turn is the first roll's weighted mean.
    turn = Throws.of(5)
    generator = np.random.default_rng(7)
    last_roll = generator.uniform(0, 50, size=(252, 2))
    first_only = generator.uniform(0, 50, size=(252, 2))
    worth = turn.rolls_worth(last_roll, 2)
    assert turn.turn_value(last_roll, first_only) == pytest.approx(
        turn.roll_chances @ np.maximum(worth, first_only), abs=1e-10
    )
    reference = dict(throws(5))
    assert turn.turn_value(None, first_only) == pytest.approx(
        [
            sum(reference[roll] * first_only[index, state] for index, roll in enumerate(ROLLS))
            for state in range(2)
        ],
        abs=1e-10,
    )


def test_chance_alone_is_worth_its_known_expectation():
    # Each die on its own: kept from 4 up after the first throw, from 5 up after the second,
    # it is worth 14/3; five of them 70/3.
    sums = np.array([[sum(roll)] for roll in ROLLS], dtype=float)
    assert Throws.of(5).turn_value(sums)[0] == pytest.approx(70 / 3, abs=1e-12)
