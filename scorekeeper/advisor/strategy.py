"""The advice a player gets: which box to fill with the dice on the table, from the table of
expected rests of the game, built once and cached in the instance folder."""

import contextlib
import os
import tempfile
from dataclasses import dataclass
from functools import cached_property
from itertools import combinations
from pathlib import Path

import numpy as np

from scorekeeper.advisor.solver import (
    UPPER_CAP,
    Progress,
    SheetIndex,
    build_table,
    roll_values,
    sheet_state,
)
from scorekeeper.advisor.tables import (
    LAST_THROW,
    THROWS,
    cache_path,
    check_covered,
    check_request,
    table_options,
)
from scorekeeper.advisor.turn import KEEP_INDEX, keep_values
from scorekeeper.rules.errors import RuleError
from scorekeeper.rules.game import Column, GameState
from scorekeeper.rules.labels import N_
from scorekeeper.rules.options import Rules


def table_shape(rules: Rules) -> tuple[int, int, int]:
    """Every set of filled boxes, Yams at 50 or not, every capped upper total."""
    return (1 << len(rules.boxes), 2, UPPER_CAP + 1)


@dataclass(frozen=True)
class Advice:
    """One box the active player may choose, and the final total to expect after it."""

    box: str
    column: str
    expected_total: float


@dataclass(frozen=True)
class KeepAdvice:
    """Dice to set aside before the next throw (from none to all five: all five is scoring
    them now), and the final total to expect after it."""

    keep: tuple[int, ...]  # highest face first, as players line up their dice
    expected_total: float


class Strategy:
    """The optimal solitaire strategy for one set of rules."""

    def __init__(self, rules: Rules, values: np.ndarray) -> None:
        check_covered(rules)
        self.rules = rules
        self.values = values

    @property
    def start_value(self) -> float:
        """The expected final score of a fresh sheet under optimal play."""
        return float(self.values[0, 0, 0])

    def expected_rest(self, column: Column) -> float:
        """The points still to come on this column under optimal play."""
        points = {box: cell.points for box, cell in column.cells.items()}
        return float(self.values[sheet_state(self.rules, points)])

    def advise(self, state: GameState, dice: object) -> list[Advice]:
        """Every box the active player may fill with ``dice``, best first.

        ``expected_total`` is the player's total after this box (its points, the upper bonus
        and the +100 as the rules engine scores them) plus the expected rest of the game.
        """
        dice = self._check(state, dice)
        player = state.active_player
        sheet = state.sheets[player]
        advice = []
        for (kind, box), cell in state.preview(dice, player).items():
            column = sheet.columns[kind]
            after = column.with_score(cell)
            expected = sheet.total - column.total + after.total + self.expected_rest(after)
            advice.append(Advice(box, kind, expected))
        # A stable sort: equal values keep the sheet order.
        advice.sort(key=lambda item: -item.expected_total)
        return advice

    def advise_keeps(self, state: GameState, dice: object, throw: int) -> list[KeepAdvice]:
        """Every distinct keep among ``dice`` after the first or second throw, best first.

        Exact, computed for this one state: what each final roll is worth (the best box and
        the rest of the game, from the table), then the throws left averaged and maximised as
        the solver does. Keeping all five means scoring the best box now; the solver's
        all-five keep may still throw again next time, but that never beats throwing the same
        dice now, so the best keep is worth exactly the solver's value of these dice.
        """
        dice = self._check(state, dice)
        if throw not in THROWS[:-1]:
            raise RuleError(N_("Le choix des dés à garder se fait après le 1er ou le 2e lancer."))
        sheet = state.sheets[state.active_player]
        column = sheet.columns["free"]
        points = {box: cell.points for box, cell in column.cells.items()}
        last_roll = sheet.total + roll_values(
            self._index, self.values, sheet_state(self.rules, points)
        )
        levels = keep_values(last_roll[:, None], LAST_THROW - throw)
        roll = tuple(sorted(dice))
        keeps = {
            tuple(sorted(kept))
            for size in range(len(dice) + 1)
            for kept in combinations(roll, size)
        }
        advice = [
            KeepAdvice(
                tuple(sorted(keep, reverse=True)),
                float(
                    last_roll[KEEP_INDEX[-1][keep]]
                    if keep == roll
                    else levels[len(keep)][KEEP_INDEX[len(keep)][keep], 0]
                ),
            )
            for keep in keeps
        ]
        # Equal values: more dice kept first (fewer to throw), then the higher faces.
        advice.sort(
            key=lambda item: (-item.expected_total, -len(item.keep), [-face for face in item.keep])
        )
        return advice

    def _check(self, state: GameState, dice: object) -> tuple[int, ...]:
        dice = check_request(state, dice)
        if table_options(state.rules) != table_options(self.rules):
            raise RuleError(
                N_("Ce conseil a été calculé pour d'autres règles que celles de la partie.")
            )
        return dice

    @cached_property
    def _index(self) -> SheetIndex:
        # The points of every box for every roll: computed once per table, at the first keep.
        return SheetIndex(self.rules)


def load(rules: Rules, instance_dir: str | os.PathLike) -> Strategy | None:
    """The cached strategy, or None when it has not been built (or its file is damaged)."""
    check_covered(rules)
    try:
        values = np.load(cache_path(rules, instance_dir), allow_pickle=False)
    except (OSError, ValueError, EOFError):
        return None
    if (
        values.shape != table_shape(rules)
        or values.dtype != np.float64
        or np.isnan(values[0, 0, 0])
    ):
        return None
    return Strategy(rules, values)


def load_or_build(
    rules: Rules, instance_dir: str | os.PathLike, progress: Progress | None = None
) -> Strategy:
    """The cached strategy, built and saved first if needed (3 s of one core for the
    classique sheet, 6 s for Yatzy).

    ``progress(done, total)`` follows the build, counted in sheet states.
    """
    strategy = load(rules, instance_dir)
    if strategy is not None:
        return strategy
    values = build_table(rules, progress=progress)
    _save(values, cache_path(rules, instance_dir))
    return Strategy(rules, values)


def _save(values: np.ndarray, path: Path) -> None:
    # Written aside then renamed: a reader (the web app, another build) never sees half a file.
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.stem, suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as file:
            np.save(file, values, allow_pickle=False)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
