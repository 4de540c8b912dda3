"""The end of a game played to win, solved exactly.

When every player has at most two boxes left, the rest of the game is a small game tree:
each player in turn, knowing every sheet, plays the keeps and the box that give them the
best share of first place (the last to play knows the totals to beat; a player whose share
is the same either way plays for points, a point counting ``POINT_UTILITY``). Solved
backward, turn by turn, every position of a turn at once.

A *position* before a turn holds, for each player still to play, their sheet state and
total; for the players done, only the best total and how many share it (nothing else of
theirs changes anyone's choice); under la vache, the points written in the rows that set
someone's floor. Totals are kept relative to the lowest that counts: positions that differ
by a constant are one. A position's *value* holds, for each player still to play, their
chances (win, tie, share) and expected final total, and the chances of a player done with
the best total.
"""

from __future__ import annotations

import numpy as np

from scorekeeper.advisor.choices import POINT_UTILITY, WON_AT_ONCE, Chance, Turn
from scorekeeper.advisor.futures import Seat, SheetModel, seats
from scorekeeper.advisor.policy import TurnPolicy
from scorekeeper.rules.game import GameState
from scorekeeper.rules.rule_set import Rules
from scorekeeper.rules.scoring import is_variable

BOXES_LEFT = 2
# Players with two boxes left whose intermediate sheets multiply the positions: beyond this
# many the end game is estimated (docs/advisor-winning.md: the time it would take).
TWO_BOX_PLAYERS = 2
# Positions an end game may list, all its turns together, before it is estimated instead: a
# position costs about a millisecond on a loaded core (docs/advisor-winning.md).
MAX_POSITIONS = 3000
SEAT_FIELDS = 4  # mask, yams50, upper (settled), total
CHANCES = 3  # win, tie, share
PLAYER_VALUES = CHANCES + 1  # and the expected final total
NONE_DONE = -(1 << 30)  # the best total of the players done, while there is none
GAIN_RANGE = 1 << 10  # more than one turn can add (50, 35 and 100 at most)


def fits(every: list[Seat]) -> bool:
    """Whether the end game of these seats is solved exactly: every player at most two
    boxes from the end, and at most two of them at two."""
    left = [seat.boxes_left for seat in every]
    return (
        len(every) > 1 and 0 < max(left) <= BOXES_LEFT and left.count(BOXES_LEFT) <= TWO_BOX_PLAYERS
    )


class EndGame:
    """The exact end game from a position of ``state`` before the active player's turn."""

    def __init__(self, rules: Rules, values: np.ndarray, state: GameState) -> None:
        """``values``: the solitaire table of ``rules``' free column (WinChances.values)."""
        self.rules = rules
        self.seats = seats(state)
        self.values_table = values
        self.model = SheetModel(self.rules, values, [0] * len(self.rules.boxes))
        self.order = _turn_order([seat.boxes_left for seat in self.seats], state.active_player)
        # The players still to play before each turn, in seat order.
        self.playing = [sorted(set(self.order[turn:])) for turn in range(len(self.order) + 1)]
        self.written = self._contested_rows()
        self._solve()

    # -- what the solution answers ----------------------------------------------------------

    def root_chances(self) -> list[Chance]:
        """Each player's chances before the active player's turn."""
        value = self.values[0][0]
        best, sharing = self.tables[0][0, -2 - len(self.written) :][:2]
        chances = []
        for player, seat in enumerate(self.seats):
            if player in self.playing[0]:
                start = self._player_column(0, player)
                chances.append(Chance(*value[start : start + CHANCES]))
            elif sharing and seat.total - self.refs[0] == best:
                chances.append(Chance(*value[-CHANCES:]))
            else:
                chances.append(Chance(0.0, 0.0, 0.0))
        return chances

    def root_turn(self) -> Turn:
        """The active player's turn at the root: for each box and final roll, their chances
        and the final total to expect when everyone plays to win from there."""
        step = self.steps[0]
        player = self.order[0]
        start = self._player_column(0, player)
        seat = self.seats[player]
        outcomes = SheetModel(self.rules, self.values_table, seat.floors).outcomes(
            *(np.array([part]) for part in seat.state), boxes=step.boxes
        )
        vectors = step.vectors
        chances = np.moveaxis(vectors[..., start : start + CHANCES], -1, 0)
        totals = vectors[..., start + CHANCES] + self.refs[0]
        return Turn(
            self.rules, step.boxes, chances, totals, step.allowed, seat.total + outcomes.solitaire
        )

    # -- the layout of positions and values -------------------------------------------------

    def _contested_rows(self) -> list[tuple[int, int]]:
        """The (player, box) whose points set another player's floor during the end game:
        a variable box open for that player and for another one (la vache)."""
        if not self.rules.vache:
            return []
        open_boxes = [
            {index for index in range(len(self.rules.boxes)) if not seat.state[0] >> index & 1}
            for seat in self.seats
        ]
        return [
            (player, box)
            for player, boxes in enumerate(open_boxes)
            for box in sorted(boxes)
            if is_variable(self.rules, self.rules.boxes[box])
            and any(box in other for index, other in enumerate(open_boxes) if index != player)
        ]

    def _player_field(self, turn: int, player: int) -> int:
        return SEAT_FIELDS * self.playing[turn].index(player)

    def _player_column(self, turn: int, player: int) -> int:
        return PLAYER_VALUES * self.playing[turn].index(player)

    def _root_table(self) -> tuple[np.ndarray, int]:
        """The root position, and the total its totals are relative to."""
        done = [
            seat.total for player, seat in enumerate(self.seats) if player not in self.playing[0]
        ]
        best = max(done, default=NONE_DONE)
        playing = [self.seats[player] for player in self.playing[0]]
        ref = min([seat.total for seat in playing] + ([best] if done else []))
        row = []
        for seat in playing:
            mask, yams50, upper = seat.state
            settled = int(self.model.settled_upper(np.array([mask]), np.array([upper]))[0])
            row += [mask, yams50, settled, seat.total - ref]
        row += [best - ref if done else NONE_DONE, done.count(best) if done else 0]
        row += [0] * len(self.written)  # the end game has written nothing yet
        return np.array([row], dtype=np.int64), ref

    # -- the solution -----------------------------------------------------------------------

    def _solve(self) -> None:
        table, ref = self._root_table()
        self.tables, self.refs, self.steps = [table], [ref], []
        for turn in range(len(self.order)):
            step = _Step(self, turn, self.tables[turn])
            self.steps.append(step)
            self.tables.append(step.children_table)
            if sum(len(table) for table in self.tables) > MAX_POSITIONS:
                raise TooLarge(len(self.order))
        # The value of the final positions: the players done with the best total share it.
        final = self.tables[-1]
        sharing = final[:, -1 - len(self.written)].astype(float)
        values = np.stack([sharing == 1, sharing > 1, 1 / sharing], axis=1).astype(float)
        self.values = [None] * len(self.order) + [values]
        for turn in range(len(self.order) - 1, -1, -1):
            self.values[turn] = self.steps[turn].value(self.values[turn + 1])


class _Step:
    """One turn of the end game from every position before it: where each box and roll
    leads, and (``value``) what each position is worth when its player plays to win."""

    def __init__(self, game: EndGame, turn: int, table: np.ndarray) -> None:
        self.game = game
        self.turn = turn
        self.player = player = game.order[turn]
        self.finishes = player not in game.playing[turn + 1]
        field = game._player_field(turn, player)
        masks, yams50, uppers, totals = (table[:, field + offset] for offset in range(4))
        written = table[:, table.shape[1] - len(game.written) :]
        floors = self._floors(written)
        seat = game.seats[player]
        open_boxes = [box for box in range(len(game.rules.boxes)) if not seat.state[0] >> box & 1]
        outcomes = game.model.outcomes(masks, yams50, uppers, floors, open_boxes)
        self.boxes = outcomes.boxes
        self.allowed = outcomes.allowed
        # Rolls that fill the same box with the same points lead to the same position (a
        # Generala servida that wins at once, to the end of the game).
        row, roll, position = np.nonzero(outcomes.allowed)
        box = self.boxes[row]
        points = outcomes.points[row, roll, position].astype(np.int64)
        gain = outcomes.gain[row, roll, position].astype(np.int64)
        won = outcomes.wins[row, roll, position]
        # One integer per (position, box, points, gain, won): a sort of integers, not rows.
        key = ((position * len(game.rules.boxes) + box) * GAIN_RANGE + points) * GAIN_RANGE + gain
        _, first, self.outcome_of = np.unique(key * 2 + won, return_index=True, return_inverse=True)
        unique = np.stack([position[first], box[first], points[first], gain[first]], axis=1)
        self.won = won[first]
        self.outcome_of = self.outcome_of.reshape(-1)
        self.where = (row, roll, position)
        at = (row[first], roll[first], position[first])
        self.position = unique[:, 0]
        self.new_total = totals[self.position] + unique[:, 3]
        rows = table[self.position].copy()
        # The player's sheet after the box.
        rows[:, field] = outcomes.masks[at]
        rows[:, field + 1] = outcomes.yams50[at]
        rows[:, field + 2] = game.model.settled_upper(outcomes.masks[at], outcomes.uppers[at])
        rows[:, field + 3] = self.new_total
        for column, (writer, row_box) in enumerate(game.written):
            if writer == player:
                here = unique[:, 1] == row_box
                rows[here, table.shape[1] - len(game.written) + column] = unique[here, 2]
        best_column = SEAT_FIELDS * len(game.playing[turn])
        best, sharing = rows[:, best_column].copy(), rows[:, best_column + 1].copy()
        if self.finishes:
            # The player is done: only the best total (and how many share it) remains.
            higher, equal = self.new_total > best, self.new_total == best
            best = np.where(higher, self.new_total, best)
            sharing = np.where(higher, 1, sharing + equal)
            rows = np.delete(rows, np.s_[field : field + SEAT_FIELDS], axis=1)
            best_column -= SEAT_FIELDS
        self.old_best = table[self.position, SEAT_FIELDS * len(game.playing[turn])]
        self.best = best
        # Totals relative to the lowest that still counts.
        totals_after = rows[:, 3:best_column:SEAT_FIELDS]
        candidates = np.concatenate(
            [totals_after, np.where(sharing > 0, best, np.iinfo(np.int64).max)[:, None]], axis=1
        )
        self.shift = candidates.min(axis=1)
        rows[:, 3:best_column:SEAT_FIELDS] -= self.shift[:, None]
        rows[:, best_column] = np.where(sharing > 0, best - self.shift, NONE_DONE)
        rows[:, best_column + 1] = sharing
        # A game won at once has no position after it: its value is known (_won_vectors).
        self.children_table, child = np.unique(rows[~self.won], axis=0, return_inverse=True)
        self.child = np.zeros(len(rows), dtype=np.int64)
        self.child[~self.won] = child.reshape(-1)
        self.table = table
        self.positions = len(table)

    def _floors(self, written: np.ndarray) -> np.ndarray:
        """The player's floor on each box, per position: the one read from the game, raised
        by what the others wrote during the end game (la vache)."""
        game = self.game
        base = np.array(game.seats[self.player].floors)
        floors = np.repeat(base[:, None], len(written), axis=1)
        for column, (writer, box) in enumerate(game.written):
            if writer != self.player:
                floors[box] = np.maximum(floors[box], written[:, column])
        return floors

    def value(self, below: np.ndarray) -> np.ndarray:
        """Each position's value, from the values of the positions after the turn."""
        game, turn, player = self.game, self.turn, self.player
        vectors = self._outcome_vectors(below)
        own = game._player_column(turn, player)
        utility = vectors[:, own + CHANCES - 1] + POINT_UTILITY * vectors[:, own + CHANCES]
        boxes, rolls = self.allowed.shape[:2]
        by_roll = np.full((boxes, rolls, self.positions), -np.inf)
        by_roll[self.where] = utility[self.outcome_of]
        outcome = np.full((boxes, rolls, self.positions), -1)
        outcome[self.where] = self.outcome_of
        choice = by_roll.argmax(axis=0)
        rows = np.arange(rolls)[:, None]
        positions = np.arange(self.positions)[None, :]
        last_roll = by_roll[choice, rows, positions]
        chosen = outcome[choice, rows, positions]
        if turn == 0:
            self.vectors = np.full(self.allowed.shape + (vectors.shape[1],), np.nan)
            self.vectors[self.where] = vectors[self.outcome_of]
        # Generala: the rolls of the first throw scored at once follow the last throw's.
        last = game.model.keeps.rolls
        first = last_roll[last:] if game.model.first_throw else None
        final = TurnPolicy(game.model.keeps, last_roll[:last], first).final_rolls()
        # Each outcome's chance, then each position's value: its outcomes' mixed.
        mass = np.bincount(chosen.ravel(), weights=final.ravel(), minlength=len(vectors))
        value = np.zeros((self.positions, vectors.shape[1]))
        np.add.at(value, self.position, mass[:, None] * vectors)
        return value

    def _outcome_vectors(self, below: np.ndarray) -> np.ndarray:
        """Each outcome's value in the layout of the positions before the turn."""
        game, turn = self.game, self.turn
        after = below[self.child]
        columns = [None] * (PLAYER_VALUES * len(game.playing[turn]) + CHANCES)
        vectors = np.zeros((len(self.child), len(columns)))
        for player in game.playing[turn]:
            start = game._player_column(turn, player)
            if player in game.playing[turn + 1]:
                source = game._player_column(turn + 1, player)
                vectors[:, start : start + CHANCES] = after[:, source : source + CHANCES]
                vectors[:, start + CHANCES] = after[:, source + CHANCES] + self.shift
            else:  # the player of this turn, done: first with the best total, or not
                first = (self.new_total == self.best)[:, None]
                vectors[:, start : start + CHANCES] = np.where(first, after[:, -CHANCES:], 0)
                vectors[:, start + CHANCES] = self.new_total
        # The players already done with the best total stay first unless it was beaten.
        kept = (self.best == self.old_best)[:, None]
        vectors[:, -CHANCES:] = np.where(kept, after[:, -CHANCES:], 0)
        if self.won.any():
            vectors[self.won] = self._won_vectors()
        return vectors

    def _won_vectors(self) -> np.ndarray:
        """The value of each outcome that wins at once: its player first alone, every
        player's final total the one they hold (totals relative as the position's)."""
        game, turn = self.game, self.turn
        positions = self.position[self.won]
        vectors = np.zeros((len(positions), PLAYER_VALUES * len(game.playing[turn]) + CHANCES))
        for player in game.playing[turn]:
            start = game._player_column(turn, player)
            if player == self.player:
                vectors[:, start : start + CHANCES] = WON_AT_ONCE
                vectors[:, start + CHANCES] = self.new_total[self.won]
            else:
                field = game._player_field(turn, player)
                vectors[:, start + CHANCES] = self.table[positions, field + 3]
        return vectors


class TooLarge(Exception):
    """The end game lists more positions than ``MAX_POSITIONS``: estimate it instead."""


def _turn_order(boxes_left: list[int], active: int) -> list[int]:
    """Who plays each remaining turn: in seat order from the active player, each player
    once a round until their sheet is full."""
    left = list(boxes_left)
    order, player = [], active
    while any(left):
        if left[player]:
            order.append(player)
            left[player] -= 1
        player = (player + 1) % len(left)
    return order
