"""A turn played by a policy: the keeps that maximise a value of the final roll, and the
chance of each final roll they lead to.

``Throws.keep_values`` gives what a keep is worth; the chances to win need more: which keep
a player picks after each throw, and so where the turn ends. Arrays hold one row per roll or
keep and one column per state, as in ``turn``; a keep's *flat index* is its place among all
the keeps (462 with five dice), sizes 0 to all the dice in turn.
"""

from functools import cache

import numpy as np

from scorekeeper.advisor.turn import FACES, Throws

# Values this close are the same worth, apart only by rounding (the same chances summed
# in another order): scoring at once then wins the tie.
ROUNDING = 1e-12


class Keeps:
    """The flat indices of the keeps of some ``Throws``."""

    @staticmethod
    @cache  # one per number of dice, as ``Throws.of``
    def of(dice: int) -> "Keeps":
        return Keeps(Throws.of(dice))

    def __init__(self, throws: Throws) -> None:
        self.throws = throws
        # Where each keep size starts among the flat indices.
        self.offsets = np.cumsum([0] + [len(level) for level in throws.keeps])
        self.count = int(self.offsets[-1])
        self.rolls = len(throws.rolls)

    def flat_index(self, keep: tuple[int, ...]) -> int:
        """The flat index of a keep (its dice sorted)."""
        size = len(keep)
        return int(self.offsets[size]) + self.throws.keep_index[size][tuple(sorted(keep))]

    def best_indexed(self, levels: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        """For each roll, the value of the best keep among its dice and that keep's flat
        index.

        The pass of ``Throws.best_keeps``, keeping the index as well. On equal values the
        larger keep wins (fewer dice to throw for the same worth), then the first smaller one
        found.
        """
        best = levels[0]
        index = np.zeros(best.shape, dtype=np.int32)
        for size in range(1, self.throws.dice + 1):
            current = levels[size].copy()
            current_index = np.empty(current.shape, dtype=np.int32)
            current_index[:] = (self.offsets[size] + np.arange(len(current)))[:, None]
            for keeps, smaller in self.throws._remove[size]:
                candidate = best.take(smaller, axis=0)
                if keeps is None:
                    better = candidate > current
                    np.copyto(current, candidate, where=better)
                    np.copyto(current_index, index.take(smaller, axis=0), where=better)
                else:
                    better = candidate > current[keeps]
                    current[keeps] = np.where(better, candidate, current[keeps])
                    current_index[keeps] = np.where(
                        better, index.take(smaller, axis=0), current_index[keeps]
                    )
            best, index = current, current_index
        return best, index

    def throw(self, keep_mass: np.ndarray) -> np.ndarray:
        """The chance of each roll when the dice of each keep (mass per flat index, per
        state) are kept and the others thrown: one die at a time, each face a sixth."""
        offsets = self.offsets
        mass = keep_mass[offsets[0] : offsets[1]]
        for size in range(self.throws.dice):
            above = keep_mass[offsets[size + 1] : offsets[size + 2]].copy()
            share = mass / len(FACES)
            # Adding one face to distinct keeps gives distinct keeps: no index repeats.
            for face in range(len(FACES)):
                above[self.throws._add[size][:, face]] += share
            mass = above
        return mass

    def kept(self, roll_mass: np.ndarray, choice: np.ndarray) -> np.ndarray:
        """The mass of each keep (flat index) when each roll's mass goes to its chosen keep."""
        states = roll_mass.shape[1]
        flat = (choice * states + np.arange(states)).ravel()
        return np.bincount(flat, weights=roll_mass.ravel(), minlength=self.count * states).reshape(
            self.count, states
        )


class TurnPolicy:
    """The best keeps for ``last_roll`` (the value of each final roll, one column per state):
    the decisions after the 1st and 2nd throws, and the final rolls they lead to.

    ``first_roll`` (Generala): what each roll of the first throw is worth scored at once,
    with the servida's points; the first throw then chooses between that and its best keep.
    Final rolls are then ``2 * rolls`` rows: those scored after the last throw, then those
    of the first throw scored at once.
    """

    def __init__(
        self, keeps: Keeps, last_roll: np.ndarray, first_roll: np.ndarray | None = None
    ) -> None:
        self.keeps = keeps
        self.last_roll = last_roll
        averages = keeps.throws.averages
        # before[t]: what each keep (flat) is worth before throw t.
        third = averages(last_roll)
        self.second_value, self.second_choice = keeps.best_indexed(third)
        second = averages(self.second_value)
        self.first_value, self.first_choice = keeps.best_indexed(second)
        self.before = {2: np.vstack(second), 3: np.vstack(third)}
        self.score_first = None
        if first_roll is not None:
            # Scored at once when worth as much as the best keep (the solver's maximum). A
            # tie is mostly the same box now or after keeping all the dice; for a player
            # sure to win either way, a Generala servida ends the game now: taken.
            self.score_first = first_roll >= self.first_value - ROUNDING
            self.first_value = np.where(self.score_first, first_roll, self.first_value)

    @property
    def start_value(self) -> np.ndarray:
        """The value of the turn before its first throw, per state."""
        return self.keeps.throws.roll_chances @ self.first_value

    def final_rolls(self) -> np.ndarray:
        """The chance of each final roll from the turn's start, per state (with a first
        throw that may score, the rows of the last throw then those of the first)."""
        chances = self.keeps.throws.roll_chances
        first = np.repeat(chances[:, None], self.last_roll.shape[1], axis=1)
        if self.score_first is None:
            return self.after_keep(self.keeps.kept(first, self.first_choice), 2)
        now = np.where(self.score_first, first, 0.0)
        later = self.after_keep(self.keeps.kept(first - now, self.first_choice), 2)
        return np.vstack([later, now])

    def after_keep(self, keep_mass: np.ndarray, throw_number: int) -> np.ndarray:
        """The chance of each final roll when ``keep_mass`` (per flat keep) is kept before
        throw ``throw_number`` (2 or 3) and the policy plays the rest of the turn (scored
        after the last throw: a keep has left the first)."""
        rolls = self.keeps.throw(keep_mass)
        if throw_number == 2:
            rolls = self.keeps.throw(self.keeps.kept(rolls, self.second_choice))
        return rolls
