"""The advice a player gets: which box to fill with the dice on the table, from the table of
expected rests of the game, built once and cached in the instance folder."""

import contextlib
import hashlib
import json
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
from scorekeeper.advisor.turn import KEEP_INDEX, keep_values
from scorekeeper.rules.dice import Dice, parse_dice
from scorekeeper.rules.errors import RuleError
from scorekeeper.rules.game import Column, GameState
from scorekeeper.rules.labels import N_
from scorekeeper.rules.options import Rules

# Bumped when the table's layout or meaning changes, so that old cache files are not read.
TABLE_FORMAT = 1

# The options that only change what a box scores: the table covers each of their values.
_TABLE_OPTIONS = ("joker", "yams_bonus", "three_kind", "four_kind", "full_house")


def is_covered(rules: Rules) -> bool:
    """Whether the exact table exists for these rules: one free column of the classique or
    Yatzy sheet with five dice, and no house rule that looks at more than the player's own
    column."""
    return (rules.preset in ("classique", "yatzy") and rules.columns == ("free",)
            and rules.dice == 5 and not rules.vache and not rules.plus_minus)


def check_covered(rules: Rules) -> None:
    if not is_covered(rules):
        # What the table's state (filled boxes, upper total, Yams at 50) cannot hold: la
        # vache depends on the other players, Plus et Moins on the values written, ordered
        # or several columns on an order and more boxes, sec and six dice on other throws.
        raise RuleError(N_("Le conseil n'existe que pour le Yams classique ou le Yatzy à "
                           "cinq dés, sur une seule colonne libre, sans la vache ni Plus et "
                           "Moins."))


def table_shape(rules: Rules) -> tuple[int, int, int]:
    """Every set of filled boxes, Yams at 50 or not, every capped upper total."""
    return (1 << len(rules.boxes), 2, UPPER_CAP + 1)


def _table_options(rules: Rules) -> dict:
    options = {"format": TABLE_FORMAT, **{name: getattr(rules, name) for name in _TABLE_OPTIONS}}
    if rules.preset != "classique":
        # Named only for the other sheets: the classique tables keep the file names they had.
        options["preset"] = rules.preset
    return options


def check_request(state: GameState, dice: object) -> Dice:
    """The dice read, once the game and the dice are known to have advice (else RuleError)."""
    check_covered(state.rules)
    if state.is_over:
        raise RuleError(N_("La partie est terminée : il n'y a plus rien à conseiller."))
    return parse_dice(dice, state.rules.dice)


THROWS = (1, 2, 3)
LAST_THROW = 3


def check_throw(throw: object) -> int:
    """Which throw of the turn the dice come from (1, 2 or 3; 3 when not given)."""
    if throw is None or throw == "":
        return LAST_THROW
    text = str(throw).strip()
    if text not in {str(number) for number in THROWS}:
        raise RuleError(N_("« {value} » n'est pas un lancer : choisissez 1, 2 ou 3."),
                        value=text[:10])
    return int(text)


CACHE_GLOB = "advisor-*.npy"


def cache_path(rules: Rules, instance_dir: str | os.PathLike) -> Path:
    """The table's file in the instance folder, named by a hash of the options it depends on."""
    options = json.dumps(_table_options(rules), sort_keys=True)
    digest = hashlib.sha256(options.encode()).hexdigest()
    return Path(instance_dir) / CACHE_GLOB.replace("*", digest[:16])


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
            raise RuleError(N_("Le choix des dés à garder se fait après le 1er ou le "
                               "2e lancer."))
        sheet = state.sheets[state.active_player]
        column = sheet.columns["free"]
        points = {box: cell.points for box, cell in column.cells.items()}
        last_roll = sheet.total + roll_values(self._index, self.values,
                                              sheet_state(self.rules, points))
        levels = keep_values(last_roll[:, None], LAST_THROW - throw)
        roll = tuple(sorted(dice))
        keeps = {tuple(sorted(kept)) for size in range(len(dice) + 1)
                 for kept in combinations(roll, size)}
        advice = [KeepAdvice(tuple(sorted(keep, reverse=True)),
                             float(last_roll[KEEP_INDEX[-1][keep]] if keep == roll
                                   else levels[len(keep)][KEEP_INDEX[len(keep)][keep], 0]))
                  for keep in keeps]
        # Equal values: more dice kept first (fewer to throw), then the higher faces.
        advice.sort(key=lambda item: (-item.expected_total, -len(item.keep),
                                      [-face for face in item.keep]))
        return advice

    def _check(self, state: GameState, dice: object) -> tuple[int, ...]:
        dice = check_request(state, dice)
        if _table_options(state.rules) != _table_options(self.rules):
            raise RuleError(N_("Ce conseil a été calculé pour d'autres règles que celles "
                               "de la partie."))
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
    if (values.shape != table_shape(rules) or values.dtype != np.float64
            or np.isnan(values[0, 0, 0])):
        return None
    return Strategy(rules, values)


def load_or_build(rules: Rules, instance_dir: str | os.PathLike,
                  progress: Progress | None = None) -> Strategy:
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
