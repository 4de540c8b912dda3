"""An independent reference for the advisor: the rest of a solo game by plain recursion.

It shares nothing with the advisor's solver but the rules engine: every score, every allowed
box, the column's order, the upper bonus, Plus et Moins, the +100 and Generala's servida
come from ``GameState.preview`` and ``GameState.play``; the dice probabilities come from
enumerating every ordered throw; keeps are every sub-multiset. Only the end of a game (a
few boxes left) is small enough for it. Generala with ``servida_wins`` ends a game the
solitaire table goes on valuing: ask it of the same rules with ``servida_wins`` off.
"""

from collections import Counter
from functools import cache
from itertools import combinations, combinations_with_replacement, product

import numpy as np

from scorekeeper.rules import Column, Entry, GameState, Rules

ROLLS = list(combinations_with_replacement(range(1, 7), 5))


@cache
def rolls(dice: int) -> list[tuple[int, ...]]:
    return list(combinations_with_replacement(range(1, 7), dice))


@cache
def throws(count: int) -> list[tuple[tuple[int, ...], float]]:
    """Each sorted outcome of throwing ``count`` dice, with its probability."""
    outcomes = Counter(tuple(sorted(throw)) for throw in product(range(1, 7), repeat=count))
    return [(outcome, times / 6**count) for outcome, times in outcomes.items()]


@cache
def keeps(roll: tuple[int, ...]) -> set[tuple[int, ...]]:
    return {keep for size in range(len(roll) + 1) for keep in combinations(roll, size)}


@cache
def throw_results(keep: tuple[int, ...], dice: int) -> list[tuple[tuple[int, ...], float]]:
    """Each roll that keeping ``keep`` and throwing the other dice ends on, with its chance."""
    return [
        (tuple(sorted(keep + outcome)), probability)
        for outcome, probability in throws(dice - len(keep))
    ]


@cache
def keep_chances(dice: int) -> tuple[np.ndarray, dict[tuple[int, ...], int]]:
    """Every keep's chances over ``rolls(dice)``, a row each, and each keep's row: a throw's
    keeps are one product (keep_value's sums)."""
    index = {roll: column for column, roll in enumerate(rolls(dice))}
    row_of: dict[tuple[int, ...], int] = {}
    for roll in rolls(dice):
        for keep in keeps(roll):
            row_of.setdefault(keep, len(row_of))
    chances = np.zeros((len(row_of), len(index)))
    for keep, row in row_of.items():
        for roll, probability in throw_results(keep, dice):
            chances[row, index[roll]] = probability
    return chances, row_of


@cache
def _roll_keep_rows(dice: int) -> list[np.ndarray]:
    _, row_of = keep_chances(dice)
    return [np.array([row_of[keep] for keep in keeps(roll)]) for roll in rolls(dice)]


class BruteForce:
    """The rest of the game of the only player of a game of one column (any kind)."""

    def __init__(self) -> None:
        self._memo: dict[tuple, float] = {}

    def rest(self, state: GameState) -> float:
        """Expected points still to come for the only player, under optimal play."""
        kind = state.rules.columns[0]
        key = self._key(state.rules, state.sheets[0].columns[kind])
        if state.is_over:
            self._memo[key] = 0.0
        elif key not in self._memo:
            dice = state.rules.dice
            last = {
                roll: max(gain for _, gain in self.choices(state, roll)) for roll in rolls(dice)
            }
            if kind == "sec":  # one throw a turn
                self._memo[key] = sum(
                    probability * last[roll] for roll, probability in throws(dice)
                )
            else:
                second = self.best_keeps(last, dice)
                first = self.best_keeps(second, dice)
                if state.rules.counts_throws:
                    # Generala: the first throw's dice may be scored at once, as a servida.
                    first = {
                        roll: max(value, *(gain for _, gain in self.choices(state, roll, 1)))
                        for roll, value in first.items()
                    }
                self._memo[key] = self.keep_value((), first, dice)
        return self._memo[key]

    def choices(
        self, state: GameState, dice: tuple[int, ...], throw: int | None = None
    ) -> list[tuple[str, float]]:
        """Each allowed box for ``dice`` (of ``throw``, when said) and the points it brings
        now and later."""
        kind = state.rules.columns[0]
        column = state.sheets[0].columns[kind]
        result = []
        for (_, box), cell in state.preview(dice, throw=throw).items():
            after = column.with_score(cell)
            later = self._memo.get(self._key(state.rules, after))
            if later is None:
                later = self.rest(state.play(Entry(0, kind, box, dice, throw)))
            result.append((box, after.total - column.total + later))
        return result

    @staticmethod
    def _key(rules: Rules, column: Column) -> tuple:
        # What the future depends on; the upper total is kept exact (not capped at 63), and
        # Plus or Moins written while the other is free is kept with its value.
        yams = column.cells["yams"].points if "yams" in column.cells else None
        generala = column.cells["generala"].points if "generala" in column.cells else None
        written = [column.cells[box].points for box in ("plus", "minus") if box in column.cells]
        bound = written[0] if len(written) == 1 else None
        return rules, frozenset(column.cells), column.upper, yams, generala, bound

    def best_keeps(
        self, after: dict[tuple[int, ...], float], dice: int = 5
    ) -> dict[tuple[int, ...], float]:
        chances, _ = keep_chances(dice)
        values = chances @ np.array([after[roll] for roll in rolls(dice)])
        return {
            roll: float(values[keep_rows].max())
            for roll, keep_rows in zip(rolls(dice), _roll_keep_rows(dice), strict=True)
        }

    @staticmethod
    def keep_value(
        keep: tuple[int, ...], after: dict[tuple[int, ...], float], dice: int = 5
    ) -> float:
        return sum(probability * after[roll] for roll, probability in throw_results(keep, dice))
