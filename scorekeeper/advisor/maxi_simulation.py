"""Maxi Yatzy games played by simulation, many at once: by the Conseil's policy
(``maxi.Model``) and by a greedy player, for ``bench/maxi_yatzy.py`` and for fitting the
policy's constants (``fit``).

The greedy player aims at the best box now: after each throw it keeps the dice that best
serve the box its dice score most in (the keep that maximises that box's expected points
with the throws it has left), throws while it has throws, saved ones first, stops early only
when every die already serves that box (then saving the throws left), and scores that box.

Every game draws its own dice; the first games' entries are kept (with the throws each turn
used), for a test to replay them through the rules engine.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from scorekeeper.advisor.maxi import COUNTS, Constants, Model
from scorekeeper.advisor.maxi_bound import BONUS, BONUS_AT, DICE, THROWS_A_TURN
from scorekeeper.advisor.simulation import BATCH, _code_weights, _keeps
from scorekeeper.advisor.turn import FACES

POLICY, GREEDY = "policy", "greedy"


@dataclass(frozen=True)
class MaxiGames:
    """What simulated solitaire games ended on."""

    totals: np.ndarray  # [game]: the final total
    points: np.ndarray  # [game, box]: what each box scored
    saved: np.ndarray  # [game, turn]: the throws saved at the turn's start
    logs: list[list[tuple[str, tuple[int, ...], int]]]  # first games: (box, dice, throws)


def play(
    model: Model, games: int, player: str = POLICY, seed: int = 0, logged: int = 0
) -> MaxiGames:
    """``games`` solitaire games played by ``player`` (POLICY or GREEDY)."""
    rng = np.random.default_rng(seed)
    parts = []
    for start in range(0, games, BATCH):
        count = min(BATCH, games - start)
        parts.append(_Batch(model, count, player, rng, max(0, min(count, logged - start))).play())
    return MaxiGames(
        np.concatenate([part.totals for part in parts]),
        np.concatenate([part.points for part in parts]),
        np.concatenate([part.saved for part in parts]),
        [log for part in parts for log in part.logs],
    )


class _Batch:
    def __init__(
        self, model: Model, games: int, player: str, rng: np.random.Generator, logged: int
    ) -> None:
        self.model = model
        self.games = games
        self.player = player
        self.rng = rng
        self.keeps = _keeps(DICE)
        self.rolls = model.throws.rolls
        boxes = model.boxes
        self.free = np.full(games, (1 << boxes) - 1, dtype=np.int64)
        self.upper = np.zeros(games, dtype=np.int64)
        self.saved_now = np.zeros(games, dtype=np.int64)
        self.totals = np.zeros(games, dtype=np.int64)
        self.points = np.zeros((games, boxes), dtype=np.int64)
        self.saved = np.zeros((games, boxes), dtype=np.int64)
        self.logs: list[list] = [[] for _ in range(logged)]
        # A roll's own flat keep index: keeping it all.
        self.whole = model.keeps.offsets[DICE] + np.arange(len(self.rolls))

    def play(self) -> MaxiGames:
        for turn in range(self.model.boxes):
            self.saved[:, turn] = self.saved_now
            if self.player == POLICY:
                box, roll, left = self._policy_turn(turn)
            else:
                box, roll, left = self._greedy_turn()
            self._write(box, roll, left)
        return MaxiGames(self.totals, self.points, self.saved, self.logs)

    def _policy_turn(self, turn: int):
        model = self.model
        turns_after = model.boxes - turn - 1
        best, choice = model.best_boxes(self.free, self.upper)
        left = self.saved_now + THROWS_A_TURN - 1
        worth = model.worths(best, turns_after, int(left.max()))
        roll = self._throw(np.zeros((self.games, len(FACES)), dtype=np.int64))
        games = np.arange(self.games)
        going = left > 0
        while going.any():
            # Ascending: a game thrown moves to a number of throws left already done.
            for number in np.unique(left[going]):
                here = games[going & (left == number)]
                keep, value = self._best_keep(worth[number - 1][:, here], roll[here])
                stop = model.stop_value(best[roll[here], here], turns_after, number)
                again = value > stop
                going[here[~again]] = False
                throwing = here[again]
                roll[throwing] = self._throw(self.keeps.counts[keep[again]], throwing)
                left[throwing] -= 1
            going &= left > 0
        return choice[roll, games], roll, left

    def _best_keep(self, worth: np.ndarray, rolls: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For each game (column of ``worth``, what each roll after the throw is worth), the
        best keep among the dice of its roll and that keep's value."""
        count = len(rolls)
        values = np.concatenate(self.model.keep_values(worth) + [np.full((1, count), -np.inf)])
        inside = self.keeps.sub_keeps[rolls]  # [game, n]
        candidates = values[inside, np.arange(count)[:, None]]
        best = candidates.argmax(axis=1)
        return inside[np.arange(count), best], candidates[np.arange(count), best]

    def _greedy_turn(self):
        model = self.model
        chase = _chase(model)
        left = self.saved_now + THROWS_A_TURN - 1
        roll = self._throw(np.zeros((self.games, len(FACES)), dtype=np.int64))
        games = np.arange(self.games)
        going = left > 0
        while going.any():
            here = games[going]
            target = self._best_now(roll[here], here)
            keep = chase[target, np.minimum(left[here], chase.shape[1] - 1), roll[here]]
            done = keep == self.whole[roll[here]]
            going[here[done]] = False
            throwing = here[~done]
            roll[throwing] = self._throw(self.keeps.counts[keep[~done]], throwing)
            left[throwing] -= 1
            going &= left > 0
        return self._best_now(roll, games), roll, left

    def _best_now(self, rolls: np.ndarray, games: np.ndarray) -> np.ndarray:
        """The free box the rolls score most in (the first in sheet order among equals)."""
        scores = self.model.scores[rolls]  # [game, box]
        free = (self.free[games][:, None] >> np.arange(self.model.boxes)) & 1 == 1
        return np.where(free, scores, -1).argmax(axis=1)

    def _throw(self, kept: np.ndarray, games: np.ndarray | None = None) -> np.ndarray:
        """The roll each game gets by throwing the dice it does not keep (``kept``: counts
        per face)."""
        count = len(kept)
        missing = DICE - kept.sum(axis=1)
        faces = self.rng.integers(0, len(FACES), size=(count, DICE))
        thrown = np.arange(DICE) < missing[:, None]
        counts = kept + np.stack(
            [((faces == face) & thrown).sum(axis=1) for face in range(len(FACES))], axis=1
        )
        return self.keeps.roll_of_code[counts @ _code_weights(DICE)]

    def _write(self, box: np.ndarray, roll: np.ndarray, left: np.ndarray) -> None:
        model = self.model
        games = np.arange(self.games)
        points = model.scores[roll, box].astype(np.int64)
        raised = self.upper + np.where(model.faces[box] > 0, points, 0)
        won = (self.upper < BONUS_AT) & (raised >= BONUS_AT)
        self.totals += points + BONUS * won
        self.upper = raised
        self.points[games, box] = points
        used = self.saved_now + THROWS_A_TURN - left
        self.saved_now = left
        self.free &= ~(np.int64(1) << box)
        for game, log in enumerate(self.logs):
            log.append((int(box[game]), self.rolls[roll[game]], int(used[game])))


def _chase(model: Model) -> np.ndarray:
    """``keep[box, throws left, roll]``: the flat index of the keep among the roll's dice
    that maximises the box's expected points with that many throws left (keeping all of
    them when nothing better: the greedy player then stops)."""
    cached = getattr(model, "_greedy_chase", None)
    if cached is not None:
        return cached
    most = (THROWS_A_TURN - 1) * model.boxes
    scores = model.scores.T.copy()  # [box, roll] -> columns below
    worth = scores.T  # [roll, box]
    keep = np.zeros((model.boxes, most + 1, len(model.throws.rolls)), dtype=np.int32)
    for left in range(1, most + 1):
        value, index = model.keeps.best_indexed(model.throws.averages(worth))
        keep[:, left] = index.T
        worth = value
    model._greedy_chase = keep
    return keep


def upper_counts(points: np.ndarray, faces: np.ndarray) -> tuple[tuple[float, ...], ...]:
    """Per face, the share of games whose upper box of that face got 0..6 dice."""
    shares = []
    for box in np.nonzero(faces)[0]:
        counts = points[:, box] // faces[box]
        shares.append(tuple(float(x) for x in np.bincount(counts, minlength=COUNTS) / len(counts)))
    return tuple(shares)


def fit(
    scores: np.ndarray,
    faces: np.ndarray,
    start: Constants,
    games: int = 4096,
    rounds: int = 3,
    seed: int = 0,
) -> Constants:
    """The estimate's constants fitted to the policy's own play: each box's worth, the mean
    it scored, and each upper box's spread of dice, over ``games`` games played with the
    constants of the round before (``rounds`` times, from ``start``)."""
    constants = start
    for number in range(rounds):
        played = play(Model(scores, faces, constants), games, POLICY, seed=seed + number)
        constants = replace(
            constants,
            box_worth=tuple(float(x) for x in played.points.mean(axis=0)),
            upper_counts=upper_counts(played.points, faces),
        )
    return constants
