"""What is still to come on one player's sheet: what each box gives for each final roll, and
the distribution of the points still to come when the player keeps to the solitaire strategy.

A sheet state is the solver's ``(mask, yams50, upper)``. What a box scores may also depend on
the other players (la vache): a player's *floors* (the least each box may take, 0 for none)
are read from the game and held fixed for the rest of the game, as the Conseil's own advice
does for the turn at hand; the solitaire table values what comes after.
"""

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from scorekeeper.advisor.policy import Keeps, TurnPolicy
from scorekeeper.advisor.solver import UPPER_CAP, YAMS_BONUS, YAMS_POINTS, SheetIndex, States
from scorekeeper.rules.game import GameState
from scorekeeper.rules.rule_set import Rules
from scorekeeper.rules.scoring import is_variable

State = tuple[int, int, int]
# States whose distributions are solved together: the turn's arrays stay small.
CHUNK = 256
# Sheet indices kept (one per rule set in play; Yatzy's holds tens of MB).
KEPT_INDICES = 8


@dataclass(frozen=True)
class Seat:
    """One player's sheet as the chances to win see it: its state, its total, its floors."""

    state: State
    total: int
    floors: tuple[int, ...]  # per box in sheet order; 0: no floor
    boxes_left: int


def seats(state: GameState) -> list[Seat]:
    """Every player's seat in the game, in seat order (one free column, as the tables)."""
    rules = state.rules
    index = sheet_index(rules)
    result = []
    for player, sheet in enumerate(state.sheets):
        column = sheet.columns["free"]
        points = {box: cell.points for box, cell in column.cells.items()}
        mask, yams50, upper, _pm = index.state(points)
        floors = tuple(state.vache_floor(player, "free", box) or 0 for box in rules.boxes)
        result.append(
            Seat(
                (int(mask[0]), int(yams50[0]), int(upper[0])),
                sheet.total,
                floors,
                len(rules.boxes) - len(points),
            )
        )
    return result


def places(index: SheetIndex, masks, yams50, uppers) -> np.ndarray:
    """Where the table keeps the value of each (mask, yams50, upper)."""
    return index.place(States(masks, yams50, uppers, 0))


class Outcomes:
    """What each box gives for each roll, in a batch of states of one sheet with fixed
    floors: whether it may take the roll, the points it adds to the total (bonuses
    included), the state after, and the solitaire value (those points and the rest of the
    game from the table). Arrays are ``[box, roll, state]``, for every box of the sheet or
    only ``boxes`` (sheet indices, in ``self.boxes``: the boxes still open somewhere).

    Generala (``model.first_throw``): the rolls are ``2 * rolls`` rows, those scored after
    the last throw then those of the first scored at once with the servida's points; ``wins``
    marks a Generala servida that ends the game with its player first (``servida_wins``)."""

    def __init__(
        self,
        model: "SheetModel",
        masks: np.ndarray,
        yams50: np.ndarray,
        uppers: np.ndarray,
        floors: np.ndarray | None = None,
        boxes: Iterable[int] | None = None,
    ) -> None:
        index, rules = model.index, model.rules
        rows = np.arange(len(index.boxes)) if boxes is None else np.array(list(boxes))
        shape = (len(rows), model.rolls, len(masks))
        bits = index.bits[rows]
        free = (masks[None, :] & bits[:, None]) == 0  # [box, state]
        points = np.broadcast_to(model.points[rows, :, None], shape).copy()
        if index.double is not None:
            # The Doble Generala scores only once the Generala box holds 50: before, the
            # dice bar it (written 0).
            double = np.nonzero(rows == index.double)[0]
            points[double] = np.where(yams50 == 1, points[double], 0)
        allowed = np.broadcast_to(free[:, None, :], shape).copy()
        if rules.has_joker:
            # A Yams once the Yams box is filled: the joker decides the boxes and the points.
            joker = np.nonzero(masks & index.yams_bit)[0]
            if len(joker):
                choices = np.stack([model.joker(int(mask)) for mask in masks[joker]])
                choices = choices[:, :, rows].transpose(2, 1, 0)  # [box, face, state]
                where = (slice(None), index.yams_rolls[:, None], joker[None, :])
                allowed[where] = np.isfinite(choices)
                points[where] = np.where(np.isfinite(choices), choices, 0)
        points = model.barred(points, floors, rows)
        gain = points.copy()
        after_upper = np.broadcast_to(uppers, shape).copy()
        upper = np.nonzero(np.isin(rows, index.upper))[0]
        raised = np.minimum(UPPER_CAP, uppers + points[upper])
        crossing = (uppers < UPPER_CAP) & (raised >= UPPER_CAP)
        gain[upper] += np.where(crossing, rules.upper_bonus, 0)
        after_upper[upper] = raised
        after_yams50 = np.broadcast_to(yams50, shape).copy()
        fifty = np.nonzero(rows == index.position.get(index.fifty_box, -1))[0]
        # The Yams box at 50 (the +100 to come), Generala's (its Doble to come).
        after_yams50[fifty] = np.maximum(yams50, points[fifty] == YAMS_POINTS)
        self.wins = np.zeros(shape, dtype=bool)
        if model.instant and index.fifty_bit:
            # A Generala servida in a free Generala box: the game ends, its player first.
            first = model.keeps.rolls + index.yams_rolls
            self.wins[fifty[:, None], first[None, :], :] = free[fifty][:, None, :]
        if rules.has_yams_bonus:
            # A Yams when the Yams box holds 50 earns the +100, wherever it goes.
            gain[:, index.yams_rolls, :] += YAMS_BONUS * yams50
        if rules.has_kniffel_bonus:
            # Kniffel's +50: a Yams in its face's upper box, once the Yams box is filled.
            yams_filled = masks & index.yams_bit != 0
            gain += np.where(yams_filled, index.kniffel_points[:, rows].T[:, :, None], 0)
        self.model = model
        self.boxes = rows
        self.allowed = allowed
        self.points = points  # written in the box
        self.gain = gain  # added to the total
        self.masks = np.broadcast_to(masks[None, None, :] | bits[:, None, None], shape)
        self.yams50 = after_yams50
        self.uppers = after_upper

    @cached_property
    def after(self) -> np.ndarray:
        """The table's place of the state after each box."""
        return places(self.model.index, self.masks, self.yams50, self.uppers)

    @cached_property
    def solitaire(self) -> np.ndarray:
        """What the solitaire strategy values each box at: its points and the rest of the
        game from the table; -inf where the box may not take the roll."""
        return np.where(self.allowed, self.gain + self.model.flat[self.after], -np.inf)

    def solitaire_choice(self) -> np.ndarray:
        """The box the solitaire strategy fills with each roll, per state (first in sheet
        order among equals, as the advice ranks them)."""
        return self.solitaire.argmax(axis=0)

    def solitaire_turn(self, instant: bool = True) -> "SolitaireTurn":
        return SolitaireTurn(self, instant)


class SolitaireTurn:
    """The solitaire strategy's turn in each state of some ``Outcomes``: its keeps
    (``policy``), the chance of each final roll, and what the box it then fills gives.

    ``instant``: a Generala servida that wins is always taken (``won``: the rolls where the
    game ends); without, the turn is the table's own, which values it as 50 and the game
    going on (the spreads, moments of the table's game)."""

    def __init__(self, outcomes: Outcomes, instant: bool = True) -> None:
        model = outcomes.model
        self.choice = outcomes.solitaire_choice()  # [roll, state]
        worth = self.picked(outcomes.solitaire)
        rolls = model.keeps.rolls
        self.won = np.zeros(worth.shape, dtype=bool)
        if instant and outcomes.wins.any():
            winning = outcomes.wins.any(axis=0)
            self.choice = np.where(winning, outcomes.wins.argmax(axis=0), self.choice)
            worth = np.where(winning, np.inf, self.picked(outcomes.solitaire))
            self.won = winning
        first = worth[rolls:] if model.first_throw else None
        self.policy = TurnPolicy(model.keeps, worth[:rolls], first)

    def picked(self, array: np.ndarray) -> np.ndarray:
        """``array[box, roll, state]`` at the box chosen for each roll: ``[roll, state]``."""
        return np.take_along_axis(array, self.choice[None], axis=0)[0]

    @cached_property
    def final_rolls(self) -> np.ndarray:
        return self.policy.final_rolls()


class SheetModel:
    """One sheet's rules, table and floors: the outcomes of a turn in any of its states."""

    def __init__(self, rules: Rules, values: np.ndarray, floors: Iterable[int]) -> None:
        self.rules = rules
        self.flat = values
        self.index = sheet_index(rules)
        self.keeps = Keeps.of(rules.dice)
        self.floors = np.array(tuple(floors))
        self.points = np.array([self.index.points[box] for box in self.index.boxes])
        # Generala: a turn may end on its first throw, scored with the servida's points (the
        # same points without ``servida``: a Generala servida may still win at once).
        self.first_throw = rules.counts_throws
        self.instant = rules.is_generala and rules.servida_wins
        self.rolls = self.keeps.rolls * (2 if self.first_throw else 1)
        if self.first_throw:
            served = [self.index.served_points[box] for box in self.index.boxes]
            self.points = np.concatenate([self.points, np.array(served)], axis=1)
        self._joker: dict[int, np.ndarray] = {}

    def joker(self, mask: int) -> np.ndarray:
        """``[yams roll, box]``: the joker's points of each Yams roll on a sheet whose Yams
        box is filled; -inf where it may not go."""
        if mask not in self._joker:
            self._joker[mask] = self.index.joker_points([mask])[0]
        return self._joker[mask]

    def state_at(self, place: int) -> State:
        """A state whose value the table keeps at ``place`` (states sharing a place, once
        the upper total is settled, have the same future)."""
        states = _states_by_place(self.rules)
        return int(states.mask[place]), int(states.yams50[place]), int(states.upper[place])

    @cached_property
    def _variable(self) -> np.ndarray:
        return np.array([is_variable(self.rules, box) for box in self.index.boxes])

    def barred(self, points: np.ndarray, floors: np.ndarray | None, rows: np.ndarray) -> np.ndarray:
        """Points under a box's floor become 0 (la vache; only variable boxes have one).
        ``floors[box, state]`` replaces the model's own floors when given."""
        floors = self.floors[:, None] if floors is None else floors
        floors = (floors * self._variable[:, None])[rows, None, :]
        return np.where((points > 0) & (points < floors), 0, points)

    def outcomes(
        self,
        masks: np.ndarray,
        yams50: np.ndarray,
        uppers: np.ndarray,
        floors: np.ndarray | None = None,
        boxes: Iterable[int] | None = None,
    ) -> Outcomes:
        """The outcomes of these states, for ``boxes`` or, by default, every box open in
        one of them (the others take no roll: leaving them out saves most of the work)."""
        if boxes is None:
            filled_everywhere = int(np.bitwise_and.reduce(masks))
            boxes = [
                box for box in range(len(self.index.boxes)) if not filled_everywhere >> box & 1
            ]
        return Outcomes(self, masks, yams50, uppers, floors, boxes)

    def room(self, masks: np.ndarray) -> np.ndarray:
        return self.index.upper_room[masks]

    def settled_upper(self, masks: np.ndarray, uppers: np.ndarray) -> np.ndarray:
        """The upper total where it still matters; 63 once the bonus is won and -1 once it
        is out of reach (the rest of the game no longer depends on it); always -1 without an
        upper bonus (Generala)."""
        if not self.rules.has_upper_bonus:
            return np.full_like(uppers, -1)
        return np.where(
            uppers >= UPPER_CAP,
            UPPER_CAP,
            np.where(uppers + self.room(masks) < UPPER_CAP, -1, uppers),
        )


@lru_cache(maxsize=KEPT_INDICES)
def sheet_index(rules: Rules) -> SheetIndex:
    """The free column's index of these rules: the points of every box for every roll, the
    same for every player of a rule set."""
    return SheetIndex(rules, "free")


@lru_cache(maxsize=KEPT_INDICES)
def _states_by_place(rules: Rules) -> States:
    # Without Plus et Moins, the n-th solved state is the one kept at place n.
    return sheet_index(rules).solved_states()


class Futures:
    """The distribution of the points still to come from some states of one sheet, under
    the solitaire strategy, and from every state reachable from them.

    The states are listed forward, by number of filled boxes, with the chance of each
    (next state, points) a turn leads to; the distributions are then summed backward from
    the full sheet. ``distribution(state)[p]`` is the chance of ``p`` more points.

    Generala under ``servida_wins``: a player may win at once at any turn of theirs while
    the Generala box is free (docs/advisor-winning.md). ``distribution`` is then the chance
    of ``p`` more points *and no such win* (its mass below 1), and ``hazards(state)[j]`` the
    chance of winning so at the player's ``j``-th turn from now (0: the next).
    """

    def __init__(self, model: SheetModel, roots: Iterable[State]) -> None:
        self.model = model
        roots = list(roots)
        by_count: dict[int, list[State]] = {}
        for state in roots:
            by_count.setdefault(state[0].bit_count(), []).append(state)
        full = len(model.index.boxes)
        self.layers: dict[int, _Layer] = {}
        arriving = None
        for count in range(min(by_count), full + 1):
            states = [
                np.array(part, dtype=np.int64)
                for part in zip(*by_count.get(count, []), strict=True)
            ]
            if arriving is not None:
                states = (
                    [np.concatenate(pair) for pair in zip(arriving, states, strict=True)]
                    if states
                    else arriving
                )
            layer = self.layers[count] = _Layer(model, *states)
            arriving = layer.expand() if count < full else None
        self._sum_backward(full)

    def _sum_backward(self, full: int) -> None:
        below = self.layers[full]
        below.distributions = np.ones((len(below.masks), 1))
        below.hazards = np.zeros((len(below.masks), 0))
        for count in sorted(self.layers, reverse=True)[1:]:
            layer = self.layers[count]
            layer.sum_from(below)
            below = layer

    def distribution(self, state: State) -> np.ndarray:
        layer = self.layers[state[0].bit_count()]
        return layer.distributions[layer.row(*state)]

    def hazards(self, state: State) -> np.ndarray:
        layer = self.layers[state[0].bit_count()]
        return layer.hazards[layer.row(*state)]


# Points still to come beyond this (three +100 or more) count as this many: the other
# players' totals are all far below, so this changes no chance to win that is shown.
LUMPED = 450
# Below this chance, the long tail of a distribution (several +100) is cut off: the
# chances to win are shown to a tenth of a percent.
NEGLIGIBLE = 1e-11


class _Layer:
    """The states with one number of filled boxes, and where a turn takes each of them."""

    def __init__(
        self, model: SheetModel, masks: np.ndarray, yams50: np.ndarray, uppers: np.ndarray
    ) -> None:
        self.model = model
        keys = self._keys(masks, yams50, uppers)
        self.keys, first = np.unique(keys, return_index=True)
        # One representative upper total per key: the table's value is shared.
        self.masks, self.yams50, self.uppers = masks[first], yams50[first], uppers[first]

    def _keys(self, masks: np.ndarray, yams50: np.ndarray, uppers: np.ndarray) -> np.ndarray:
        settled = self.model.settled_upper(masks, uppers)
        return (masks * 2 + yams50) * (UPPER_CAP + 2) + settled + 1

    def row(self, mask: int, yams50: int, upper: int) -> int:
        key = self._keys(*(np.array([value], dtype=np.int64) for value in (mask, yams50, upper)))
        row = int(np.searchsorted(self.keys, key[0]))
        if row == len(self.keys) or self.keys[row] != key[0]:
            raise KeyError((mask, yams50, upper))  # not reachable from the roots
        return row

    def expand(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The turn of every state here under the solitaire strategy: the chance of each
        (state below, points) it ends on. Returns the states below, as arrays."""
        model = self.model
        parents, gains, chances, below = [], [], [], ([], [], [])
        # The chance of a Generala servida that wins at once, per state (its points do not
        # matter: the game is over).
        self.won = np.zeros(len(self.masks))
        for start in range(0, len(self.masks), CHUNK):
            part = slice(start, start + CHUNK)
            outcomes = model.outcomes(self.masks[part], self.yams50[part], self.uppers[part])
            turn = outcomes.solitaire_turn()
            final = turn.final_rolls
            self.won[part] = (final * turn.won).sum(axis=0)
            final = np.where(turn.won, 0.0, final)
            gain, masks, yams50, uppers = (
                turn.picked(array)
                for array in (outcomes.gain, outcomes.masks, outcomes.yams50, outcomes.uppers)
            )
            # Rolls that end on the same state below with the same points are one outcome.
            columns = np.broadcast_to(np.arange(final.shape[1]), final.shape)
            key = (
                columns * (1 << 40)
                + self._keys(masks, yams50, uppers) * 4096
                + gain.astype(np.int64)
            )
            _, first, inverse = np.unique(key.ravel(), return_index=True, return_inverse=True)
            chance = np.bincount(inverse, weights=final.ravel())
            kept = first[chance > 0]
            parents.append(start + columns.flat[kept])
            gains.append(gain.flat[kept].astype(np.int64))
            chances.append(chance[chance > 0])
            for array, values in zip(below, (masks, yams50, uppers), strict=True):
                array.append(values.flat[kept])
        self.parents = np.concatenate(parents)
        self.gains = np.concatenate(gains)
        self.chances = np.concatenate(chances)
        self.children_states = tuple(np.concatenate(array) for array in below)
        return self.children_states

    def sum_from(self, below: "_Layer") -> None:
        """Each state's distribution: its turn's outcomes, each shifting the distribution
        of the state it leads to by its points."""
        children = np.searchsorted(below.keys, below._keys(*self.children_states))
        width = below.distributions.shape[1]
        distributions = np.zeros((len(self.keys), int(self.gains.max()) + width))
        # One gain at a time, every outcome with it added at once (a state may have
        # several: np.add.at sums them).
        order = np.argsort(self.gains, kind="stable")
        starts = np.flatnonzero(np.diff(self.gains[order])) + 1
        for group in np.split(order, starts):
            gain = int(self.gains[group[0]])
            np.add.at(
                distributions[:, gain : gain + width],
                self.parents[group],
                self.chances[group, None] * below.distributions[children[group]],
            )
        reached = np.nonzero(distributions.max(axis=0) > NEGLIGIBLE)[0]
        distributions = distributions[:, : reached[-1] + 1]
        if distributions.shape[1] > LUMPED:
            distributions[:, LUMPED - 1] += distributions[:, LUMPED:].sum(axis=1)
            distributions = distributions[:, :LUMPED]
        self.distributions = distributions
        # The instant win: now, or at a later turn from the state a turn leads to.
        later = np.zeros((len(self.keys), below.hazards.shape[1]))
        np.add.at(later, self.parents, self.chances[:, None] * below.hazards[children])
        self.hazards = np.concatenate([self.won[:, None], later], axis=1)
