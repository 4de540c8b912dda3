"""An independent reference for the exact end game: every player playing to win, by plain
recursion over the rules engine's states.

It shares nothing with the advisor but the rules engine: scores, allowed boxes, bonuses,
floors and the turn order come from ``GameState.preview`` and ``GameState.play``; the dice
probabilities from enumerating every ordered throw; keeps are every sub-multiset. A
position's value is, per player, (win, tie, share, expected final total); each player picks
what maximises their share plus ``point_utility`` times their expected final total. Only
the last few turns of a game are small enough for it.

Generala: after the first throw the dice may also be scored at once, as the rules engine
scores an entry of ``throw`` 1 (the servida's points; a Generala servida that wins ends the
game, its player first: ``GameState.winner``).
"""

from functools import cache

import numpy as np

from scorekeeper.rules import Entry, GameState
from tests.advisor.brute_force import ROLLS, keep_chances, keeps, throw_results

# Worths this close are equal but for rounding (sums of the same chances in other orders).
ROUNDING = 1e-12
WIN, TIE, SHARE, POINTS = range(4)


@cache
def _keeps(roll: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    # Larger keeps first: on equal worth, the one that throws fewer dice.
    return tuple(sorted(keeps(roll), key=len, reverse=True))


@cache
def _result_arrays(keep: tuple[int, ...]) -> tuple[tuple[tuple[int, ...], ...], np.ndarray]:
    results = throw_results(keep, 5)
    return tuple(roll for roll, _ in results), np.array([chance for _, chance in results])


# Every keep's chances over ROLLS, a row each, as the solitaire brute force has them; and the
# rows of each roll's keeps, in _keeps' order (larger keeps first).
_KEEP_CHANCES, _KEEP_ROW = keep_chances(5)
_ROLL_KEEPS = [np.array([_KEEP_ROW[keep] for keep in _keeps(roll)]) for roll in ROLLS]


class GameBruteForce:
    def __init__(self, point_utility: float) -> None:
        self.point_utility = point_utility
        self._memo: dict[tuple, np.ndarray] = {}
        self._throws: dict[tuple, dict] = {}

    def value(self, state: GameState) -> np.ndarray:
        """``[player, (win, tie, share, points)]`` before the active player's turn."""
        key = self._key(state)
        if key not in self._memo:
            if state.is_over:
                self._memo[key] = self._final(state)
            else:
                first = self.throw_values(state, 1)
                self._memo[key] = sum(chance * first[roll] for roll, chance in throw_results((), 5))
        return self._memo[key]

    def box_values(
        self, state: GameState, roll: tuple[int, ...], throw: int | None = None
    ) -> dict[str, np.ndarray]:
        """Each box the active player may fill with ``roll`` (of ``throw``, when said), and
        the value after it."""
        return {
            box: self.value(state.play(Entry(state.active_player, kind, box, roll, throw)))
            for kind, box in state.preview(roll, throw=throw)
        }

    def throw_values(self, state: GameState, throw: int) -> dict[tuple[int, ...], np.ndarray]:
        """Each roll after throw ``throw``, worth its best continuation."""
        key = (self._key(state), throw)
        if key not in self._throws:
            if throw == 3:
                values = {
                    roll: self._best(state, self.box_values(state, roll).values()) for roll in ROLLS
                }
            else:
                after = self.throw_values(state, throw + 1)
                # Every keep's value at once (keep_value's sums, as one product), each
                # distinct keep once: a keep is found among many rolls.
                keeps = np.tensordot(
                    _KEEP_CHANCES, np.stack([after[roll] for roll in ROLLS]), axes=1
                )
                worth = self._utility(keeps, state.active_player)
                values = {
                    # argmax: the first of equal ones, as _best.
                    roll: self.now_or(state, roll, throw, keeps[rows[np.argmax(worth[rows])]])
                    for roll, rows in zip(ROLLS, _ROLL_KEEPS, strict=True)
                }
            self._throws[key] = values
        return self._throws[key]

    def now_or(
        self, state: GameState, roll: tuple[int, ...], throw: int, later: np.ndarray
    ) -> np.ndarray:
        """``later``, or after the first throw (Generala) the best box for ``roll`` scored at
        once when it is worth as much, to rounding: on equal worth, scoring now (a Generala
        servida ends the game then)."""
        if throw != 1 or not state.rules.counts_throws:
            return later
        now = self._best(state, self.box_values(state, roll, 1).values())
        player = state.active_player
        if self._utility(now, player) >= self._utility(later, player) - ROUNDING:
            return now
        return later

    @staticmethod
    def keep_value(keep: tuple[int, ...], after: dict) -> np.ndarray:
        rolls, chances = _result_arrays(keep)
        return np.tensordot(chances, np.stack([after[roll] for roll in rolls]), axes=1)

    def _best(self, state: GameState, values) -> np.ndarray:
        player = state.active_player
        best = None
        for value in values:  # the first of equal ones
            if best is None or self._utility(value, player) > self._utility(best, player):
                best = value
        return best

    def _utility(self, value: np.ndarray, player: int) -> float | np.ndarray:
        """What ``player`` maximises: of one value, or of each of a stack of them."""
        return value[..., player, SHARE] + self.point_utility * value[..., player, POINTS]

    @staticmethod
    def _final(state: GameState) -> np.ndarray:
        totals = [sheet.total for sheet in state.sheets]
        if state.winner is not None:
            return np.array(
                [
                    [seat == state.winner, 0, seat == state.winner, total]
                    for seat, total in enumerate(totals)
                ],
                dtype=float,
            )
        best = max(totals)
        first = totals.count(best)
        return np.array(
            [
                [
                    total == best and first == 1,
                    total == best and first > 1,
                    (total == best) / first,
                    total,
                ]
                for total in totals
            ],
            dtype=float,
        )

    @staticmethod
    def _key(state: GameState) -> tuple:
        return len(state.entries) % len(state.players), tuple(
            frozenset(
                (box, cell.points, cell.yams_bonus, cell.wins)
                for box, cell in sheet.columns["free"].cells.items()
            )
            for sheet in state.sheets
        )
