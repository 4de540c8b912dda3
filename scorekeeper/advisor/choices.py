"""The active player's turn valued by the chances to win: for each box and final roll, the
chances after it; for some dice after any throw, every option with its chance.

Both the estimate (``winning``) and the exact end game (``endgame``) value a turn so; the
turn itself is then played to win: after each throw the keep with the best chance, after
the last the box with the best chance.
"""

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from scorekeeper.advisor.policy import ROUNDING, Keeps, TurnPolicy
from scorekeeper.advisor.tables import LAST_THROW
from scorekeeper.rules.rule_set import Rules

# A player whose options have the same chance plays for points: a point is worth a
# millionth of a chance (a hundred points, a hundredth of a percent).
POINT_UTILITY = 1e-6
# The chances (win, tie, share) of a player who wins at once (a Generala servida): first
# alone, whatever the totals.
WON_AT_ONCE = (1.0, 0.0, 1.0)


@dataclass(frozen=True)
class Chance:
    """Finishing strictly first, first with others, and the share of first place."""

    win: float
    tie: float
    share: float

    def __post_init__(self) -> None:
        # Plain floats (numpy's print and serialise as other types).
        for name in ("win", "tie", "share"):
            object.__setattr__(self, name, float(getattr(self, name)))

    @property
    def loss(self) -> float:
        return max(0.0, 1.0 - self.win - self.tie)


@dataclass(frozen=True)
class WinOption:
    """One box (after the last throw) or keep (after the 1st or 2nd), with the active
    player's chance to win after it and the final total to expect (the solitaire ranking)."""

    box: str | None
    column: str | None
    keep: tuple[int, ...] | None  # lowest face first, as the Conseil's keeps read
    chance: Chance
    expected_total: float

    def as_dict(self) -> dict:
        """The option as ``scorekeeper advise --to-win`` prints it: the box (or keep) and
        the final total to expect as without ``--to-win``, and the chances."""
        option = (
            {"box": self.box, "column": self.column}
            if self.keep is None
            else {"keep": list(self.keep)}
        )
        return option | {
            "expected_total": round(self.expected_total, 4),
            "win_chance": round(self.chance.share, 4),
            "win": round(self.chance.win, 4),
            "tie": round(self.chance.tie, 4),
        }


class Turn:
    """The active player's turn: for each box and final roll, the chances (win, tie, share)
    and the final total to expect; the options of some dice after any throw."""

    def __init__(
        self,
        rules: Rules,
        boxes: np.ndarray,
        chances: np.ndarray,
        totals: np.ndarray,
        allowed: np.ndarray,
        solitaire: np.ndarray,
    ) -> None:
        self.keeps = keeps = Keeps.of(rules.dice)
        """``chances[f, box, roll, 0]`` (win, tie, share) and ``totals[box, roll, 0]`` (the
        final total to expect) when the box takes the roll, ``allowed[box, roll, 0]``, and
        ``solitaire[box, roll, 0]``: the final total the solitaire strategy expects; the
        boxes are the sheet's ``boxes`` (indices in sheet order). Generala: twice the rolls,
        those of the first throw scored at once (the servida) after the last throw's."""
        self.rules = rules
        self.boxes = [rules.boxes[index] for index in boxes]
        self.chances = chances[..., 0]
        self.allowed = allowed[..., 0]
        self.solitaire = np.where(self.allowed, solitaire[..., 0], -np.inf)
        rolls = keeps.rolls
        self.served = self.allowed.shape[1] > rolls
        totals = np.where(self.allowed, totals[..., 0], 0.0)
        utility = np.where(self.allowed, self.chances[2] + POINT_UTILITY * totals, -np.inf)
        choice = utility.argmax(axis=0)
        rows = np.arange(len(choice))
        # What each final roll is worth when its best box for winning is filled.
        self.row_chances = self.chances[:, choice, rows]  # [f, row]
        self.last_roll = self.row_chances[:, :rolls]
        self.best = utility[choice, rows]
        self.to_win = TurnPolicy(keeps, self.best[:rolls, None], self._first(self.best))
        # « Pour le meilleur score »: the solitaire strategy's final total to expect.
        self.score = self.solitaire.max(axis=0)
        self.for_score = TurnPolicy(keeps, self.score[:rolls, None], self._first(self.score))

    def _first(self, by_row: np.ndarray) -> np.ndarray | None:
        return by_row[self.keeps.rolls :, None] if self.served else None

    def options(self, dice: tuple[int, ...], throw: int, boxes: bool = False) -> list[WinOption]:
        """The keeps of these dice after the 1st or 2nd throw, or the boxes after the last
        (after any throw with ``boxes``: Generala's first scores a servida)."""
        keeps = self.keeps
        roll = keeps.throws.roll_index[tuple(sorted(dice))]
        # The row of these dice scored now: at Generala's first throw, as a servida.
        now = roll + keeps.rolls if self.served and throw == 1 else roll
        if throw == LAST_THROW or boxes:
            return [
                WinOption(
                    box,
                    "free",
                    None,
                    Chance(*self.chances[:, row, now]),
                    float(self.solitaire[row, now]),
                )
                for row, box in enumerate(self.boxes)
                if self.allowed[row, now]
            ]
        distinct = {
            kept
            for size in range(len(dice) + 1)
            for kept in combinations(tuple(sorted(dice)), size)
        }
        options = []
        for keep in distinct:
            if len(keep) == len(dice):  # keeping all the dice is scoring them, now or later
                best = now if self.best[now] >= self.best[roll] - ROUNDING else roll
                options.append(
                    WinOption(
                        None,
                        None,
                        keep,
                        Chance(*self.row_chances[:, best]),
                        float(max(self.score[now], self.score[roll])),
                    )
                )
                continue
            mass = np.zeros((keeps.count, 1))
            mass[keeps.flat_index(keep)] = 1.0
            final = self.to_win.after_keep(mass, throw + 1)[:, 0]
            expected = self.for_score.before[throw + 1][keeps.flat_index(keep), 0]
            options.append(
                WinOption(None, None, keep, Chance(*(self.last_roll @ final)), float(expected))
            )
        return options
