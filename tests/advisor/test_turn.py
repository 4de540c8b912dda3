"""The turn's keep-and-throw arithmetic against the brute force's explicit probabilities."""

import numpy as np
import pytest

from scorekeeper.advisor.turn import KEEPS, ROLLS, turn_value
from tests.advisor.brute_force import ROLLS as REFERENCE_ROLLS
from tests.advisor.brute_force import BruteForce


def test_keeps_and_rolls_are_every_multiset():
    assert [len(level) for level in KEEPS] == [1, 6, 21, 56, 126, 252]
    assert ROLLS == REFERENCE_ROLLS


def test_constant_value_is_kept():
    last_roll = np.full((252, 3), 7.5)
    assert turn_value(last_roll) == pytest.approx([7.5, 7.5, 7.5], abs=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_random_last_roll_values_match_explicit_enumeration(seed):
    last_roll = np.random.default_rng(seed).uniform(0, 50, size=(252, 4))
    values = turn_value(last_roll)
    reference = BruteForce()
    for state in range(last_roll.shape[1]):
        after = dict(zip(ROLLS, last_roll[:, state], strict=True))
        for _ in range(2):
            after = reference.best_keeps(after)
        assert values[state] == pytest.approx(reference.keep_value((), after), abs=1e-10)


def test_chance_alone_is_worth_its_known_expectation():
    # Each die on its own: kept from 4 up after the first throw, from 5 up after the second,
    # it is worth 14/3; five of them 70/3.
    sums = np.array([[sum(roll)] for roll in ROLLS], dtype=float)
    assert turn_value(sums)[0] == pytest.approx(70 / 3, abs=1e-12)
