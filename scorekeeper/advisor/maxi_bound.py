"""The bound Maxi Yatzy's policy is measured against: no way of playing averages more.

**The bound** (a Lagrangian relaxation). Relax the rule that each box is filled once: any
box may be filled any number of times, each time paying its price, the prices being given
back at the start. Any way to play the real game is a way to play the relaxed one, where it
scores the same (each box is filled exactly once, so the prices paid are the prices given
back): the relaxed game's optimal mean is at least the real game's, whatever the prices.

- The relaxed game of the estimate (``relaxed_values``) also replaces the upper bonus, 100 x
  [upper total >= 84], by (100 - 84 l) + l x upper total for some 0 <= l <= 100/84, never
  smaller for an upper total of 0 or more: its state is only the turns left and the throws
  saved, solved in 0.1 s. It proves 574.67 (``relaxed_bound``), and gives the estimate the
  worth of a saved throw.
- The reference (``tracked_bound``) keeps the upper total and the bonus exact, and fills the
  Maxi Yatzy box once at most, without a price: a few seconds, and tighter.

Any prices give a valid bound; those kept were found by minimising each numerically.
"""

from __future__ import annotations

import numpy as np

from scorekeeper.advisor.turn import Throws
from scorekeeper.rules.options import MAXI_YATZY_BONUS, MAXI_YATZY_THRESHOLD
from scorekeeper.rules.throws import TURN_THROWS

DICE = 6
THROWS_A_TURN = TURN_THROWS
BONUS_AT = MAXI_YATZY_THRESHOLD
BONUS = MAXI_YATZY_BONUS


def relaxed_values(
    scores: np.ndarray, faces: np.ndarray, prices: np.ndarray, slope: float
) -> list[np.ndarray]:
    """The relaxed game's values (module docstring): ``values[k][s]``, the expected points
    of k turns left with s throws saved, every turn scoring its best ``points x (1 + slope
    for an upper box) - price``. ``prices`` may hold several columns (one game each)."""
    throws = Throws.of(DICE)
    prices = np.asarray(prices, dtype=float)
    single = prices.ndim == 1
    prices = prices.reshape(len(prices), -1)
    slopes = np.broadcast_to(np.asarray(slope, dtype=float), (prices.shape[1],))
    scale = np.where(np.asarray(faces)[:, None] > 0, 1 + slopes[None, :], 1.0)
    reward = (scores[:, :, None] * scale[None] - prices[None]).max(axis=1)  # [roll, game]
    turns = scores.shape[1]
    values = [np.zeros((2 * turns + 1, prices.shape[1]))]
    for k in range(1, turns + 1):
        before = values[-1]
        most = (THROWS_A_TURN - 1) * (turns - k + 1)  # throws left after the first
        worth = reward + before[0]
        worths = [worth]
        for left in range(1, most + 1):
            levels = throws.averages(worth)
            levels[-1] = np.full(worth.shape, -np.inf)
            worth = np.maximum(reward + before[left], throws.best_keeps(levels))
            worths.append(worth)
        saved = (THROWS_A_TURN - 1) * (turns - k)
        values.append(
            np.array(
                [throws.roll_chances @ worths[s + THROWS_A_TURN - 1] for s in range(saved + 1)]
            )
        )
    return [value[:, 0] for value in values] if single else values


def relaxed_bound(scores: np.ndarray, faces: np.ndarray, prices, slope) -> np.ndarray:
    """The bound on the optimal expected total that these prices and slope prove (one per
    column of ``prices``)."""
    prices = np.asarray(prices, dtype=float)
    slope = np.asarray(slope, dtype=float)
    if not np.all((slope >= 0) & (slope <= BONUS / BONUS_AT)):
        raise ValueError("the slope must lie in [0, 100/84] for the bound to hold")
    values = relaxed_values(scores, faces, prices, slope)
    return prices.sum(axis=0) + BONUS - BONUS_AT * slope + values[-1][0]


def tracked_bound(scores: np.ndarray, faces: np.ndarray, prices, tracked) -> float:
    """A tighter bound on the optimal expected total (docs/advisor.md): the relaxed game
    with the upper total and the bonus kept exact, and the ``tracked`` boxes (indices)
    filled once at most, without a price; the other boxes are refilled at their
    ``prices``. The real game is still one way of playing it (every box filled exactly
    once), so its optimal mean bounds the real one's. Its state adds the upper total (0 to
    84) and which tracked boxes are free: 85 x 2^len(tracked) columns, a few seconds."""
    throws = Throws.of(DICE)
    prices = np.asarray(prices, dtype=float)
    tracked = list(tracked)
    uppers = BONUS_AT + 1
    columns = uppers << len(tracked)
    free, total = np.divmod(np.arange(columns), uppers)
    # Each box: what each roll gains in it from each column, and the column it leads to.
    moves = []
    for box in range(scores.shape[1]):
        points = scores[:, box][:, None]
        raised = total[None, :]
        gain = points - (0 if box in tracked else prices[box])
        if faces[box]:
            raised = np.minimum(BONUS_AT, total[None, :] + points.astype(np.int64))
            gain = gain + BONUS * ((total[None, :] < BONUS_AT) & (raised >= BONUS_AT))
        after = free
        if box in tracked:
            bit = 1 << tracked.index(box)
            gain = np.where((free & bit != 0)[None, :], gain, -np.inf)
            after = free & ~bit
        moves.append(
            (np.broadcast_to(gain, (len(points), columns)), after[None, :] * uppers + raised)
        )
    turns = scores.shape[1]
    before = np.zeros((2 * turns + 1, columns))
    for k in range(1, turns + 1):
        most = (THROWS_A_TURN - 1) * (turns - k + 1)  # throws left after the first

        def scored(left: int, later: np.ndarray = before) -> np.ndarray:
            return np.max([gain + later[left][after] for gain, after in moves], axis=0)

        worth = scored(0)
        worths = [worth]
        for left in range(1, most + 1):
            levels = throws.averages(worth)
            levels[-1] = np.full(worth.shape, -np.inf)
            worth = np.maximum(scored(left), throws.best_keeps(levels))
            worths.append(worth)
        saved = (THROWS_A_TURN - 1) * (turns - k)
        before = np.array(
            [throws.roll_chances @ worths[s + THROWS_A_TURN - 1] for s in range(saved + 1)]
        )
    start = ((1 << len(tracked)) - 1) * uppers  # every tracked box free, upper total 0
    priced = [box for box in range(scores.shape[1]) if box not in tracked]
    return float(prices[priced].sum() + before[0, start])
