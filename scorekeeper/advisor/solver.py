"""The optimal solitaire strategy of the classique and Yatzy sheets: the expected rest of the
game from every state, solved backwards from the full sheet (Verhoeff 1999, Glenn 2006).

A state is what the rest of a column's game depends on: which boxes are filled (a bitmask in
sheet order), the upper total capped at 63 (the bonus only asks whether 63 is reached), and
whether the Yams box holds 50 (the +100; without it, always 0). The table
``values[mask, yams50, upper]`` holds the expected points still to come; unreachable states
hold NaN.
"""

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache

import numpy as np

from scorekeeper.advisor.turn import FACES, ROLLS, turn_value
from scorekeeper.rules.dice import Dice, yams_face
from scorekeeper.rules.options import (
    BOX_OF_FACE,
    FACE_OF_BOX,
    UPPER_BONUS_THRESHOLD,
    UPPER_BOXES,
    Rules,
)
from scorekeeper.rules.scoring import score

YAMS_BONUS = 100
UPPER_CAP = UPPER_BONUS_THRESHOLD

# States solved together: large enough for numpy to pay off, small enough that the turn's
# arrays (462 keeps x states, float64) stay a few tens of megabytes.
CHUNK = 2048

Progress = Callable[[int, int], None]
# Where a Yams of ``face`` may go when the Yams box is filled, and what each box then scores.
JokerRule = Callable[[Rules, frozenset[str], int], dict[str, int]]


def allowed_boxes(rules: Rules, filled: Iterable[str], dice: Dice) -> tuple[str, ...]:
    """The boxes of a free column these dice may fill, in sheet order (RULES.md §1 joker).

    The same rule as ``GameState.placement`` for one free column, on a bare set of filled
    boxes so that the solver can ask it for thousands of sheets; a test holds them equal.
    """
    filled = set(filled)
    free = tuple(box for box in rules.boxes if box not in filled)
    face = yams_face(dice)
    if face is None or "yams" not in filled or rules.joker == "free" or not rules.has_joker:
        return free
    if BOX_OF_FACE[face] in free:
        return (BOX_OF_FACE[face],)
    lower = tuple(box for box in free if box in rules.lower_boxes)
    return lower or free


def sheet_state(rules: Rules, points: Mapping[str, int]) -> tuple[int, int, int]:
    """The table index ``(mask, yams50, upper)`` of a column whose filled boxes hold
    ``points``: boxes are bits in sheet order, the upper total is capped at 63."""
    mask = sum(1 << index for index, box in enumerate(rules.boxes) if box in points)
    upper = sum(points[box] for box in UPPER_BOXES if box in points)
    yams50 = rules.has_yams_bonus and points.get("yams", 0) > 0
    return mask, int(yams50), min(UPPER_CAP, upper)


def joker_choices(rules: Rules, filled: frozenset[str], face: int) -> dict[str, int]:
    """The joker of ``rules``: the boxes ``allowed_boxes`` gives, scored with the joker."""
    dice = (face,) * 5
    return {box: _joker_score(rules, box, face) for box in allowed_boxes(rules, filled, dice)}


@cache  # asked for each of the 4,096 sheets with a filled Yams box; only 78 answers
def _joker_score(rules: Rules, box: str, face: int) -> int:
    return score(rules, box, (face,) * 5, joker=True)


class SheetIndex:
    """Indexing of the states of one sheet, and the points each roll gives."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.boxes = rules.boxes
        self.bit = {box: 1 << index for index, box in enumerate(self.boxes)}
        self.full = (1 << len(self.boxes)) - 1
        self.yams_bit = self.bit["yams"]
        # Points of each box for each roll, from the rules engine itself.
        self.points = {box: np.array([score(rules, box, roll) for roll in ROLLS], dtype=float)
                       for box in self.boxes}
        self.yams_rolls = np.array([ROLLS.index((face,) * 5) for face in FACES])
        self.face_count = {face: np.array([roll.count(face) for roll in ROLLS]) for face in FACES}

    def mask(self, filled: Iterable[str]) -> int:
        return sum(self.bit[box] for box in filled)

    def filled(self, mask: int) -> frozenset[str]:
        return frozenset(box for box in self.boxes if mask & self.bit[box])

    def reachable_uppers(self, mask: int) -> list[int]:
        """The capped upper totals that the filled upper boxes of ``mask`` can add up to."""
        totals = {0}
        for box in UPPER_BOXES:
            if mask & self.bit[box]:
                face = FACE_OF_BOX[box]
                totals = {min(UPPER_CAP, total + face * count)
                          for total in totals for count in range(6)}
        return sorted(totals)

    def states(self, masks: Iterable[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every reachable (mask, yams50, upper) of these masks, as three flat arrays.

        Yams50 can only be true once the Yams box is filled, and only matters (so is only
        solved) when a later Yams earns the +100.
        """
        upper_bits = sum(self.bit[box] for box in UPPER_BOXES)
        uppers_of = {}  # only 64 different sets of upper boxes
        rows = []
        for mask in masks:
            if mask & upper_bits not in uppers_of:
                uppers_of[mask & upper_bits] = self.reachable_uppers(mask)
            yams50 = (0, 1) if mask & self.yams_bit and self.rules.has_yams_bonus else (0,)
            rows.extend((mask, flag, upper)
                        for upper in uppers_of[mask & upper_bits] for flag in yams50)
        if not rows:
            return (np.zeros(0, dtype=np.int64),) * 3
        return tuple(np.array(column, dtype=np.int64) for column in zip(*rows, strict=True))

    def joker_points(self, masks: Sequence[int], rule: JokerRule) -> np.ndarray:
        """``points[row, face - 1, box]`` of a Yams when the Yams box of ``masks[row]`` is
        filled; NaN where the joker does not let it go."""
        points = np.full((len(masks), len(FACES), len(self.boxes)), np.nan)
        for row, mask in enumerate(masks):
            if mask & self.yams_bit:
                for face in FACES:
                    for box, value in rule(self.rules, self.filled(mask), face).items():
                        points[row, face - 1, self.boxes.index(box)] = value
        return points


def build_table(rules: Rules, filled: Iterable[str] = (), progress: Progress | None = None,
                joker_rule: JokerRule = joker_choices) -> np.ndarray:
    """The expected rest of the game of every reachable state, shape (2 ** boxes, 2, 64):
    (8192, 2, 64) for the classique sheet, (32768, 2, 64) for Yatzy.

    With ``filled``, only the states where those boxes are already filled are solved (the end
    of a game, small enough to check by brute force); the others stay NaN.
    ``progress(done, total)`` is called as states get solved. ``joker_rule`` replaces the
    joker of ``rules``, for the benchmark to reproduce a published variant.
    """
    sheet = SheetIndex(rules)
    values = np.full((sheet.full + 1, 2, UPPER_CAP + 1), np.nan)
    values[sheet.full] = 0.0
    flat = values.reshape(-1)  # a view: solved states are written through it
    base = sheet.mask(filled)
    masks_in_play = [mask for mask in range(sheet.full) if mask & base == base]
    joker = None
    if rules.has_joker:
        # Indexed by mask: each chunk of states takes its own rows.
        joker = np.full((sheet.full + 1, len(FACES), len(sheet.boxes)), np.nan)
        joker[masks_in_play] = sheet.joker_points(masks_in_play, joker_rule)
    # Each state's value needs the states with one more box filled: solve by number of
    # filled boxes, from the full sheet down.
    batches = [sheet.states(mask for mask in masks_in_play if mask.bit_count() == count)
               for count in range(len(sheet.boxes) - 1, -1, -1)]
    total = sum(len(batch[0]) for batch in batches)
    done = 0
    for masks, yams50, uppers in batches:
        for start in range(0, len(masks), CHUNK):
            part = slice(start, start + CHUNK)
            last_roll = _last_roll_values(sheet, None if joker is None else joker[masks[part]],
                                          flat, masks[part], yams50[part], uppers[part])
            flat[_flat_index(masks[part], yams50[part], uppers[part])] = turn_value(last_roll)
            done += len(masks[part])
            if progress is not None:
                progress(done, total)
    return values


def roll_values(sheet: SheetIndex, values: np.ndarray, state: tuple[int, int, int]) -> np.ndarray:
    """What each roll is worth as the last of the turn in one state of a solved table: the
    best free box's points, bonuses included, plus the expected rest of the game after it."""
    mask, yams50, upper = (np.array([part], dtype=np.int64) for part in state)
    joker = sheet.joker_points([state[0]], joker_choices) if sheet.rules.has_joker else None
    return _last_roll_values(sheet, joker, values.reshape(-1), mask, yams50, upper)[:, 0]


def _flat_index(masks: np.ndarray, yams50: np.ndarray | int, uppers: np.ndarray) -> np.ndarray:
    return (masks * 2 + yams50) * (UPPER_CAP + 1) + uppers


def _last_roll_values(sheet: SheetIndex, joker: np.ndarray | None, flat: np.ndarray,
                      masks: np.ndarray, yams50: np.ndarray, uppers: np.ndarray) -> np.ndarray:
    """What each roll (row) is worth as the last of the turn, in each state (column): the best
    free box's points, bonuses included, plus the expected rest of the game after it.

    ``joker`` holds each state's ``joker_points`` row, or is None for a sheet without joker.
    """
    best = np.full((len(ROLLS), len(masks)), -np.inf)
    candidate = np.empty_like(best)
    for box in sheet.boxes:
        free = masks & sheet.bit[box] == 0
        if not free.any():
            continue
        after = masks | sheet.bit[box]
        # A filled box is no choice: -inf, set on the per-state values before they are
        # spread over the rolls (where they may also have looked up states that do not exist).
        if box in FACE_OF_BOX:
            face = FACE_OF_BOX[box]
            # An upper box scores face x count: six cases, each a state to look up.
            by_count = np.stack([
                _upper_gain(sheet, flat, after, yams50, uppers, face * count)
                for count in range(6)
            ])
            np.take(np.where(free, by_count, -np.inf), sheet.face_count[face], axis=0,
                    out=candidate)
        elif box == "yams" and sheet.rules.has_yams_bonus:
            # Only a Yams roll fills it with 50, and then a later Yams earns the +100.
            candidate[:] = np.where(free, flat[_flat_index(after, yams50, uppers)], -np.inf)
            candidate[sheet.yams_rolls] = np.where(
                free, 50 + flat[_flat_index(after, 1, uppers)], -np.inf)
        else:
            rest = np.where(free, flat[_flat_index(after, yams50, uppers)], -np.inf)
            np.add(sheet.points[box][:, None], rest, out=candidate)
        np.maximum(best, candidate, out=best)

    # A Yams when the Yams box is already filled: the joker decides the boxes and the points,
    # and a Yams box holding 50 adds the +100.
    if joker is None:  # Yatzy: a Yatzy with its box filled is scored like any other roll
        return best
    has_joker = masks & sheet.yams_bit != 0
    if not has_joker.any():
        return best
    bonus = YAMS_BONUS * yams50 if sheet.rules.has_yams_bonus else 0
    for face in FACES:
        best_joker = np.full(len(masks), -np.inf)
        for index, box in enumerate(sheet.boxes):
            points = joker[:, face - 1, index]
            may = ~np.isnan(points)
            if not may.any():
                continue
            points = np.where(may, points, 0)
            after = masks | sheet.bit[box]
            if box in FACE_OF_BOX:
                value = _upper_gain(sheet, flat, after, yams50, uppers, points)
            else:
                value = points + flat[_flat_index(after, yams50, uppers)]
            np.maximum(best_joker, np.where(may, value, -np.inf), out=best_joker)
        row = sheet.yams_rolls[face - 1]
        best[row] = np.where(has_joker, best_joker + bonus, best[row])
    return best


def _upper_gain(sheet: SheetIndex, flat: np.ndarray, after: np.ndarray, yams50: np.ndarray,
                uppers: np.ndarray, points: np.ndarray | int) -> np.ndarray:
    """Points written in an upper box, the 35 if they reach 63, and the rest of the game."""
    raised = np.minimum(UPPER_CAP, uppers + np.asarray(points, dtype=np.int64))
    bonus = np.where((uppers < UPPER_CAP) & (raised >= UPPER_CAP), sheet.rules.upper_bonus, 0)
    return points + bonus + flat[_flat_index(after, yams50, raised)]
