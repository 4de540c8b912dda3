"""Maxi Yatzy's Conseil: a policy that plays each turn exactly against an estimate of the
sheet it leaves, and the proven bound it is measured against (docs/advisor.md, "Maxi
Yatzy").

The exact state of a Maxi Yatzy sheet (which of the 20 boxes are free, the upper total up to
84, the throws saved) has about 2^20 x 85 x 40 values, each asking a turn of six dice with up
to 43 throws: out of reach of a table built here. The policy values the sheet after a turn by

    estimate(free boxes, upper total, saved throws) =
        the free boxes' worths (``box_worth``: the mean each box scored in simulated games)
      + the upper bonus times the chance that the free upper boxes still reach 84
        (``upper_counts``: how many dice of its face each upper box got in those games)
      + what the saved throws are worth with that many turns left (``saved_worth``: their
        worth in the relaxed game below, times ``saved_scale``)

and plays the turn exactly against it: after each throw, what each roll is worth when
scored now (the best box and the throws left saved) or thrown again with the best keep,
with as many throws as the player has (3 + saved), by the turn arithmetic of ``turn``.

The bound the policy is measured against is proven in ``maxi_bound``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scorekeeper.advisor.maxi_bound import BONUS, BONUS_AT, DICE, relaxed_values
from scorekeeper.advisor.policy import Keeps
from scorekeeper.advisor.strategy import (
    Advice,
    KeepAdvice,
    _positions,
    distinct_keeps,
    ranked_keeps,
)
from scorekeeper.advisor.tables import LAST_THROW, MAXI_FIGURES, check_request
from scorekeeper.advisor.turn import Throws
from scorekeeper.rules.errors import RuleError
from scorekeeper.rules.game import GameState
from scorekeeper.rules.labels import N_
from scorekeeper.rules.options import FACE_OF_BOX
from scorekeeper.rules.rule_set import Rules
from scorekeeper.rules.scoring import score_maxi_yatzy

# The counts of a face six dice can show, 0 to 6.
COUNTS = DICE + 1


@dataclass(frozen=True)
class Constants:
    """What the estimate and the bound are made of (fitted once, ``maxi_simulation.fit``)."""

    box_worth: tuple[float, ...]  # per box, sheet order
    upper_counts: tuple[tuple[float, ...], ...]  # per face, the chance of 0..6 dice of it
    saved_scale: float  # the relaxed game's worth of a saved throw, scaled
    relaxed_prices: tuple[float, ...]  # per box, the relaxed game's prices
    relaxed_slope: float  # l, the upper total's share of the bonus in the relaxed game
    bound_prices: tuple[float, ...]  # per box, the prices of the tighter bound's game
    bound_tracked: tuple[str, ...]  # the boxes it fills once at most, without a price


# Fitted once: the policy's worths and upper spreads from its own games (``maxi_simulation.fit``,
# three rounds of 2,048 games at saved_scale 1, from each box's own three-throw value and
# binomial spreads; bench/maxi_yatzy.py --fit refits them); saved_scale, the best of 0.5 to
# 2.5 over 2,048 games each (a refit at 1.5 then played worse: 455 against 464); the prices
# and slope of each bound, found by minimising it numerically (any would be valid).
CONSTANTS = Constants(
    box_worth=(
        2.71435546875,
        7.029296875,
        11.6630859375,
        15.689453125,
        20.8154296875,
        24.7470703125,
        10.83984375,
        20.32421875,
        18.951171875,
        16.1396484375,
        18.630859375,
        11.50390625,
        11.27197265625,
        18.14453125,
        5.1474609375,
        25.0078125,
        18.052734375,
        24.189453125,
        27.880859375,
        61.03515625,
    ),
    upper_counts=(
        (0.00146484375, 0.02978515625, 0.34033203125, 0.521484375, 0.09521484375, 0.01171875, 0.0),
        (
            0.00341796875,
            0.033203125,
            0.11962890625,
            0.30078125,
            0.37744140625,
            0.1630859375,
            0.00244140625,
        ),
        (
            0.00146484375,
            0.0146484375,
            0.07861328125,
            0.19384765625,
            0.431640625,
            0.27099609375,
            0.0087890625,
        ),
        (
            0.00341796875,
            0.01953125,
            0.07275390625,
            0.20068359375,
            0.3837890625,
            0.298828125,
            0.02099609375,
        ),
        (
            0.0048828125,
            0.01611328125,
            0.05859375,
            0.16259765625,
            0.2666015625,
            0.4716796875,
            0.01953125,
        ),
        (
            0.0078125,
            0.0390625,
            0.0712890625,
            0.13232421875,
            0.23388671875,
            0.4833984375,
            0.0322265625,
        ),
    ),
    saved_scale=1.5,
    relaxed_prices=(
        -16.7055,
        -12.658,
        -7.809,
        -3.7695,
        1.2392,
        3.6439,
        -11.1613,
        -2.9518,
        -3.1027,
        -9.347,
        -10.6813,
        -14.4575,
        -12.8037,
        -3.5316,
        -19.898,
        -0.1179,
        -9.6631,
        -2.8752,
        3.863,
        36.5115,
    ),
    relaxed_slope=0.5965,
    # The last, Maxi Yatzy's, is not used: that box is tracked.
    bound_prices=(
        -16.7055,
        -12.658,
        -8.559,
        -3.0195,
        2.7392,
        7.3939,
        -11.1613,
        -2.9518,
        -3.8527,
        -9.347,
        -9.9313,
        -14.4575,
        -14.3037,
        -4.2816,
        -19.898,
        -0.1179,
        -11.1631,
        -3.6252,
        3.863,
        0.0,
    ),
    bound_tracked=("maxi_yatzy",),
)


class Model:
    """The estimate of Maxi Yatzy sheets and the turn played against it.

    ``scores[roll, box]``: what each of the 462 rolls scores in each box (from the rules);
    ``faces[box]``: the face an upper box counts, 0 for the others.
    """

    def __init__(self, scores: np.ndarray, faces: np.ndarray, constants: Constants) -> None:
        self.throws = Throws.of(DICE)
        self.keeps = Keeps.of(DICE)
        self.scores = np.asarray(scores, dtype=float)
        self.faces = np.asarray(faces)
        self.boxes = self.scores.shape[1]
        self.constants = constants
        self.worth = np.array(constants.box_worth)
        self.upper = np.nonzero(self.faces)[0]
        # The bit of each box among the upper boxes (0 for the others): the upper part of a
        # free mask indexes ``bonus_ahead``.
        self.upper_bit = np.array(
            [
                1 << int(np.nonzero(self.upper == box)[0][0]) if self.faces[box] else 0
                for box in range(self.boxes)
            ]
        )
        self.bonus_ahead = _bonus_ahead(self.faces[self.upper], constants.upper_counts)
        relaxed = relaxed_values(
            self.scores, self.faces, np.array(constants.relaxed_prices), constants.relaxed_slope
        )
        # saved_worth[k, s]: what s saved throws add with k turns left (0 for none).
        self.saved_worth = np.zeros((len(relaxed), len(relaxed[0])))
        for turns, values in enumerate(relaxed):
            gain = constants.saved_scale * (values - values[0])
            # More saved throws than the turns before could save: not a state of the game.
            self.saved_worth[turns, : len(gain)] = gain
            self.saved_worth[turns, len(gain) :] = gain[-1]

    def upper_mask(self, free: np.ndarray) -> np.ndarray:
        """The free upper boxes of free masks (bit i: the i-th upper box)."""
        mask = np.zeros_like(free)
        for number, box in enumerate(self.upper):
            mask |= ((free >> box) & 1) << number
        return mask

    def estimate(self, free: np.ndarray, upper: np.ndarray, saved: np.ndarray) -> np.ndarray:
        """The points the rest of the game is estimated to bring (the sheets' totals apart),
        for sheets with these free boxes (masks), upper totals and throws saved."""
        bits = (free[:, None] >> np.arange(self.boxes)) & 1
        turns = bits.sum(axis=1)
        return (
            bits @ self.worth
            + self.bonus_ahead[self.upper_mask(free), np.minimum(upper, BONUS_AT)]
            + self.saved_worth[turns, np.minimum(saved, self.saved_worth.shape[1] - 1)]
        )

    def box_values(self, free: np.ndarray, upper: np.ndarray) -> np.ndarray:
        """``values[box, roll, state]``: each roll scored in each box, what it gains now (its
        points and the bonus it wins) plus the estimate of the boxes and the bonus after it,
        less the estimate of the free boxes and bonus before (-inf for a box already
        filled); the saved throws apart."""
        values = np.full((self.boxes, len(self.throws.rolls), len(free)), -np.inf)
        for box, is_free, value in self._each_box(free, upper):
            values[box] = np.where(is_free[None, :], value, -np.inf)
        return values

    def best_boxes(self, free: np.ndarray, upper: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For each roll and state, the best of ``box_values`` and its box."""
        best = np.full((len(self.throws.rolls), len(free)), -np.inf)
        choice = np.zeros(best.shape, dtype=np.int64)
        for box, is_free, value in self._each_box(free, upper):
            better = (value > best) & is_free[None, :]
            np.copyto(best, value, where=better)
            choice[better] = box
        return best, choice

    def _each_box(self, free: np.ndarray, upper: np.ndarray):
        """Each box free in some state: which states have it free, and its values there."""
        umask = self.upper_mask(free)
        capped = np.minimum(upper, BONUS_AT)
        ahead = self.bonus_ahead[umask, capped]  # [state]
        for box in range(self.boxes):
            is_free = (free >> box) & 1 == 1
            if not is_free.any():
                continue
            points = self.scores[:, box][:, None]
            if self.faces[box]:
                after = np.minimum(BONUS_AT, capped[None, :] + points.astype(np.int64))
                won = BONUS * ((capped[None, :] < BONUS_AT) & (after >= BONUS_AT))
                later = self.bonus_ahead[(umask & ~self.upper_bit[box])[None, :], after]
                value = points - self.worth[box] + won + (later - ahead[None, :])
            else:
                value = np.broadcast_to(points - self.worth[box], (len(points), len(free)))
            yield box, is_free, value

    def worths(self, best: np.ndarray, turns_after: int, most: int) -> list[np.ndarray]:
        """The turn played against the estimate: for rolls worth ``best[roll, state]`` when
        scored now (the saved throws apart), what each roll is worth with 0 to ``most``
        throws left after it: the better of scoring it now (saving those throws) and the
        best keep."""
        worth = [best + self.saved_worth[turns_after][0]]
        for left in range(1, most + 1):
            levels = self.keep_values(worth[-1])
            worth.append(
                np.maximum(self.stop_value(best, turns_after, left), self.throws.best_keeps(levels))
            )
        return worth

    def stop_value(self, best: np.ndarray, turns_after: int, left: int) -> np.ndarray:
        """What scoring now is worth with ``left`` throws left, saved."""
        saved = self.saved_worth[turns_after]
        return best + saved[min(left, len(saved) - 1)]

    def keep_values(self, worth: np.ndarray) -> list[np.ndarray]:
        """What each keep is worth when the other dice are thrown to a roll worth ``worth``
        (one array per keep size); keeping every die throws nothing, which is not a throw
        (-inf)."""
        levels = self.throws.averages(worth)
        levels[-1] = np.full(worth.shape, -np.inf)
        return levels


def _bonus_ahead(faces: np.ndarray, upper_counts) -> np.ndarray:
    """``ahead[mask, total]``: the bonus times the chance that the upper boxes in ``mask``
    bring an upper total of ``total`` to 84 (0 from 84: the bonus is then won already)."""
    sums = DICE * int(faces.max()) + 1
    table = np.zeros((1 << len(faces), BONUS_AT + 1))
    for mask in range(1 << len(faces)):
        spread = np.zeros(sums * len(faces))
        spread[0] = 1.0
        for number, face in enumerate(faces):
            if mask >> number & 1:
                counts = np.array(upper_counts[face - 1])
                moved = np.zeros_like(spread)
                for count, chance in enumerate(counts):
                    shift = count * int(face)
                    moved[shift:] += chance * spread[: len(spread) - shift]
                spread = moved
        at_least = np.cumsum(spread[::-1])[::-1]  # at_least[n]: chance of n or more
        for total in range(BONUS_AT):
            table[mask, total] = BONUS * at_least[BONUS_AT - total]
    return table


def roll_scores(rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """What each roll of six dice scores in each box of the rules (the rules' own scoring),
    and the face each upper box counts (0 for the others)."""
    rolls = Throws.of(DICE).rolls
    scores = np.array([[score_maxi_yatzy(box, roll) for box in rules.boxes] for roll in rolls])
    faces = np.array([FACE_OF_BOX.get(box, 0) for box in rules.boxes])
    return scores, faces


class MaxiStrategy:
    """The Conseil of a Maxi Yatzy game: the box, the dice to keep, and whether to stop and
    save the throws left, for the active player, by the policy."""

    def __init__(self, rules: Rules, constants: Constants = None) -> None:
        self.rules = rules
        scores, faces = roll_scores(rules)
        self.model = Model(scores, faces, constants or CONSTANTS)

    @property
    def start_value(self) -> float:
        """What a fresh sheet scores on average under the policy, as measured
        (tables.MAXI_FIGURES: its estimate of a sheet is not its mean)."""
        return MAXI_FIGURES["mean"]

    def advise(self, state: GameState, dice: object, throw: int = LAST_THROW) -> list[Advice]:
        """Every box the active player may fill with ``dice`` of this ``throw`` of the turn,
        best first, with the final total the policy estimates (the throws left saved)."""
        sheet, dice, left = self._read(state, dice, throw)
        free, upper, base = sheet
        roll = self.model.throws.roll_index[tuple(sorted(dice))]
        values = self.model.box_values(free, upper)[:, roll, 0]
        turns_after = _count(free[0]) - 1
        saved = float(self.model.stop_value(np.zeros(1), turns_after, left)[0])
        advice = [
            Advice(
                box, kind, float(base + values[self.rules.boxes.index(box)] + saved), cell.points
            )
            for (kind, box), cell in state.preview(dice).items()
        ]
        advice.sort(key=lambda item: -item.expected_total)
        return advice

    def advise_keeps(self, state: GameState, dice: object, throw: int) -> list[KeepAdvice]:
        """Every distinct keep among ``dice`` of a throw that leaves throws, best first;
        keeping them all is stopping: scoring the best box now and saving the throws
        left."""
        sheet, dice, left = self._read(state, dice, throw)
        if left == 0:
            raise RuleError(
                N_("Plus de lancer après celui-ci : les dés se marquent dans une case.")
            )
        free, upper, base = sheet
        model = self.model
        best, _choice = model.best_boxes(free, upper)
        turns_after = _count(free[0]) - 1
        worth = model.worths(best, turns_after, left - 1)[left - 1]
        levels = model.keep_values(worth)
        roll = tuple(sorted(dice))
        advice = []
        for keep in distinct_keeps(roll):
            if keep == roll:
                index = model.throws.roll_index[roll]
                value = model.stop_value(best[index], turns_after, left)[0]
            else:
                value = levels[len(keep)][model.throws.keep_index[len(keep)][keep], 0]
            advice.append(KeepAdvice(keep, float(base + value), _positions(dice, keep)))
        return ranked_keeps(advice)

    def _read(self, state: GameState, dice: object, throw: int):
        """The active player's sheet as the model reads it (free boxes, upper total, and
        the total plus the estimate of the free boxes and the bonus), the dice, and the
        throws left after ``throw``."""
        dice = check_request(state, dice)
        if not state.rules.saves_throws:
            raise RuleError(
                N_("Ce conseil a été calculé pour d'autres règles que celles de la partie.")
            )
        player = state.active_player
        at_hand = state.throws_at_hand(player)
        if not 1 <= throw <= at_hand:
            raise RuleError(
                N_("{name} n'a que {count} lancers ce tour-ci, pas {value}."),
                name=state.players[player],
                count=at_hand,
                value=throw,
            )
        column = state.sheets[player].columns["free"]
        free = sum(
            1 << number for number, box in enumerate(self.rules.boxes) if box not in column.cells
        )
        free_array = np.array([free], dtype=np.int64)
        upper_array = np.array([column.upper], dtype=np.int64)
        # No saved throw: the turn's own arithmetic counts those it leaves.
        estimate = self.model.estimate(free_array, upper_array, np.zeros(1, dtype=np.int64))
        base = state.sheets[player].total + float(estimate[0])
        return (free_array, upper_array, base), dice, at_hand - throw


def _count(mask: int) -> int:
    return bin(int(mask)).count("1")
