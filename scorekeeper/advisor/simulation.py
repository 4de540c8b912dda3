"""Games played by simulation with the advice, many at once: what the policy of several
columns scores (Triple), and what la vache's floors are worth against players who ignore
them.

Every decision is the advice's own arithmetic: the same tables, ``roll_values`` and the turn
arithmetic as ``Strategy.advise_keeps`` for the dice to keep, ``box_values`` as
``Strategy.advise`` for the box; vectorised over the games, each drawing its own dice. The
first games' entries are kept, for a test to replay them through the rules engine.
"""

from dataclasses import dataclass
from functools import cache

import numpy as np

from scorekeeper.advisor.solver import (
    UPPER_CAP,
    YAMS_BONUS,
    YAMS_POINTS,
    SheetIndex,
    States,
    box_values,
    pm_place,
    roll_values,
)
from scorekeeper.advisor.strategy import Strategy
from scorekeeper.advisor.tables import ONE_THROW_COLUMNS
from scorekeeper.advisor.turn import FACES, Throws
from scorekeeper.rules.scoring import is_variable
from scorekeeper.rules.sheet import Entry

# Games played together: their arrays stay small enough for a core's cache.
BATCH = 512
# The 95 % two-sided normal quantile, for the intervals of means and shares.
Z95 = 1.959963984540054


@dataclass(frozen=True)
class Games:
    """What simulated games ended on."""

    totals: np.ndarray  # [game, seat]: each player's final total
    logs: list[list[Entry]]  # the entries of the first games, in the order played


def play_games(
    strategy: Strategy,
    games: int,
    players: int = 1,
    advised_seat: int | None = None,
    seed: int = 0,
    logged: int = 0,
) -> Games:
    """``games`` games of ``players`` players, every one of them advised by ``strategy``;
    with ``advised_seat``, only that seat sees la vache's floors, the others play the same
    tables as if there were none (their entries are still barred under a floor)."""
    rng = np.random.default_rng(seed)
    totals, logs = [], []
    for start in range(0, games, BATCH):
        count = min(BATCH, games - start)
        batch_totals, batch_logs = _Batch(
            strategy, count, players, advised_seat, rng, max(0, min(count, logged - start))
        ).play()
        totals.append(batch_totals)
        logs += batch_logs
    return Games(np.concatenate(totals), logs)


def mean_interval(values: np.ndarray) -> tuple[float, float]:
    """The mean and the half-width of its 95 % confidence interval (normal approximation:
    thousands of games)."""
    return float(values.mean()), float(Z95 * values.std(ddof=1) / np.sqrt(len(values)))


@dataclass(frozen=True)
class _Keeps:
    """Every keep of a number of dice, numbered across sizes, for choosing keeps per game."""

    counts: np.ndarray  # [keep]: how many of each face it holds
    sub_keeps: np.ndarray  # [roll, n]: the keeps inside each roll, padded with a keep of -inf
    roll_of_code: np.ndarray  # a roll's number from its counts coded in base dice + 1


@cache
def _keeps(dice: int) -> _Keeps:
    throws = Throws.of(dice)
    every = [keep for level in throws.keeps for keep in level]
    number = {keep: index for index, keep in enumerate(every)}
    inside = [
        sorted(
            {
                number[tuple(sorted(roll[i] for i in range(dice) if chosen >> i & 1))]
                for chosen in range(1 << dice)
            }
        )
        for roll in throws.rolls
    ]
    width = max(len(keeps) for keeps in inside)
    sub_keeps = np.full((len(throws.rolls), width), len(every))
    for roll, keeps in enumerate(inside):
        sub_keeps[roll, : len(keeps)] = keeps
    counts = np.array([[keep.count(face) for face in FACES] for keep in every])
    roll_of_code = np.full((dice + 1) ** len(FACES), -1)
    roll_of_code[counts[-len(throws.rolls) :] @ _code_weights(dice)] = np.arange(len(throws.rolls))
    return _Keeps(counts, sub_keeps, roll_of_code)


def _code_weights(dice: int) -> np.ndarray:
    return (dice + 1) ** np.arange(len(FACES))


class _Batch:
    """Games played together, turn by turn: the same seat plays in all of them at once."""

    def __init__(
        self,
        strategy: Strategy,
        games: int,
        players: int,
        advised_seat: int | None,
        rng: np.random.Generator,
        logged: int,
    ) -> None:
        self.strategy = strategy
        self.rules = rules = strategy.rules
        self.games = games
        self.players = players
        self.advised_seat = advised_seat
        self.rng = rng
        self.throws = strategy.sheets[rules.columns[0]].throws
        self.keeps = _keeps(rules.dice)
        zeros = np.zeros(games, dtype=np.int64)
        self.columns = {
            (seat, kind): States(zeros, zeros, zeros, zeros)
            for seat in range(players)
            for kind in rules.columns
        }
        # The points written in each box, -1 while it is free: la vache's floors.
        self.written = np.full((players, len(rules.columns), len(rules.boxes), games), -1)
        self.variable = np.array([is_variable(rules, box) for box in rules.boxes])
        self.totals = np.zeros((games, players), dtype=np.int64)
        self.logs: list[list[Entry]] = [[] for _ in range(logged)]

    def play(self) -> tuple[np.ndarray, list[list[Entry]]]:
        for turn in range(self.players * self.rules.turns_per_player):
            self._turn(turn % self.players)
        return self.totals, self.logs

    def _floors(self, seat: int, column: int) -> np.ndarray | None:
        """``floors[box, game]``: the best score another player wrote in the row (la vache)."""
        if not self.rules.vache or self.players == 1:
            return None
        others = np.delete(self.written[:, column], seat, axis=0).max(axis=0)
        return np.where(self.variable[:, None], np.maximum(others, 0), 0).astype(float)

    def _turn(self, seat: int) -> None:
        rules, strategy = self.rules, self.strategy
        sees_floors = self.advised_seat is None or seat == self.advised_seat
        floors = {kind: self._floors(seat, number) for number, kind in enumerate(rules.columns)}
        seen = {kind: floors[kind] if sees_floors else None for kind in rules.columns}
        rests, last_roll, first_only = {}, None, None
        for kind in rules.columns:
            sheet, table, states = (
                strategy.sheets[kind],
                strategy.tables[kind],
                self.columns[seat, kind],
            )
            rests[kind] = sheet.value(table, states)
            worth = roll_values(sheet, table, states, seen[kind]) - rests[kind]
            if kind in ONE_THROW_COLUMNS:
                first_only = worth if first_only is None else np.maximum(first_only, worth)
            else:
                last_roll = worth if last_roll is None else np.maximum(last_roll, worth)

        games = np.arange(self.games)
        first = self._throw(np.zeros((self.games, len(FACES)), dtype=np.int64))
        final = first
        to_sec = np.zeros(self.games, dtype=bool)
        if last_roll is not None:
            # After the first throw: the best keep for two more throws, or Sec now.
            kept, value = self._best_keep(self.throws.rolls_worth(last_roll, 1), first)
            if first_only is not None:
                to_sec = first_only[first, games] >= value
            second = self._throw(self.keeps.counts[kept])
            kept, _ = self._best_keep(last_roll, second)
            final = np.where(to_sec, first, self._throw(self.keeps.counts[kept]))
        else:
            to_sec[:] = True

        choices, written = [], []
        for kind in rules.columns:
            sheet, table, states = (
                strategy.sheets[kind],
                strategy.tables[kind],
                self.columns[seat, kind],
            )
            value, points = box_values(sheet, table, states, final, seen[kind])
            if not sees_floors and floors[kind] is not None:
                _, points = box_values(sheet, table, states, final, floors[kind])
            allowed = to_sec if kind in ONE_THROW_COLUMNS else ~to_sec
            choices.append(np.where(allowed, value - rests[kind], -np.inf))
            written.append(points)
        choices = np.stack(choices)  # [column, box, game]
        best = choices.reshape(-1, self.games).argmax(axis=0)
        column, box = np.divmod(best, len(rules.boxes))
        points = np.stack(written)[column, box, games].astype(np.int64)
        self._write(seat, column, box, points, final)

    def _throw(self, kept: np.ndarray) -> np.ndarray:
        """The roll each game gets by throwing the dice it does not keep (``kept``: counts
        per face)."""
        missing = self.rules.dice - kept.sum(axis=1)
        faces = self.rng.integers(0, len(FACES), size=(self.games, self.rules.dice))
        thrown = np.arange(self.rules.dice) < missing[:, None]
        counts = kept + np.stack(
            [((faces == face) & thrown).sum(axis=1) for face in range(len(FACES))], axis=1
        )
        return self.keeps.roll_of_code[counts @ _code_weights(self.rules.dice)]

    def _best_keep(
        self, rolls_worth: np.ndarray, rolls: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """For each game, the keep among its dice with the best expected value when the
        others are thrown again (``rolls_worth``: what each roll then is worth), and that
        value."""
        values = np.concatenate(
            self.throws.averages(rolls_worth) + [np.full((1, self.games), -np.inf)]
        )
        inside = self.keeps.sub_keeps[rolls]  # [game, n]
        candidates = values[inside, np.arange(self.games)[:, None]]
        best = candidates.argmax(axis=1)
        return inside[np.arange(self.games), best], candidates[np.arange(self.games), best]

    def _write(
        self, seat: int, column: np.ndarray, box: np.ndarray, points: np.ndarray, rolls: np.ndarray
    ) -> None:
        """Each game's entry written in the chosen column and box: the states, totals,
        floors and logs follow."""
        rules = self.rules
        for number, kind in enumerate(rules.columns):
            here = column == number
            if not here.any():
                continue
            sheet: SheetIndex = self.strategy.sheets[kind]
            mask, yams50, upper, pm = (part.copy() for part in self.columns[seat, kind])
            bits = sheet.bits[box]
            is_upper = np.isin(box, sheet.upper)
            raised = np.minimum(UPPER_CAP, upper + np.where(is_upper, points, 0))
            gained = points + np.where(
                (upper < UPPER_CAP) & (raised >= UPPER_CAP), rules.upper_bonus, 0
            )
            # The +100: a Yams when the column's Yams box already holds 50; Kniffel's +50: a
            # Yams in its face's upper box once the Yams box is filled.
            is_yams = np.isin(rolls, sheet.yams_rolls)
            gained += np.where(is_yams & (yams50 == 1), YAMS_BONUS, 0)
            gained += np.where(mask & sheet.yams_bit != 0, sheet.kniffel_points[rolls, box], 0)
            is_fifty = (box == sheet.position["yams"]) & (points == YAMS_POINTS)
            new_pm = pm
            for index in sheet.pm:
                other = sheet.pm[0] if index == sheet.pm[1] else sheet.pm[1]
                other_free = mask & sheet.bits[other] == 0
                new_pm = np.where(box == index, np.where(other_free, pm_place(points), 0), new_pm)
            after = States(
                mask | bits, np.where(is_fifty & rules.has_yams_bonus, 1, yams50), raised, new_pm
            )
            self.columns[seat, kind] = States(
                *(
                    np.where(here, new, old)
                    for new, old in zip(after, self.columns[seat, kind], strict=True)
                )
            )
            self.totals[here, seat] += gained[here]
            games = np.nonzero(here)[0]
            self.written[seat, number, box[games], games] = points[games]
            for game in games[games < len(self.logs)]:
                self.logs[game].append(
                    Entry(seat, kind, rules.boxes[box[game]], self.throws.rolls[rolls[game]])
                )
