"""The exact solitaire strategy of one column played alone: the expected rest of the game from
every state, solved backwards from the full column (Verhoeff 1999, Glenn 2006).

Every column kind the app plays has its table: ``free`` (any order, three throws a turn),
``sec`` (any order, one throw), ``down`` and ``up`` (one fixed order), with five or six dice
and with or without Plus et Moins; and Generala's sheet, whose first throw scores more.

A state is what the rest of a column's game depends on: which boxes are filled (a bitmask in
sheet order; in an ordered column only the masks of its order happen), the upper total
capped at 63 (the bonus only asks whether 63 is reached; Generala has no bonus), whether the
Yams box holds 50 (the +100; Generala: whether its Generala box does, for the Doble
Generala; without either, always 0) and, with Plus et Moins, the value written in one of the
two while the other is free (the other must then end below or above it).

Generala (docs/rules.md §14): a roll of the first throw may be scored at once with the
servida's points, as a Sec column's only roll is (``Throws.turn_value``'s ``first_only``).
A Generala servida that wins the game at once is valued as a Generala of 50 and the game
going on: the solitaire table counts points, and the win is counted where winning is
(« Pour gagner »).

The values of a column are one flat array: ``SheetIndex.slots`` gives the place of each
(mask, yams50, upper), to which the Plus et Moins value adds. States whose upper total no
longer matters (the bonus won, or out of reach) share one place: they have one value.
"""

from collections.abc import Callable, Iterable, Mapping, Set
from functools import cache
from typing import NamedTuple

import numpy as np

from scorekeeper.advisor.tables import ONE_THROW_COLUMNS
from scorekeeper.advisor.turn import FACES, Throws
from scorekeeper.rules.dice import Dice, yams_face
from scorekeeper.rules.options import (
    BOX_OF_FACE,
    FACE_OF_BOX,
    KNIFFEL_BONUS,
    ORDERED_COLUMNS,
    UPPER_BONUS_THRESHOLD,
    UPPER_BOXES,
)
from scorekeeper.rules.rule_set import Rules
from scorekeeper.rules.scoring import score

YAMS_BONUS = 100
YAMS_POINTS = 50
UPPER_CAP = UPPER_BONUS_THRESHOLD
UPPERS = UPPER_CAP + 1
# An upper box counts five dice at most: with six, it scores its best five (Yams 6).
MOST_COUNTED = 5
# Plus et Moins: Plus and Moins score the sum of five dice, 5 to 30. What one of them leaves
# to the other is its written value clamped to 4..30: a Moins of 4 or less (0 when la vache
# barred it) lets every Plus through, a Plus of 5 or less bars every Moins.
PM_LOWEST, PM_HIGHEST = 4, 30
PM_WIDTH = PM_HIGHEST - PM_LOWEST + 1
PM_SUMS = np.arange(5, 31)

# States solved together: enough for numpy's cost per call to vanish, few enough that the
# turn's arrays (keeps x states, float64: under 2 MB) stay in a core's cache, which makes the
# build about twice as fast as with tens of megabytes.
CHUNK = 256
# Masks whose states are listed at once during a build.
MASKS_AT_ONCE = 256

Progress = Callable[[int, int], None]
# Where the dice of a Yams may go in a column whose Yams box is filled (the joker), among
# the boxes the column leaves open, and what each scores.
JokerRule = Callable[[Rules, str, tuple[str, ...], Dice], dict[str, int]]


class States(NamedTuple):
    """Column states, one per position of each array."""

    mask: np.ndarray
    yams50: np.ndarray
    upper: np.ndarray
    pm: np.ndarray  # the Plus et Moins value's place (0 when neither or both are written)

    def take(self, which) -> "States":
        """The states ``which`` (a slice, indices or a boolean array) selects."""
        return States(*(array[which] for array in self))


def allowed_boxes(rules: Rules, filled: Iterable[str], dice: Dice) -> tuple[str, ...]:
    """The boxes of a free column these dice may fill, in sheet order (docs/rules.md §4).

    The same rule as ``GameState.placement`` for one free column, on a bare set of filled
    boxes so that the solver can ask it for thousands of sheets; a test holds them equal.
    """
    filled = set(filled)
    return _boxes_for(rules, filled, yams_face(dice) if "yams" in filled else None)


def _boxes_for(rules: Rules, filled: Set[str], face: int | None) -> tuple[str, ...]:
    """The free boxes that dice may fill, knowing whether they are a Yams of ``face`` with
    the Yams box filled (the joker) or not (None)."""
    free = tuple(box for box in rules.boxes if box not in filled)
    if face is None or rules.joker in ("free", "free_choice") or not rules.has_joker:
        return free
    if BOX_OF_FACE[face] in free:
        return (BOX_OF_FACE[face],)
    lower_boxes = rules.lower_boxes
    lower = tuple(box for box in free if box in lower_boxes)
    return lower or free


def joker_choices(
    rules: Rules, kind: str, open_boxes: tuple[str, ...], dice: Dice
) -> dict[str, int]:
    """The joker of ``rules``: where a Yams may go when the column's Yams box is filled, and
    what each box then scores. In an ordered column the order decides the box; the joker only
    gives Full and the suites their full value there (Verhoeff's choice: once the face's upper
    box is filled)."""
    filled = _filled(rules, kind, open_boxes)
    if kind not in ORDERED_COLUMNS:
        open_boxes = _boxes_for(rules, filled, yams_face(dice))
    full_value = rules.joker != "free_choice" or BOX_OF_FACE[yams_face(dice)] in filled
    return {box: _joker_score(rules, box, dice, full_value) for box in open_boxes}


def _filled(rules: Rules, kind: str, open_boxes: tuple[str, ...]) -> set[str]:
    """The boxes of a column filled when these are open: the others, or in an ordered column
    those its order put before the next one."""
    boxes = rules.boxes
    if not open_boxes:
        return set(boxes)
    if kind == "down":
        return set(boxes[: boxes.index(open_boxes[0])])
    if kind == "up":
        return set(boxes[boxes.index(open_boxes[-1]) + 1 :])
    return {box for box in boxes if box not in open_boxes}


@cache  # asked by every sheet index and by the joker's rule, always the same few hundred
def _joker_score(rules: Rules, box: str, dice: Dice, full_value: bool = True) -> int:
    return score(rules, box, dice, joker=full_value)


def pm_place(value: int | np.ndarray) -> int | np.ndarray:
    """Where the value written in Plus or Moins, the other being free, is kept."""
    return np.clip(value, PM_LOWEST, PM_HIGHEST) - PM_LOWEST


@cache
def _reachable_uppers() -> np.ndarray:
    """``reach[filled, upper]``: whether the upper boxes of ``filled`` (six bits, ones first)
    can add up to this capped total."""
    reach = np.zeros((1 << len(FACES), UPPERS), dtype=bool)
    for filled in range(1 << len(FACES)):
        totals = {0}
        for position, face in enumerate(FACES):
            if filled >> position & 1:
                totals = {
                    min(UPPER_CAP, total + face * count)
                    for total in totals
                    for count in range(MOST_COUNTED + 1)
                }
        reach[filled, sorted(totals)] = True
    return reach


class SheetIndex:
    """The states of one column kind under one set of rules, where their values are kept,
    and the points each roll gives."""

    def __init__(self, rules: Rules, kind: str = "free") -> None:
        self.rules = rules
        self.kind = kind
        self.throws = Throws.of(rules.dice)
        self.one_throw = kind in ONE_THROW_COLUMNS
        self.boxes = rules.boxes
        self.position = {box: index for index, box in enumerate(self.boxes)}
        self.bit = {box: 1 << index for index, box in enumerate(self.boxes)}
        self.full = (1 << len(self.boxes)) - 1
        self.yams_bit = self.bit.get("yams", 0)
        # The box whose 50 the state remembers: the Yams box for the +100, Generala's for
        # its Doble Generala; None when nothing depends on it.
        self.fifty_box = (
            "generala" if rules.is_generala else "yams" if rules.has_yams_bonus else None
        )
        self.fifty_bit = self.bit[self.fifty_box] if self.fifty_box else 0
        # Generala's Doble Generala: its points count only once the Generala box holds 50.
        self.double = self.position.get("double_generala") if rules.is_generala else None
        # Whether a roll of the turn's first throw may score more (Generala's servida).
        self.served = rules.is_generala and rules.servida
        # The upper boxes come first in sheet order: the mask's six low bits.
        self.upper_bits = sum(self.bit[box] for box in UPPER_BOXES)
        self.bits = np.array([self.bit[box] for box in self.boxes], dtype=np.int64)
        self.pm = [self.position[box] for box in ("plus", "minus") if box in self.bit]
        self.pm_bits = sum(int(self.bits[index]) for index in self.pm)
        rolls = self.throws.rolls
        # Points of each box for each roll, from the rules engine itself; and made on the
        # first throw, where the servida scores more.
        self.points = {
            box: np.array([score(rules, box, roll) for roll in rolls], dtype=float)
            for box in self.boxes
        }
        self.served_points = (
            {
                box: np.array([score(rules, box, roll, served=True) for roll in rolls], dtype=float)
                for box in self.boxes
            }
            if self.served
            else self.points
        )
        self.yams_rolls = np.array(
            [index for index, roll in enumerate(rolls) if yams_face(roll) is not None]
        )
        # What each box scores for each Yams roll when the joker applies; the upper box of
        # each Yams roll's face, where the official joker sends it first.
        self.joker_scores = np.array(
            [
                [_joker_score(rules, box, rolls[roll]) for box in self.boxes]
                for roll in self.yams_rolls
            ]
        )
        # What they score without the joker's full value: Verhoeff's choice, its face's upper
        # box still open.
        self.plain_yams_scores = np.array(
            [[self.points[box][roll] for box in self.boxes] for roll in self.yams_rolls]
        )
        self._face_box = np.array(
            [self.position[BOX_OF_FACE[yams_face(rolls[roll])]] for roll in self.yams_rolls]
        )
        self._only_face_box = np.arange(len(self.boxes)) == self._face_box[:, None]
        # Kniffel's +50 of each roll in each box, once the Yams box is filled: a Yams in its
        # face's upper box (docs/rules.md §12); zeros elsewhere.
        self.kniffel_points = np.zeros((len(rolls), len(self.boxes)), dtype=np.int64)
        if rules.has_kniffel_bonus:
            self.kniffel_points[self.yams_rolls, self._face_box] = KNIFFEL_BONUS
        self._is_lower = np.isin(self.boxes, rules.lower_boxes)
        self.upper = np.array([self.position[box] for box in UPPER_BOXES])
        upper_faces = np.array(FACES)
        # What an upper box scores for each count of its face: ``upper_points[box, count]``.
        self.upper_points = upper_faces[:, None] * np.arange(MOST_COUNTED + 1)
        self.face_count = np.array(
            [[min(MOST_COUNTED, roll.count(face)) for roll in rolls] for face in FACES]
        )
        # What Plus and Moins score (the same, their best five dice), when the sheet has them.
        self.pm_sums = self.points[self.boxes[self.pm[0]]].astype(np.int64) if self.pm else None
        masks = np.arange(self.full + 1)
        self.open_bits = self._open_bits(masks)
        # The most the open upper boxes of each mask can still add: five of their face each.
        self.upper_room = sum(
            np.where(masks & self.bits[index], 0, MOST_COUNTED * face)
            for index, face in zip(self.upper, FACES, strict=True)
        )
        self._list_choices()
        self._index(masks)

    def _open_bits(self, masks: np.ndarray) -> np.ndarray:
        """The boxes each mask leaves open to the next turn: every free one, or the next in
        the column's order."""
        free = self.full & ~masks
        if self.kind == "down":
            return free & (masks + 1)  # the lowest free bit
        if self.kind == "up":
            highest = np.zeros_like(masks)
            for bit in self.bits:
                highest = np.where(free & bit, bit, highest)
            return highest
        return free

    def _in_play(self, masks: np.ndarray) -> np.ndarray:
        """The masks the column's order lets happen."""
        if self.kind == "down":
            return masks & (masks + 1) == 0
        if self.kind == "up":
            free = self.full & ~masks
            return free & (free + 1) == 0
        return np.ones(len(masks), dtype=bool)

    def _index(self, masks: np.ndarray) -> None:
        """Number the states of the masks in play: ``slots[row[mask] * 128 + yams50 * 64 +
        upper]``, -1 when the state cannot happen. int32 and in place: with 32,768 masks
        (Yatzy) the arrays are tens of MB, and fresh pages cost system time."""
        self.in_play = self._in_play(masks)
        # One row per mask in play, then one for all the others (looked up for boxes that
        # are not open, then dropped): no state, -1.
        rows = np.append(masks[self.in_play], 0)
        self._row = np.full(len(masks), len(rows) - 1, dtype=np.int32)
        self._row[rows[:-1]] = np.arange(len(rows) - 1, dtype=np.int32)
        uppers = np.arange(UPPERS)
        with_fifty = (rows & self.fifty_bit != 0) & (self.fifty_bit != 0)
        flags = np.stack([np.ones(len(rows), dtype=bool), with_fifty], axis=1)
        reachable = _reachable_uppers()[rows & self.upper_bits][:, None, :] & flags[:, :, None]
        reachable[-1] = False
        settled = (
            (uppers >= UPPER_CAP)
            | (uppers + self.upper_room[rows][:, None] < UPPER_CAP)
            # Without an upper bonus (Generala) the upper total never matters.
            | (not self.rules.has_upper_bonus)
        )
        settled_reachable = reachable & settled[:, None, :]
        first_settled = settled_reachable & (
            np.cumsum(settled_reachable, axis=2, dtype=np.int8) == 1
        )
        self._solved = reachable & (~settled[:, None, :] | first_settled)
        self._width = np.where(self.pending(rows), PM_WIDTH, 1).astype(np.int32)
        places = self._solved * self._width[:, None, None]
        slots = np.cumsum(places, dtype=np.int32).reshape(places.shape)
        self.size = int(slots[-1, -1, -1])
        slots -= places
        del places
        shared = np.where(first_settled, slots, 0).sum(axis=2, dtype=np.int32)
        np.copyto(slots, -1, where=~reachable)
        np.copyto(slots, shared[:, :, None], where=settled_reachable & ~first_settled)
        self.slots = slots.ravel()
        # What a build solves: every place but the full column's.
        self.to_solve = self.size - int(self._solved[self._row[self.full]].sum())

    def solved_states(self, masks: Iterable[int] | None = None) -> States:
        """Every state of ``masks`` (all by default) with a place of its own, in the order of
        their places: each solved (mask, yams50, upper), repeated for each Plus et Moins
        value it may hold."""
        masks = np.nonzero(self.in_play)[0] if masks is None else np.asarray(masks)
        row, flag, upper = np.nonzero(self._solved[self._row[masks]])
        mask = masks[row]
        repeat = self._width[self._row[mask]]
        first = np.repeat(np.cumsum(repeat) - repeat, repeat)
        return States(
            np.repeat(mask, repeat),
            np.repeat(flag, repeat),
            np.repeat(upper, repeat),
            np.arange(repeat.sum()) - first,
        )

    def count_states(self, masks: np.ndarray) -> int:
        """How many states of these masks have a place of their own."""
        rows = self._row[masks]
        return int((self._solved[rows].sum(axis=(1, 2)) * self._width[rows]).sum())

    def pending(self, masks: np.ndarray) -> np.ndarray:
        """Whether one of Plus and Moins is written and the other free."""
        both = masks & self.pm_bits
        return (both != 0) & (both != self.pm_bits)

    def _list_choices(self) -> None:
        """The rows of ``_last_roll_values``'s options, and which of them each roll takes.

        The rows: each lower box with each of its points, each upper box with each count
        from 1 to 5, Plus and Moins with each sum, then the Yams box at 50 when a +100
        exists (Generala's box, for its Doble). ``choices`` lists, for the n-th row of every
        roll that has n rows or more, those rolls (None: all) and rows; ``served_choices``
        the same for a roll of the first throw. Every roll has a first row: it scores in the
        upper box of each face it shows.
        """
        bonus_box = self.position[self.fifty_box] if self.fifty_box else None
        self.lower = [
            index
            for index, box in enumerate(self.boxes)
            if box not in FACE_OF_BOX and index not in self.pm and index != bonus_box
        ]
        pairs = sorted(
            {
                (index, value)
                for points in (self.points, self.served_points)
                for index in self.lower
                for value in points[self.boxes[index]]
                if value > 0
            }
        )
        self.option_box = np.array([index for index, _ in pairs], dtype=np.int64)
        self.option_points = np.array([value for _, value in pairs])
        row_of = {pair: row for row, pair in enumerate(pairs)}
        upper_start = len(pairs)
        self.upper_options = slice(upper_start, upper_start + len(FACES) * MOST_COUNTED)
        self.pm_options = slice(
            self.upper_options.stop, self.upper_options.stop + len(self.pm) * len(PM_SUMS)
        )
        self.option_count = self.pm_options.stop + (bonus_box is not None)
        self.double_rows = (
            np.zeros(len(pairs), dtype=bool)
            if self.double is None
            else self.option_box == self.double
        )
        self.choices = self._choices_of(self.points, row_of, upper_start, bonus_box)
        self.served_choices = (
            self._choices_of(self.served_points, row_of, upper_start, bonus_box)
            if self.served
            else self.choices
        )

    def _choices_of(
        self,
        points: Mapping[str, np.ndarray],
        row_of: Mapping[tuple[int, float], int],
        upper_start: int,
        bonus_box: int | None,
    ) -> list[tuple[np.ndarray | None, np.ndarray]]:
        """``choices`` (see ``_list_choices``) for rolls scoring ``points``."""
        rows_of_roll = []
        for roll_index, roll in enumerate(self.throws.rolls):
            rows = [
                row_of[index, points[self.boxes[index]][roll_index]]
                for index in self.lower
                if points[self.boxes[index]][roll_index] > 0
            ]
            rows += [
                upper_start + MOST_COUNTED * position + count - 1
                for position, count in enumerate(self.face_count[:, roll_index])
                if count
            ]
            rows += [
                self.pm_options.start
                + len(PM_SUMS) * number
                + self.pm_sums[roll_index]
                - PM_SUMS[0]
                for number in range(len(self.pm))
            ]
            if bonus_box is not None and yams_face(roll) is not None:
                rows.append(self.option_count - 1)
            rows_of_roll.append(rows)
        choices = []
        for number in range(max(len(rows) for rows in rows_of_roll)):
            rolls = [index for index, rows in enumerate(rows_of_roll) if len(rows) > number]
            rows = np.array([rows_of_roll[index][number] for index in rolls])
            choices.append((None if len(rolls) == len(rows_of_roll) else np.array(rolls), rows))
        return choices

    def mask(self, filled: Iterable[str]) -> int:
        return sum(self.bit[box] for box in filled)

    def state(self, points: Mapping[str, int]) -> States:
        """The state of a column whose filled boxes hold ``points``, as arrays of one."""
        return States(*(np.array([part], dtype=np.int64) for part in self._key(points)))

    def rest(self, values: np.ndarray, points: Mapping[str, int]) -> float:
        """The value of the state of a column whose filled boxes hold ``points``: ``value``
        of ``state``, without arrays (the advice asks it for every box)."""
        mask, yams50, upper, pm = self._key(points)
        return float(
            values[int(self.slots[(int(self._row[mask]) * 2 + yams50) * UPPERS + upper]) + pm]
        )

    def _key(self, points: Mapping[str, int]) -> tuple[int, int, int, int]:
        mask = self.mask(points)
        upper = min(UPPER_CAP, sum(points[box] for box in UPPER_BOXES if box in points))
        yams50 = int(self.fifty_box is not None and points.get(self.fifty_box, 0) > 0)
        written = [points[box] for box in ("plus", "minus") if box in points]
        pm = int(pm_place(written[0])) if len(written) == 1 else 0
        return mask, yams50, upper, pm

    def place(self, states: States) -> np.ndarray:
        """Where each state's value is kept (meaningless for a state that cannot happen)."""
        return (
            self.slots[(self._row[states.mask] * 2 + states.yams50) * UPPERS + states.upper]
            + states.pm
        )

    def value(self, values: np.ndarray, states: States) -> np.ndarray:
        return values[self.place(states)]

    def joker_points(self, masks: Iterable[int], rule: JokerRule = joker_choices) -> np.ndarray:
        """``points[row, yams roll, box]`` of each Yams roll when the Yams box of
        ``masks[row]`` is filled; -inf where the joker does not let it go."""
        masks = np.fromiter(masks, dtype=np.int64)
        if rule is joker_choices:
            return self._joker_points(masks)
        rolls = self.throws.rolls
        points = np.full((len(masks), len(self.yams_rolls), len(self.boxes)), -np.inf)
        for row, mask in enumerate(masks.tolist()):
            if mask & self.yams_bit:
                open_boxes = tuple(
                    box for box in self.boxes if self.open_bits[mask] & self.bit[box]
                )
                for number, roll in enumerate(self.yams_rolls):
                    for box, value in rule(self.rules, self.kind, open_boxes, rolls[roll]).items():
                        points[row, number, self.position[box]] = value
        return points

    def _joker_points(self, masks: np.ndarray) -> np.ndarray:
        """``joker_points`` of the rules' own joker (``joker_choices``), for every mask at
        once: the build asks it for thousands of masks and 6 or 36 Yams rolls."""
        is_open = self.open_bits[masks][:, None] & self.bits != 0  # [mask, box]
        allowed = np.broadcast_to(
            is_open[:, None, :], (len(masks), len(self.yams_rolls), len(self.boxes))
        )
        if self.kind not in ORDERED_COLUMNS and self.rules.joker == "official":
            # The face's upper box if open, else an open lower box, else any open box.
            face_open = is_open[:, self._face_box]  # [mask, yams roll]
            lower = is_open & self._is_lower
            otherwise = np.where(lower.any(axis=1)[:, None], lower, is_open)
            allowed = np.where(face_open[:, :, None], self._only_face_box, otherwise[:, None, :])
        allowed = allowed & (masks & self.yams_bit != 0)[:, None, None]
        scores = self.joker_scores
        if self.rules.joker == "free_choice":
            # Full and the straights at their full value only once the face's box is filled.
            face_filled = masks[:, None] & self.bits[self._face_box] != 0  # [mask, yams roll]
            scores = np.where(face_filled[:, :, None], scores, self.plain_yams_scores)
        return np.where(allowed, scores, -np.inf)


def build_table(
    rules: Rules,
    kind: str = "free",
    filled: Iterable[str] = (),
    progress: Progress | None = None,
    sheet: SheetIndex | None = None,
) -> np.ndarray:
    """The expected rest of the game of every state of a column of ``kind`` played alone:
    one value per place of ``SheetIndex(rules, kind)`` (355,390 for the classique sheet).

    With ``filled``, only the states where those boxes are already filled are solved (the end
    of a game, small enough to check by brute force); the others stay NaN.
    ``progress(done, total)`` is called as states get solved. ``sheet`` is
    ``SheetIndex(rules, kind)`` when the caller has it already.
    """
    sheet = sheet or SheetIndex(rules, kind)
    values = np.full(sheet.size, np.nan)
    masks = np.arange(sheet.full + 1)
    base = sheet.mask(filled)
    in_play = masks[(masks & base == base) & sheet.in_play]
    values[sheet.place(sheet.solved_states([sheet.full]))] = 0.0
    total = sheet.count_states(in_play[in_play != sheet.full])
    filled_count = np.array([bin(mask).count("1") for mask in in_play.tolist()])
    done = 0
    # Each state's value needs the states with one more box filled: solve by number of
    # filled boxes, from the full sheet down; a few masks at a time, so that the states
    # listed (ten million with Plus et Moins) take little memory.
    for count in range(len(sheet.boxes) - 1, -1, -1):
        counted = in_play[filled_count == count]
        for first in range(0, len(counted), MASKS_AT_ONCE):
            masks = counted[first : first + MASKS_AT_ONCE]  # ascending: for the joker's rows
            batch = sheet.solved_states(masks)
            joker = sheet.joker_points(masks) if rules.has_joker else None
            for start in range(0, len(batch.mask), CHUNK):
                part = batch.take(slice(start, start + CHUNK))
                rows = None if joker is None else joker[np.searchsorted(masks, part.mask)]
                last_roll = _last_roll_values(sheet, values, part, rows)
                if sheet.one_throw:
                    value = sheet.throws.turn_value(None, last_roll)
                elif sheet.served:
                    # The first throw's roll may be scored at once, as a servida.
                    first = _last_roll_values(sheet, values, part, rows, served=True)
                    value = sheet.throws.turn_value(last_roll, first)
                else:
                    value = sheet.throws.turn_value(last_roll)
                values[sheet.place(part)] = value
                done += len(part.mask)
                if progress is not None:
                    progress(done, total)
    return values


def roll_values(
    sheet: SheetIndex,
    values: np.ndarray,
    states: States,
    floors: np.ndarray | None = None,
    served: bool = False,
) -> np.ndarray:
    """What each roll (row) is worth as the last of the turn in each of ``states`` (column)
    of a solved table: the best open box's points, bonuses included, plus the expected rest
    of the game after it; -inf when no box is open. ``floors[box, state]``: the least each
    box may score (la vache), 0 for none. ``served``: the rolls of the first throw, scored
    with the servida's points (Generala)."""
    masks = np.unique(states.mask)
    joker = (
        sheet.joker_points(masks)[np.searchsorted(masks, states.mask)]
        if sheet.rules.has_joker
        else None
    )
    return _last_roll_values(sheet, values, states, joker, floors, served)


class _Gains(NamedTuple):
    """What each way of filling a box brings in each state: points and the rest after."""

    rest: np.ndarray  # [box, state]: the box filled with 0, -inf when not open
    upper: np.ndarray  # [upper box, count, state]
    pm: np.ndarray | None  # [Plus or Moins, sum - 5, state]
    pm_written: np.ndarray | None  # the points Plus or Moins then keep: 0 when barred
    fifty: np.ndarray | None  # [state]: the Yams box at 50, when a +100 exists


def _gains(
    sheet: SheetIndex, values: np.ndarray, states: States, floors: np.ndarray | None
) -> _Gains:
    """The points written, the upper bonus they earn and the rest of the game after, for
    every box of every state; a box under its floor scores 0 (la vache)."""
    masks, yams50, uppers, pms = states
    is_open = sheet.open_bits[masks] & sheet.bits[:, None] != 0
    # The rest of the game after each box filled with 0; -inf where the box is not open,
    # set before the values are spread over the rolls (which looked up states that do not
    # exist). A Plus or Moins at 0 leaves the other free of any bound, or both written.
    after = masks | sheet.bits[:, None]
    kept_pm = np.where(np.isin(np.arange(len(sheet.boxes)), sheet.pm)[:, None], 0, pms)
    rest = np.where(is_open, sheet.value(values, States(after, yams50, uppers, kept_pm)), -np.inf)

    points = sheet.upper_points[:, :, None]
    raised = np.minimum(UPPER_CAP, uppers + points)
    bonus = np.where((uppers < UPPER_CAP) & (raised >= UPPER_CAP), sheet.rules.upper_bonus, 0)
    upper = (
        points
        + bonus
        + sheet.value(values, States(after[sheet.upper][:, None, :], yams50, raised, pms))
    )
    if floors is not None:
        upper = np.where(
            points >= floors[sheet.upper][:, None, :], upper, rest[sheet.upper][:, None, :]
        )
    upper = np.where(is_open[sheet.upper][:, None, :], upper, -np.inf)

    pm = pm_written = None
    if sheet.pm:
        shape = (len(sheet.pm), len(PM_SUMS), len(masks))
        pm, pm_written = np.empty(shape), np.empty(shape)
        sums = PM_SUMS[:, None]
        other_value = pms + PM_LOWEST
        for number, (box, other) in enumerate(zip(sheet.pm, sheet.pm[::-1], strict=True)):
            other_filled = masks & sheet.bits[other] != 0
            # Plus must end above Moins: the entry that breaks it is barred (docs/rules.md §7).
            kept_apart = sums > other_value if number == 0 else sums < other_value
            written = np.where(~other_filled | kept_apart, sums, 0)
            if floors is not None:
                written = np.where(written >= floors[box], written, 0)
            bound = np.where(other_filled, 0, pm_place(written))
            gain = written + sheet.value(values, States(after[box], yams50, uppers, bound))
            pm[number] = np.where(is_open[box], gain, -np.inf)
            pm_written[number] = written

    fifty = None
    if sheet.fifty_box is not None:
        # Only a Yams fills the Yams box with 50, and then a later Yams earns the +100 (a
        # Generala of 50 opens its Doble Generala: GENERALA_POINTS is 50 too).
        yams = sheet.position[sheet.fifty_box]
        fifty = np.where(
            is_open[yams],
            YAMS_POINTS
            + sheet.value(values, States(after[yams], np.ones_like(yams50), uppers, pms)),
            -np.inf,
        )
    return _Gains(rest, upper, pm, pm_written, fifty)


def _last_roll_values(
    sheet: SheetIndex,
    values: np.ndarray,
    states: States,
    joker: np.ndarray | None,
    floors: np.ndarray | None = None,
    served: bool = False,
) -> np.ndarray:
    """What each roll (row) is worth as the last of the turn, in each state (column): the best
    open box's points, bonuses included, plus the expected rest of the game after it.

    ``joker`` holds each state's ``joker_points`` row, or is None for a sheet without joker.
    ``served``: the rolls of the first throw, with the servida's points (Generala). Every
    box is looked up for every state at once: a few dozen numpy calls per chunk.
    """
    gains = _gains(sheet, values, states, floors)
    rest = gains.rest
    # Each way a roll scores points, one row per (box, points). A roll's value is the best of
    # its own rows and of every open box filled with 0: a box is never worth less with points
    # than with 0, so which boxes the roll scores 0 in needs no asking.
    options = np.empty((sheet.option_count, len(states.mask)))
    scored = len(sheet.option_box)
    np.add(sheet.option_points[:, None], rest[sheet.option_box], out=options[:scored])
    if floors is not None:
        below = sheet.option_points[:, None] < floors[sheet.option_box]
        options[:scored][below] = -np.inf
    options[sheet.upper_options] = gains.upper[:, 1:].reshape(-1, len(states.mask))
    if gains.pm is not None:
        options[sheet.pm_options] = gains.pm.reshape(-1, len(states.mask))
    if gains.fifty is not None:
        options[-1] = gains.fifty
    if sheet.double is not None:
        # The Doble Generala scores only once the Generala box holds 50; before, the dice
        # bar it, which filling it with 0 (rest) already counts.
        options[:scored][sheet.double_rows] = np.where(
            states.yams50 == 1, options[:scored][sheet.double_rows], -np.inf
        )
    choices = sheet.served_choices if served else sheet.choices
    best = np.maximum(rest.max(axis=0), options[choices[0][1]])
    for rolls, rows in choices[1:]:
        if rolls is None:
            np.maximum(best, options[rows], out=best)
        else:
            best[rolls] = np.maximum(best[rolls], options[rows])

    # A Yams when the Yams box is already filled: the joker decides the boxes and the points,
    # and a Yams box holding 50 adds the +100.
    if joker is None:  # Yatzy: a Yatzy with its box filled is scored like any other roll
        return best
    has_joker = states.mask & sheet.yams_bit != 0
    if not has_joker.any():
        return best
    choices = _joker_values(
        sheet, gains, joker.transpose(1, 2, 0), floors, sheet.yams_rolls[:, None]
    )
    bonus = YAMS_BONUS * states.yams50 if sheet.rules.has_yams_bonus else 0
    best[sheet.yams_rolls] = np.where(
        has_joker, choices.max(axis=1) + bonus, best[sheet.yams_rolls]
    )
    return best


def _joker_values(
    sheet: SheetIndex,
    gains: _Gains,
    points: np.ndarray,
    floors: np.ndarray | None,
    rolls: np.ndarray,
) -> np.ndarray:
    """``value[yams roll, box, state]`` of a Yams placed by the joker (``points[yams roll,
    box, state]``, -inf where it may not go; ``rolls`` says which roll, per Yams roll or per
    state): the box's gain for those points."""
    count, _boxes, states = points.shape
    rolls = np.broadcast_to(rolls, (count, states))
    written = points if floors is None else np.where(points >= floors, points, 0)
    value = written + gains.rest
    # An upper box scores the count of its face, Plus and Moins their sum: their gains.
    value[:, sheet.upper] = gains.upper[
        np.arange(len(FACES))[:, None, None], sheet.face_count[:, rolls], np.arange(states)
    ].transpose(1, 0, 2)
    if sheet.rules.has_kniffel_bonus:
        value[:, sheet.upper] += sheet.kniffel_points[rolls][:, :, sheet.upper].transpose(0, 2, 1)
    if gains.pm is not None:
        value[:, sheet.pm] = gains.pm[
            np.arange(len(sheet.pm))[:, None, None],
            sheet.pm_sums[rolls] - PM_SUMS[0],
            np.arange(states),
        ].transpose(1, 0, 2)
    return np.where(np.isfinite(points), value, -np.inf)


def box_values(
    sheet: SheetIndex,
    values: np.ndarray,
    states: States,
    rolls: np.ndarray,
    floors: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Each box filled with each state's own final roll (``rolls``, indices of
    ``sheet.throws.rolls``): ``(value[box, state], points[box, state])``, the value being
    the points written, the bonuses and the expected rest of the game after (-inf where the
    box may not take the roll), the points what the box gets (0 when barred). The same
    arithmetic as ``roll_values``, box by box."""
    gains = _gains(sheet, values, states, floors)
    columns = np.arange(len(rolls))
    points = np.array([sheet.points[box][rolls] for box in sheet.boxes])
    if sheet.double is not None:
        points[sheet.double] = np.where(states.yams50 == 1, points[sheet.double], 0)
    written = points if floors is None else np.where(points >= floors, points, 0)
    value = written + gains.rest
    value[sheet.upper] = gains.upper[
        np.arange(len(FACES))[:, None], sheet.face_count[:, rolls], columns
    ]
    sums = None if sheet.pm_sums is None else sheet.pm_sums[rolls] - PM_SUMS[0]
    for number, box in enumerate(sheet.pm):
        value[box] = gains.pm[number, sums, columns]
        written[box] = gains.pm_written[number, sums, columns]
    is_yams = np.isin(rolls, sheet.yams_rolls)
    if gains.fifty is not None:
        yams = sheet.position[sheet.fifty_box]
        value[yams] = np.where(is_yams, gains.fifty, value[yams])
    value = np.where(np.isfinite(gains.rest), value, -np.inf)
    has_joker = (states.mask & sheet.yams_bit != 0) & is_yams & sheet.rules.has_joker
    if not has_joker.any():
        return value, written
    # A Yams with the Yams box filled: the joker's boxes and points, and the +100.
    which = np.minimum(np.searchsorted(sheet.yams_rolls, rolls), len(sheet.yams_rolls) - 1)
    joker = np.full((len(sheet.boxes), len(rolls)), -np.inf)
    rows = sheet.joker_points(states.mask[has_joker])
    joker[:, has_joker] = rows[np.arange(len(rows)), which[has_joker]].T
    placed = _joker_values(sheet, gains, joker[None], floors, rolls[None])[0]
    bonus = YAMS_BONUS * states.yams50 if sheet.rules.has_yams_bonus else 0
    value = np.where(has_joker, placed + bonus, value)
    joker_written = joker if floors is None else np.where(joker >= floors, joker, 0)
    joker_written = np.where(np.isfinite(joker), joker_written, 0)
    for number, box in enumerate(sheet.pm):
        joker_written[box] = np.where(
            np.isfinite(joker[box]), gains.pm_written[number, sums, columns], 0
        )
    written = np.where(has_joker, joker_written, written)
    return value, written
