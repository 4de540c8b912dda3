"""What a game's sheets hold: the entries played, the boxes they scored, each player's
columns and totals, and the standings; ``game.GameState`` builds them by replay.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType

from scorekeeper.rules.dice import Dice
from scorekeeper.rules.errors import RuleError
from scorekeeper.rules.options import UPPER_BOXES
from scorekeeper.rules.rule_set import Rules

# Why an entry scored 0 although the player chose the box.
BARRED_BY_DICE = "dice"  # the dice do not make the box's combination
BARRED_BY_VACHE = "vache"  # under the floor another player set on this row
BARRED_BY_PLUS_MINUS = "plus_minus"  # Plus would not end above Moins
BARRED_BY_GENERALA = "generala"  # a Doble Generala before a Generala of 50 (§14)

# The throws of a turn: an entry may say which one its dice came from (Generala's servida).
THROWS = (1, 2, 3)


@dataclass(frozen=True)
class Entry:
    """One turn as played: who, where, and the dice on the table; ``throw``, the throw they
    came from when the player said it (1: Generala's servida), else None; ``throws``, the
    throws the turn used when the player said it (Maxi Yatzy's saved throws), else None:
    the turn's own three."""

    player: int
    column: str
    box: str
    dice: Dice
    throw: int | None = None
    throws: int | None = None


@dataclass(frozen=True)
class Score:
    """What an entry writes: the points in the box, and the +100 (Kniffel: +50) it earns."""

    column: str
    box: str
    dice: Dice
    points: int
    barred_by: str | None = None
    joker: bool = False
    yams_bonus: int = 0
    # The throw the dice came from, as the entry said it (None: not said).
    throw: int | None = None
    # A Generala servida under ``servida_wins``: the game ends, this player first.
    wins: bool = False

    @property
    def served(self) -> bool:
        """Made on the turn's first throw (Generala's servida)."""
        return self.throw == 1

    @property
    def barred(self) -> bool:
        return self.points == 0


@dataclass(frozen=True)
class Column:
    """One column of one player's sheet: its filled boxes and every total derived from them."""

    rules: Rules
    kind: str
    cells: Mapping[str, Score] = field(default_factory=dict)

    def with_score(self, cell: Score) -> "Column":
        return Column(self.rules, self.kind, MappingProxyType({**self.cells, cell.box: cell}))

    # The sums are cached (as open_boxes below): a sheet reads each several times, and a
    # column never changes (with_score makes a new one).
    @cached_property
    def upper(self) -> int:
        return sum(self.cells[box].points for box in UPPER_BOXES if box in self.cells)

    @property
    def upper_bonus(self) -> int:
        return self.rules.upper_bonus if self.upper >= self.rules.upper_bonus_threshold else 0

    @property
    def bonus_missing(self) -> int:
        """Points the upper section still needs for its bonus (0 once reached)."""
        return max(0, self.rules.upper_bonus_threshold - self.upper)

    @property
    def bonus_balance(self) -> int:
        """The filled upper boxes against three of each face (four in Maxi Yatzy): four
        sixes is +6."""
        pace = self.rules.upper_pace
        return sum(self.cells[box].points - pace[box] for box in UPPER_BOXES if box in self.cells)

    @cached_property
    def lower(self) -> int:
        return sum(self.cells[box].points for box in self.rules.lower_boxes if box in self.cells)

    @cached_property
    def yams_bonus(self) -> int:
        return sum(cell.yams_bonus for cell in self.cells.values())

    @cached_property
    def total(self) -> int:
        return self.upper + self.upper_bonus + self.lower + self.yams_bonus

    @property
    def is_full(self) -> bool:
        return len(self.cells) == len(self.rules.boxes)

    @property
    def upper_complete(self) -> bool:
        """Whether every upper box is filled: the upper bonus is then won or lost for good."""
        return all(box in self.cells for box in UPPER_BOXES)

    @property
    def upper_started(self) -> bool:
        """Whether a box of the upper section is filled: its sums show from then on."""
        return any(box in self.cells for box in UPPER_BOXES)

    @property
    def lower_started(self) -> bool:
        return any(box in self.cells for box in self.rules.lower_boxes)

    # Cached: a sheet asks it for every row. The column never changes (with_score makes a
    # new one), and frozen dataclasses still let cached_property write the instance's dict.
    @cached_property
    def open_boxes(self) -> tuple[str, ...]:
        """The boxes this column may take now, before looking at the dice."""
        free = tuple(box for box in self.rules.boxes if box not in self.cells)
        if self.kind == "down":
            return free[:1]
        if self.kind == "up":
            return free[-1:]
        return free


@dataclass(frozen=True)
class Sheet:
    """A player's sheet: one column per column kind of the game."""

    name: str
    columns: Mapping[str, Column]

    @property
    def upper(self) -> int:
        return sum(column.upper for column in self.columns.values())

    @property
    def upper_bonus(self) -> int:
        return sum(column.upper_bonus for column in self.columns.values())

    @cached_property
    def lower(self) -> int:
        return sum(column.lower for column in self.columns.values())

    @cached_property
    def yams_bonus(self) -> int:
        return sum(column.yams_bonus for column in self.columns.values())

    @cached_property
    def total(self) -> int:
        return sum(column.total for column in self.columns.values())

    @property
    def is_full(self) -> bool:
        return all(column.is_full for column in self.columns.values())


@dataclass(frozen=True)
class Standing:
    rank: int
    player: int
    name: str
    total: int


@dataclass(frozen=True)
class Placement:
    """Where dice may go in one column, and why the joker narrows it, when it does."""

    boxes: tuple[str, ...]
    forced: RuleError | None = None


def progress(entry_count: int, player_count: int) -> tuple[int, int]:
    """The round being played (from 1) and the seat whose turn it is after ``entry_count``
    entries: players play in seat order, one box a turn (also for a game not replayed)."""
    return entry_count // player_count + 1, entry_count % player_count
