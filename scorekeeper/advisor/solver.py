"""The optimal solitaire strategy of the classique and Yatzy sheets: the expected rest of the
game from every state, solved backwards from the full sheet (Verhoeff 1999, Glenn 2006).

A state is what the rest of a column's game depends on: which boxes are filled (a bitmask in
sheet order), the upper total capped at 63 (the bonus only asks whether 63 is reached), and
whether the Yams box holds 50 (the +100; without it, always 0). The table
``values[mask, yams50, upper]`` holds the expected points still to come; unreachable states
hold NaN.
"""

from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from functools import cache

import numpy as np

from scorekeeper.advisor.turn import DICE, FACES, ROLLS, turn_value
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

# States solved together: enough for numpy's cost per call to vanish, few enough that the
# turn's arrays (462 keeps x states, float64: under 1 MB) stay in a core's cache, which
# makes the build about twice as fast as with tens of megabytes.
CHUNK = 256

Progress = Callable[[int, int], None]
# Where a Yams of ``face`` may go when the Yams box is filled, and what each box then scores.
JokerRule = Callable[[Rules, frozenset[str], int], dict[str, int]]


def allowed_boxes(rules: Rules, filled: Iterable[str], dice: Dice) -> tuple[str, ...]:
    """The boxes of a free column these dice may fill, in sheet order (docs/rules.md §4).

    The same rule as ``GameState.placement`` for one free column, on a bare set of filled
    boxes so that the solver can ask it for thousands of sheets; a test holds them equal.
    """
    return _boxes_for(rules, set(filled), yams_face(dice))


def _boxes_for(rules: Rules, filled: Set[str], face: int | None) -> tuple[str, ...]:
    """``allowed_boxes`` of dice that are a Yams of ``face``, or no Yams (None)."""
    free = tuple(box for box in rules.boxes if box not in filled)
    if face is None or "yams" not in filled or rules.joker == "free" or not rules.has_joker:
        return free
    if BOX_OF_FACE[face] in free:
        return (BOX_OF_FACE[face],)
    lower_boxes = rules.lower_boxes
    lower = tuple(box for box in free if box in lower_boxes)
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
    return {box: _joker_score(rules, box, face) for box in _boxes_for(rules, filled, face)}


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
        self.upper_bits = sum(self.bit[box] for box in UPPER_BOXES)
        self._rows: dict[int, np.ndarray] = {}
        # Points of each box for each roll, from the rules engine itself.
        self.points = {
            box: np.array([score(rules, box, roll) for roll in ROLLS], dtype=float)
            for box in self.boxes
        }
        self.yams_rolls = np.array([ROLLS.index((face,) * 5) for face in FACES])
        self.bits = np.array([self.bit[box] for box in self.boxes], dtype=np.int64)
        self.upper = np.array([index for index, box in enumerate(self.boxes) if box in FACE_OF_BOX])
        self.lower = [index for index, box in enumerate(self.boxes) if box not in FACE_OF_BOX]
        upper_faces = np.array([FACE_OF_BOX[self.boxes[index]] for index in self.upper])
        # What an upper box scores for each count of its face: ``upper_points[box, count]``.
        self.upper_points = upper_faces[:, None] * np.arange(DICE + 1)
        self.face_count = np.array([[roll.count(face) for roll in ROLLS] for face in upper_faces])
        self._list_choices()
        # The most the open upper boxes of each mask can still add: five of their face each.
        masks = np.arange(self.full + 1)
        self.upper_room = sum(
            np.where(masks & self.bits[index], 0, DICE * face)
            for index, face in zip(self.upper, upper_faces, strict=True)
        )

    def _list_choices(self) -> None:
        """The rows of ``_last_roll_values``'s options, and which of them each roll takes.

        The rows: each lower box with each of its points, each upper box with each count
        from 1 to 5, then the Yams box at 50 when a +100 exists. ``choices`` lists, for the
        n-th row of every roll that has n rows or more, those rolls (None: all) and rows.
        Every roll has a first row: it scores in the upper box of each face it shows.
        """
        bonus_box = self.boxes.index("yams") if self.rules.has_yams_bonus else None
        pairs = sorted(
            {
                (index, value)
                for index in self.lower
                if index != bonus_box
                for value in self.points[self.boxes[index]]
                if value > 0
            }
        )
        self.option_box = np.array([index for index, _ in pairs])
        self.option_points = np.array([value for _, value in pairs])
        row_of = {pair: row for row, pair in enumerate(pairs)}
        upper_start = len(pairs)
        self.upper_options = slice(upper_start, upper_start + len(self.upper) * DICE)
        self.option_count = self.upper_options.stop + (bonus_box is not None)
        rows_of_roll = []
        for roll_index, roll in enumerate(ROLLS):
            rows = [
                row_of[index, self.points[self.boxes[index]][roll_index]]
                for index in self.lower
                if index != bonus_box and self.points[self.boxes[index]][roll_index] > 0
            ]
            rows += [
                upper_start + DICE * position + count - 1
                for position, count in enumerate(self.face_count[:, roll_index])
                if count
            ]
            if bonus_box is not None and len(set(roll)) == 1:
                rows.append(self.option_count - 1)
            rows_of_roll.append(rows)
        self.choices = []
        for number in range(max(len(rows) for rows in rows_of_roll)):
            rolls = [index for index, rows in enumerate(rows_of_roll) if len(rows) > number]
            rows = np.array([rows_of_roll[index][number] for index in rolls])
            self.choices.append((None if len(rolls) == len(ROLLS) else np.array(rolls), rows))

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
                totals = {
                    min(UPPER_CAP, total + face * count) for total in totals for count in range(6)
                }
        return sorted(totals)

    def states(self, masks: Iterable[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every reachable (mask, yams50, upper) of these masks, as three flat arrays.

        Yams50 can only be true once the Yams box is filled, and only matters (so is only
        solved) when a later Yams earns the +100.
        """
        masks = np.fromiter(masks, dtype=np.int64)
        parts = [self.rows(mask) for mask in masks.tolist()]
        if not parts:
            return (np.zeros(0, dtype=np.int64),) * 3
        rows = np.concatenate(parts)
        return np.repeat(masks, [len(part) for part in parts]), rows[:, 0], rows[:, 1]

    def rows(self, mask: int) -> np.ndarray:
        """The reachable (yams50, upper) of ``mask``, one row each."""
        # They depend only on the upper boxes and the Yams box: a few hundred answers.
        key = mask & (self.upper_bits | self.yams_bit)
        if key not in self._rows:
            yams50 = (0, 1) if mask & self.yams_bit and self.rules.has_yams_bonus else (0,)
            self._rows[key] = np.array(
                [(flag, upper) for upper in self.reachable_uppers(mask) for flag in yams50],
                dtype=np.int64,
            ).reshape(-1, 2)
        return self._rows[key]

    def joker_points(self, masks: Sequence[int], rule: JokerRule) -> np.ndarray:
        """``points[row, face - 1, box]`` of a Yams when the Yams box of ``masks[row]`` is
        filled; -inf (no choice) where the joker does not let it go."""
        points = np.full((len(masks), len(FACES), len(self.boxes)), -np.inf)
        position = {box: index for index, box in enumerate(self.boxes)}
        for row, mask in enumerate(masks):
            if mask & self.yams_bit:
                filled = self.filled(mask)
                for face in FACES:
                    for box, value in rule(self.rules, filled, face).items():
                        points[row, face - 1, position[box]] = value
        return points


def build_table(
    rules: Rules,
    filled: Iterable[str] = (),
    progress: Progress | None = None,
    joker_rule: JokerRule = joker_choices,
) -> np.ndarray:
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
    # Each state's value needs the states with one more box filled: solve by number of
    # filled boxes, from the full sheet down, listing each number's states in turn (their
    # arrays take the memory of the ones before instead of fresh pages).
    total = sum(len(sheet.rows(mask)) for mask in masks_in_play)
    done = 0
    for count in range(len(sheet.boxes) - 1, -1, -1):
        in_batch = [mask for mask in masks_in_play if mask.bit_count() == count]
        masks, yams50, uppers = sheet.states(in_batch)
        joker = sheet.joker_points(in_batch, joker_rule) if rules.has_joker else None
        joker_masks = np.array(in_batch)  # ascending: each state finds its mask's joker row
        states = _flat_index(masks, yams50, uppers)
        solved, sharing = _states_to_solve(sheet, masks, yams50, uppers)
        masks, yams50, uppers = masks[solved], yams50[solved], uppers[solved]
        for start in range(0, len(masks), CHUNK):
            part = slice(start, start + CHUNK)
            rows = None if joker is None else joker[np.searchsorted(joker_masks, masks[part])]
            last_roll = _last_roll_values(
                sheet, rows, flat, masks[part], yams50[part], uppers[part]
            )
            flat[_flat_index(masks[part], yams50[part], uppers[part])] = turn_value(last_roll)
            done += len(masks[part])
            if progress is not None:
                progress(done, total)
        flat[states[~solved]] = flat[states[sharing[~solved]]]
        done += int((~solved).sum())
        if progress is not None:
            progress(done, total)
    return values


def _states_to_solve(
    sheet: SheetIndex, masks: np.ndarray, yams50: np.ndarray, uppers: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Which states to solve, and for each state the row of the one whose value it takes.

    Once the upper bonus is won, or out of reach (the open upper boxes cannot bring the total
    to 63), the upper total changes nothing to the rest of the game: all such states of one
    mask and Yams flag have the value of the first of them. A third of the states are so.
    """
    rows = np.arange(len(masks))
    settled = (uppers >= UPPER_CAP) | (uppers + sheet.upper_room[masks] < UPPER_CAP)
    sharing = rows.copy()
    settled_rows = rows[settled]
    _, first, group = np.unique(
        masks[settled] * 2 + yams50[settled], return_index=True, return_inverse=True
    )
    sharing[settled_rows] = settled_rows[first][group]
    return sharing == rows, sharing


def roll_values(sheet: SheetIndex, values: np.ndarray, state: tuple[int, int, int]) -> np.ndarray:
    """What each roll is worth as the last of the turn in one state of a solved table: the
    best free box's points, bonuses included, plus the expected rest of the game after it."""
    mask, yams50, upper = (np.array([part], dtype=np.int64) for part in state)
    joker = sheet.joker_points([state[0]], joker_choices) if sheet.rules.has_joker else None
    return _last_roll_values(sheet, joker, values.reshape(-1), mask, yams50, upper)[:, 0]


def _flat_index(masks: np.ndarray, yams50: np.ndarray | int, uppers: np.ndarray) -> np.ndarray:
    return (masks * 2 + yams50) * (UPPER_CAP + 1) + uppers


def _last_roll_values(
    sheet: SheetIndex,
    joker: np.ndarray | None,
    flat: np.ndarray,
    masks: np.ndarray,
    yams50: np.ndarray,
    uppers: np.ndarray,
) -> np.ndarray:
    """What each roll (row) is worth as the last of the turn, in each state (column): the best
    free box's points, bonuses included, plus the expected rest of the game after it.

    ``joker`` holds each state's ``joker_points`` row, or is None for a sheet without joker.
    Every box is looked up for every state at once: a few dozen numpy calls per chunk.
    """
    free = masks & sheet.bits[:, None] == 0
    # The rest of the game after each box filled with 0 points; a filled box is no choice:
    # -inf, set before the values are spread over the rolls (where a filled box also looked
    # up states that do not exist).
    after = masks | sheet.bits[:, None]
    rest = np.where(free, flat[_flat_index(after, yams50, uppers)], -np.inf)
    gain = np.where(
        free[sheet.upper, None],
        _upper_gains(sheet, flat, after[sheet.upper], yams50, uppers),
        -np.inf,
    )

    # Each way a roll scores points, one row per (box, points). A roll's value is the best of
    # its own rows and of every free box filled with 0: a box is never worth less with points
    # than with 0, so which boxes the roll scores 0 in needs no asking.
    options = np.empty((sheet.option_count, len(masks)))
    scored = len(sheet.option_box)
    np.add(sheet.option_points[:, None], rest[sheet.option_box], out=options[:scored])
    options[sheet.upper_options] = gain[:, 1:].reshape(-1, len(masks))
    if sheet.rules.has_yams_bonus:
        # Only a Yams roll fills the Yams box with 50, and then a later Yams earns the +100.
        yams = sheet.boxes.index("yams")
        options[-1] = np.where(free[yams], 50 + flat[_flat_index(after[yams], 1, uppers)], -np.inf)
    best = np.maximum(rest.max(axis=0), options[sheet.choices[0][1]])
    for rolls, rows in sheet.choices[1:]:
        if rolls is None:
            np.maximum(best, options[rows], out=best)
        else:
            best[rolls] = np.maximum(best[rolls], options[rows])

    # A Yams when the Yams box is already filled: the joker decides the boxes and the points,
    # and a Yams box holding 50 adds the +100.
    if joker is None:  # Yatzy: a Yatzy with its box filled is scored like any other roll
        return best
    has_joker = masks & sheet.yams_bit != 0
    if not has_joker.any():
        return best
    # choices[face - 1, box, state]: the joker's points plus the rest of the game.
    choices = joker.transpose(1, 2, 0) + rest
    # The Yams's own upper box takes all five dice: its gain, upper bonus included.
    own = sheet.upper_points[:, 1] - 1  # the face - 1 of each upper box
    choices[own, sheet.upper] = np.where(
        np.isfinite(joker[:, own, sheet.upper].T), gain[:, DICE], -np.inf
    )
    bonus = YAMS_BONUS * yams50 if sheet.rules.has_yams_bonus else 0
    best[sheet.yams_rolls] = np.where(
        has_joker, choices.max(axis=1) + bonus, best[sheet.yams_rolls]
    )
    return best


def _upper_gains(
    sheet: SheetIndex, flat: np.ndarray, after: np.ndarray, yams50: np.ndarray, uppers: np.ndarray
) -> np.ndarray:
    """``gain[box, count, state]`` of each upper box: the points written, the 35 if they reach
    63, and the rest of the game."""
    points = sheet.upper_points[:, :, None]
    raised = np.minimum(UPPER_CAP, uppers + points)
    bonus = np.where((uppers < UPPER_CAP) & (raised >= UPPER_CAP), sheet.rules.upper_bonus, 0)
    return points + bonus + flat[_flat_index(after[:, None, :], yams50, raised)]
