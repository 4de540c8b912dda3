"""One turn of three throws, vectorised over many sheet states at once.

The dice are multisets: a *keep* is the dice a player sets aside (0 to 5 of them, 462 in all)
and a *roll* is a keep of all five (252). Arrays of values have one row per keep of a given
size and one column per sheet state, so that every step below is a whole-array numpy operation.
"""

from collections import Counter
from itertools import combinations_with_replacement
from math import factorial, prod

import numpy as np

FACES = (1, 2, 3, 4, 5, 6)
DICE = 5


def _keeps(size: int) -> list[tuple[int, ...]]:
    """Every multiset of ``size`` dice, as sorted tuples of faces."""
    return list(combinations_with_replacement(FACES, size))


KEEPS = [_keeps(size) for size in range(DICE + 1)]
ROLLS = KEEPS[DICE]
ROLL_INDEX = {roll: index for index, roll in enumerate(ROLLS)}
KEEP_INDEX = [{keep: index for index, keep in enumerate(level)} for level in KEEPS]
# The chance of each roll: the orders its dice can come in, over all 6 ** 5 throws.
ROLL_CHANCES = (
    np.array(
        [
            factorial(DICE) / prod(factorial(count) for count in Counter(roll).values())
            for roll in ROLLS
        ]
    )
    / len(FACES) ** DICE
)


def _adding_one_die(size: int) -> np.ndarray:
    """For each keep of ``size`` dice, the keeps one more die gives, one column per face."""
    return np.array(
        [
            [KEEP_INDEX[size + 1][tuple(sorted(keep + (face,)))] for face in FACES]
            for keep in KEEPS[size]
        ]
    )


def _removing_one_die(size: int) -> list[tuple[np.ndarray | None, np.ndarray]]:
    """For each keep of ``size`` dice, the keeps one die fewer gives, one per face it shows,
    as columns: the n-th smaller keep of each keep (None: of every keep) that has one.

    Most keeps show n faces or more for the first columns: there the others repeat their
    first smaller keep, which changes nothing to a maximum and reads whole arrays; the last
    columns list their few keeps (66 rolls of 252 show four faces, 6 show five).
    """
    smaller = [
        [
            KEEP_INDEX[size - 1][keep[:i] + keep[i + 1 :]]
            for i in range(size)
            if i == 0 or keep[i] != keep[i - 1]
        ]
        for keep in KEEPS[size]
    ]
    columns = []
    for number in range(max(len(keeps) for keeps in smaller)):
        having = [index for index, keeps in enumerate(smaller) if len(keeps) > number]
        if 2 * len(having) > len(smaller):
            columns.append(
                (
                    None,
                    np.array(
                        [keeps[number] if len(keeps) > number else keeps[0] for keeps in smaller]
                    ),
                )
            )
        else:
            columns.append(
                (np.array(having), np.array([smaller[index][number] for index in having]))
            )
    return columns


_ADD = [_adding_one_die(size) for size in range(DICE)]
_REMOVE = [None] + [_removing_one_die(size) for size in range(1, DICE + 1)]


def _averages(rolls: np.ndarray) -> list[np.ndarray]:
    """The expected value of each keep, when the dice not kept are thrown, given the value of
    each roll of five (rows of ``rolls``); one array per keep size, the last being ``rolls``.

    Throwing the missing dice one at a time gives the same outcome as throwing them together,
    so each size is the mean over the six faces of the size above: 6 reads per keep instead of
    a 462 x 252 probability matrix. A 1 added to a keep comes first: those keeps open the size
    above in the same order, a slice instead of a read.
    """
    levels = [rolls]
    for size in range(DICE - 1, -1, -1):
        above = levels[0]
        children = _ADD[size]
        total = above[: len(children)] + above[children[:, 1]]
        for face in range(2, len(FACES)):
            total += above[children[:, face]]
        total /= len(FACES)
        levels.insert(0, total)
    return levels


def _best_keeps(levels: list[np.ndarray]) -> np.ndarray:
    """For each roll, the value of the best keep among its dice (all five kept included).

    The best keep inside a multiset is the better of keeping it whole and the best keep
    inside one of the multisets one die smaller: one pass from the empty keep up to the rolls.
    """
    best = levels[0]
    for size in range(1, DICE + 1):
        # In place: each level is read once, here, and the caller needs only the result.
        current = levels[size]
        for keeps, smaller in _REMOVE[size]:
            if keeps is None:
                np.maximum(current, best[smaller], out=current)
            else:
                current[keeps] = np.maximum(current[keeps], best[smaller])
        best = current
    return best


def keep_values(last_roll: np.ndarray, throws_left: int) -> list[np.ndarray]:
    """The expected value of each keep, one array per keep size (rows in ``KEEPS`` order),
    when the dice not kept are thrown ``throws_left`` more times, the best keep picked
    between throws, and the last roll is final.

    ``last_roll`` holds, for each roll of five (row) and state (column), what the roll is worth
    when it is the final one: the best box for it plus the value of the sheet after.
    """
    return _averages(_rolls_worth(last_roll, throws_left - 1))


def turn_value(last_roll: np.ndarray) -> np.ndarray:
    """Expected value of a turn before its first throw, for each state (column): all five
    dice thrown three times.

    The first throw keeps nothing: its value is the rolls' weighted sum, 252 products
    instead of the averages of all 462 keeps (einsum without ``optimize`` is numpy's own
    loop: no BLAS, no thread).
    """
    return np.einsum("r,rs->s", ROLL_CHANCES, _rolls_worth(last_roll, 2))


def _rolls_worth(last_roll: np.ndarray, throws_left: int) -> np.ndarray:
    """What each roll is worth with ``throws_left`` throws still to come, the best keep
    among its dice set aside before each."""
    value = last_roll.copy()  # _best_keeps works in place
    for _ in range(throws_left):
        value = _best_keeps(_averages(value))
    return value
