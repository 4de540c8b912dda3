"""One turn of throws, vectorised over many sheet states at once.

The dice are multisets: a *keep* is the dice a player sets aside (none to all of them) and a
*roll* is a keep of all the dice: 462 keeps and 252 rolls with five dice, 924 keeps and 462
rolls with six (Yams 6). Arrays of values have one row per keep of a given size and one
column per sheet state, so that every step below is a whole-array numpy operation.
"""

from collections import Counter
from functools import cache
from itertools import combinations_with_replacement
from math import factorial, prod

import numpy as np

FACES = (1, 2, 3, 4, 5, 6)
# The throws of a turn, and after which ones dice may still be set aside.
THROWS_PER_TURN = 3


class Throws:
    """The keeps and rolls of ``dice`` dice, and the arithmetic of a turn over them."""

    def __init__(self, dice: int) -> None:
        self.dice = dice
        self.keeps = [list(combinations_with_replacement(FACES, size)) for size in range(dice + 1)]
        self.rolls = self.keeps[dice]
        self.keep_index = [
            {keep: index for index, keep in enumerate(level)} for level in self.keeps
        ]
        self.roll_index = self.keep_index[dice]
        # The chance of each roll: the orders its dice can come in, over all 6 ** dice throws.
        self.roll_chances = (
            np.array(
                [
                    factorial(dice) / prod(factorial(count) for count in Counter(roll).values())
                    for roll in self.rolls
                ]
            )
            / len(FACES) ** dice
        )
        self._add = [self._adding_one_die(size) for size in range(dice)]
        self._remove = [None] + [self._removing_one_die(size) for size in range(1, dice + 1)]

    @staticmethod
    @cache  # one per number of dice: the tables above take a fraction of a second
    def of(dice: int) -> "Throws":
        return Throws(dice)

    def _adding_one_die(self, size: int) -> np.ndarray:
        """For each keep of ``size`` dice, the keeps one more die gives, one column per face."""
        return np.array(
            [
                [self.keep_index[size + 1][tuple(sorted(keep + (face,)))] for face in FACES]
                for keep in self.keeps[size]
            ]
        )

    def _removing_one_die(self, size: int) -> list[tuple[np.ndarray | None, np.ndarray]]:
        """For each keep of ``size`` dice, the keeps one die fewer gives, one per face it
        shows, as columns: the n-th smaller keep of each keep (None: of every keep) that has
        one.

        Most keeps show n faces or more for the first columns: there the others repeat their
        first smaller keep, which changes nothing to a maximum and reads whole arrays; the
        last columns list their few keeps (66 rolls of 252 show four faces, 6 show five).
        """
        smaller = [
            [
                self.keep_index[size - 1][keep[:i] + keep[i + 1 :]]
                for i in range(size)
                if i == 0 or keep[i] != keep[i - 1]
            ]
            for keep in self.keeps[size]
        ]
        columns = []
        for number in range(max(len(keeps) for keeps in smaller)):
            having = [index for index, keeps in enumerate(smaller) if len(keeps) > number]
            if 2 * len(having) > len(smaller):
                columns.append(
                    (
                        None,
                        np.array(
                            [
                                keeps[number] if len(keeps) > number else keeps[0]
                                for keeps in smaller
                            ]
                        ),
                    )
                )
            else:
                columns.append(
                    (np.array(having), np.array([smaller[index][number] for index in having]))
                )
        return columns

    def averages(self, rolls: np.ndarray) -> list[np.ndarray]:
        """The expected value of each keep, when the dice not kept are thrown, given the value
        of each roll (rows of ``rolls``); one array per keep size, the last being ``rolls``.

        Throwing the missing dice one at a time gives the same outcome as throwing them
        together, so each size is the mean over the six faces of the size above: 6 reads per
        keep instead of a keeps x rolls probability matrix. A 1 added to a keep comes first:
        those keeps open the size above in the same order, a slice instead of a read.
        """
        levels = [rolls]
        for size in range(self.dice - 1, -1, -1):
            above = levels[0]
            children = self._add[size]
            total = above[: len(children)] + above[children[:, 1]]
            for face in range(2, len(FACES)):
                total += above[children[:, face]]
            total /= len(FACES)
            levels.insert(0, total)
        return levels

    def best_keeps(self, levels: list[np.ndarray]) -> np.ndarray:
        """For each roll, the value of the best keep among its dice (all of them included).

        The best keep inside a multiset is the better of keeping it whole and the best keep
        inside one of the multisets one die smaller: one pass from the empty keep up to the
        rolls.
        """
        best = levels[0]
        for size in range(1, self.dice + 1):
            # In place: each level is read once, here, and the caller needs only the result.
            current = levels[size]
            for keeps, smaller in self._remove[size]:
                if keeps is None:
                    np.maximum(current, best[smaller], out=current)
                else:
                    current[keeps] = np.maximum(current[keeps], best[smaller])
            best = current
        return best

    def keep_values(self, last_roll: np.ndarray, throws_left: int) -> list[np.ndarray]:
        """The expected value of each keep, one array per keep size (rows in ``keeps``
        order), when the dice not kept are thrown ``throws_left`` more times, the best keep
        picked between throws, and the last roll is final.

        ``last_roll`` holds, for each roll (row) and state (column), what the roll is worth
        when it is the final one: the best box for it plus the value of the sheet after.
        """
        return self.averages(self.rolls_worth(last_roll, throws_left - 1))

    def rolls_worth(self, last_roll: np.ndarray, throws_left: int) -> np.ndarray:
        """What each roll is worth with ``throws_left`` throws still to come, the best keep
        among its dice set aside before each."""
        value = last_roll.copy()  # best_keeps works in place
        for _ in range(throws_left):
            value = self.best_keeps(self.averages(value))
        return value

    def first_roll_worth(
        self, last_roll: np.ndarray | None, first_only: np.ndarray | None = None
    ) -> np.ndarray:
        """What each roll of the first throw is worth, for each state (column): the best of
        throwing again twice (``last_roll``: what the third roll is worth, None when no
        column takes it) and of scoring it now in a column played in one throw, Yams sec
        (``first_only``, None when no such column is open)."""
        if last_roll is None:
            return first_only
        worth = self.rolls_worth(last_roll, THROWS_PER_TURN - 1)
        return worth if first_only is None else np.maximum(worth, first_only)

    def turn_value(
        self, last_roll: np.ndarray | None, first_only: np.ndarray | None = None
    ) -> np.ndarray:
        """Expected value of a turn before its first throw, for each state (column).

        The first throw keeps nothing: its value is the rolls' weighted sum (einsum without
        ``optimize`` is numpy's own loop: no BLAS, no thread).
        """
        return np.einsum("r,rs->s", self.roll_chances, self.first_roll_worth(last_roll, first_only))


FIVE_DICE = Throws.of(5)
# The five-dice rolls, as most of the app plays them.
ROLLS = FIVE_DICE.rolls
