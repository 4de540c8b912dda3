"""The advice a player gets for any rule set: which box to fill with the dice on the table, or
which dice to keep before throwing again, from the exact tables of the game's columns, built
once and cached in the instance folder.

- **One column** (free, sec, down or up): its exact table, the optimal solitaire strategy.
  With la vache and other players, the turn being played counts every row's floor exactly
  (a box under it scores 0); later turns are valued by the solitaire table.
- **Several columns** (Triple, Triple with Sec, any list): a policy. A sheet is valued as the
  sum of its columns' exact values (each column's rest of the game as if played alone), and
  the turn is played exactly against that sum: its column is chosen on the dice, and the
  dice of a first throw may go to Sec. Committing each turn to a column before throwing is
  worth exactly that sum; choosing after the dice can only do better (``simulation``
  measures how much, ``bench/advisor.py`` prints it).
- **Generala**: its one column's exact table, whose first throw may be scored at once with
  the servida's points; the dice of a first throw are advised with them. A Generala
  servida is valued as its 50 and the game going on (docs/advisor.md says why).
"""

import contextlib
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

import numpy as np

from scorekeeper.advisor.solver import Progress, SheetIndex, build_table, roll_values
from scorekeeper.advisor.tables import (
    LAST_THROW,
    ONE_THROW_COLUMNS,
    THROWS,
    cache_path,
    check_request,
    table_options,
    turn_throws,
)
from scorekeeper.rules.errors import RuleError
from scorekeeper.rules.game import GameState
from scorekeeper.rules.labels import N_
from scorekeeper.rules.rule_set import Rules
from scorekeeper.rules.sheet import Column


@dataclass(frozen=True)
class Advice:
    """One box the active player may choose, and the final total to expect after it."""

    box: str
    column: str
    expected_total: float
    points: int  # what the box scores now: 0 when barred


@dataclass(frozen=True)
class KeepAdvice:
    """Dice to set aside before the next throw (from none to all of them: all is scoring them
    now), and the final total to expect after it."""

    keep: tuple[int, ...]  # lowest face first, as the dice read: « garder 3 3 3 6 »
    expected_total: float
    positions: tuple[int, ...]  # which of the dice, in the order typed (from 0), are kept


class Strategy:
    """The advice for one set of rules, from the exact table of each of its columns."""

    def __init__(
        self,
        rules: Rules,
        tables: Mapping[str, np.ndarray],
        sheets: Mapping[str, SheetIndex] | None = None,
    ) -> None:
        self.rules = rules
        self.tables = {kind: tables[kind] for kind in rules.columns}
        self.sheets = {
            kind: sheets[kind] if sheets else SheetIndex(rules, kind) for kind in rules.columns
        }

    @property
    def start_value(self) -> float:
        """The expected final score of a fresh sheet: under optimal play for one column; for
        several, the sum of their values, what playing them turn about gives (the advice
        does better)."""
        return sum(self._rest(kind, {}) for kind in self.rules.columns)

    def expected_rest(self, column: Column) -> float:
        """The points still to come on this column played alone under optimal play."""
        return self._rest(column.kind, {box: cell.points for box, cell in column.cells.items()})

    def _rest(self, kind: str, points: Mapping[str, int]) -> float:
        return self.sheets[kind].rest(self.tables[kind], points)

    def advise(self, state: GameState, dice: object, throw: int = LAST_THROW) -> list[Advice]:
        """Every box the active player may fill with ``dice`` of this ``throw``, best first
        (a Sec column takes only the dice of the first throw).

        ``expected_total`` is the player's total after this box (its points, the upper bonus
        and the +100 as the rules engine scores them) plus the expected rest of the game: of
        this column from its table, of the others from theirs.
        """
        dice = self._check(state, dice)
        player = state.active_player
        sheet = state.sheets[player]
        first_throw = self._first_throw(state, throw)
        rests = {kind: self.expected_rest(column) for kind, column in sheet.columns.items()}
        # The player's total and the other columns' rests, apart from each column's own.
        besides = {
            kind: sheet.total
            - column.total
            + sum(rest for other, rest in rests.items() if other != kind)
            for kind, column in sheet.columns.items()
        }
        advice = []
        # Generala: the dice of the first throw score as a servida.
        throw = THROWS[0] if first_throw and self.rules.counts_throws else None
        for (kind, box), cell in state.preview(dice, player, throw).items():
            if kind in ONE_THROW_COLUMNS and not first_throw:
                continue
            after = sheet.columns[kind].with_score(cell)
            expected = besides[kind] + after.total + self.expected_rest(after)
            advice.append(Advice(box, kind, expected, cell.points))
        # A stable sort: equal values keep the sheet order.
        advice.sort(key=lambda item: -item.expected_total)
        return advice

    def advise_keeps(self, state: GameState, dice: object, throw: int) -> list[KeepAdvice]:
        """Every distinct keep among ``dice`` after the first or second throw, best first.

        Computed for this one state: what each final roll is worth (the best box and the rest
        of the game, from the tables, la vache's floors applied), then the throws left
        averaged and maximised as the solver does. Keeping all the dice means scoring the best
        box now (Sec included after the first throw); the solver's keep of all may still
        throw again next time, but that never beats throwing the same dice now, so the best
        keep is worth exactly the solver's value of these dice.
        """
        dice = self._check(state, dice)
        if throw not in THROWS[:-1]:
            raise RuleError(N_("Le choix des dés à garder se fait après le 1er ou le 2e lancer."))
        base, last_roll, first_only = self._roll_worth(state)
        if not self._first_throw(state, throw):
            first_only = None
        throws = self.sheets[self.rules.columns[0]].throws
        now = (
            last_roll
            if first_only is None
            else first_only
            if last_roll is None
            else np.maximum(last_roll, first_only)
        )
        levels = (
            None
            if last_roll is None
            else throws.keep_values(last_roll[:, None], LAST_THROW - throw)
        )
        roll = tuple(sorted(dice))
        advice = []
        for keep in distinct_keeps(roll):
            if keep == roll:
                value = now[throws.roll_index[roll]]
            elif levels is None:
                continue  # the dice may only be scored now
            else:
                value = levels[len(keep)][throws.keep_index[len(keep)][keep], 0]
            advice.append(KeepAdvice(keep, float(base + value), _positions(dice, keep)))
        return ranked_keeps(advice)

    def _roll_worth(self, state: GameState) -> tuple[float, np.ndarray | None, np.ndarray | None]:
        """The active player's total plus the expected rest of each column, and what each
        final roll adds to it: scored after three throws (None when no column takes them),
        and after the first throw in a Sec column (None when none is open)."""
        player = state.active_player
        sheet = state.sheets[player]
        base = float(sheet.total)
        last_roll = first_only = None
        for kind, column in sheet.columns.items():
            rest = self.expected_rest(column)
            base += rest
            if column.is_full:
                continue
            index = self.sheets[kind]
            points = {box: cell.points for box, cell in column.cells.items()}
            floors = None
            if self.rules.vache:
                floors = np.array(
                    [[state.vache_floor(player, kind, box) or 0] for box in self.rules.boxes],
                    dtype=float,
                )
            worth = roll_values(index, self.tables[kind], index.state(points), floors)[:, 0]
            worth -= rest
            if kind in ONE_THROW_COLUMNS:
                first_only = worth if first_only is None else np.maximum(first_only, worth)
            else:
                last_roll = worth if last_roll is None else np.maximum(last_roll, worth)
            if index.served:
                # Generala: the first throw's dice scored at once, with the servida's points.
                served = roll_values(index, self.tables[kind], index.state(points), served=True)
                first_only = served[:, 0] - rest
        return base, last_roll, first_only

    @staticmethod
    def _first_throw(state: GameState, throw: int) -> bool:
        """Whether the dice are those of the turn's first throw: said so, or the only throw
        of a turn left with Sec columns alone."""
        return throw == THROWS[0] or turn_throws(state) == THROWS[0]

    def _check(self, state: GameState, dice: object) -> tuple[int, ...]:
        dice = check_request(state, dice)
        if state.rules.columns != self.rules.columns or table_options(state.rules) != table_options(
            self.rules
        ):
            raise RuleError(
                N_("Ce conseil a été calculé pour d'autres règles que celles de la partie.")
            )
        return dice


def distinct_keeps(roll: tuple[int, ...]) -> set[tuple[int, ...]]:
    """Every distinct keep of a sorted roll, from none of its dice to all of them."""
    return {
        tuple(sorted(kept)) for size in range(len(roll) + 1) for kept in combinations(roll, size)
    }


def ranked_keeps(advice: list[KeepAdvice]) -> list[KeepAdvice]:
    """The keeps best first; among equal values more dice kept first (fewer to throw),
    then the higher faces."""
    return sorted(
        advice,
        key=lambda item: (
            -item.expected_total,
            -len(item.keep),
            sorted(-face for face in item.keep),
        ),
    )


def _positions(dice: tuple[int, ...], keep: tuple[int, ...]) -> tuple[int, ...]:
    """Where the kept dice are among the dice as typed: the first ones of each face."""
    wanted = list(keep)
    positions = []
    for position, face in enumerate(dice):
        if face in wanted:
            wanted.remove(face)
            positions.append(position)
    return tuple(positions)


def load(rules: Rules, instance_dir: str | os.PathLike) -> Strategy | None:
    """The cached strategy, or None when a table of its columns has not been built (or its
    file is damaged). The tables are mapped from their files, not read: the processes of a
    server share them, and only the pages the advice reads come into memory."""
    if not all(cache_path(rules, instance_dir, kind).exists() for kind in rules.columns):
        return None
    sheets = {kind: SheetIndex(rules, kind) for kind in rules.columns}
    tables = {}
    for kind, sheet in sheets.items():
        tables[kind] = _load_table(cache_path(rules, instance_dir, kind), sheet)
        if tables[kind] is None:
            return None
    return Strategy(rules, tables, sheets)


def _load_table(path: Path, sheet: SheetIndex) -> np.ndarray | None:
    try:
        # A plain array over the mapped file: numpy's memmap subclass costs at every lookup.
        values = np.asarray(np.load(path, mmap_mode="r", allow_pickle=False))
    except (OSError, ValueError, EOFError):
        return None
    if (
        values.shape != (sheet.size,)
        or values.dtype != np.float64
        or np.isnan(sheet.value(values, sheet.state({}))[0])
    ):
        return None
    return values


def load_or_build(
    rules: Rules, instance_dir: str | os.PathLike, progress: Progress | None = None
) -> Strategy:
    """The cached strategy, its missing tables built and saved first (3 s of one core for the
    classique sheet, a fraction of a second for an ordered column, minutes with Plus et
    Moins).

    ``progress(done, total)`` follows the builds, counted in sheet states.
    """
    strategy = load(rules, instance_dir)
    if strategy is not None:
        return strategy
    sheets = {kind: SheetIndex(rules, kind) for kind in rules.columns}
    tables = {
        kind: _load_table(cache_path(rules, instance_dir, kind), sheet)
        for kind, sheet in sheets.items()
    }
    missing = [kind for kind, values in tables.items() if values is None]
    total = sum(sheets[kind].to_solve for kind in missing)
    done = 0
    for kind in missing:

        def part(solved: int, _total: int, before: int = done) -> None:
            progress(before + solved, total)

        tables[kind] = build_table(
            rules, kind, progress=part if progress else None, sheet=sheets[kind]
        )
        save_array(tables[kind], cache_path(rules, instance_dir, kind))
        done += sheets[kind].to_solve
    return Strategy(rules, tables, sheets)


def save_array(values: np.ndarray, path: Path) -> None:
    """`values` saved at `path`, for readers to map."""
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
