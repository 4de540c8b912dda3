"""How well each turn of a game was played: the best box, and what the chosen one gave away.

The review shows it for any rule set the Conseil advises; the coach (scorekeeper/coach.py)
counts it over the months only where the Conseil's expected totals can be trusted
(``counted_by_the_coach``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from scorekeeper.advisor.tables import (
    EXACT,
    EXACT_THIS_TURN,
    LAST_THROW,
    ONE_THROW_COLUMNS,
    THROWS,
    advice_quality,
)
from scorekeeper.rules import GameState, Rules

if TYPE_CHECKING:  # the strategy brings numpy: imported by whoever loads a table
    from scorekeeper.advisor.strategy import Strategy

# Expected totals are floats: choices within this margin count as the best one.
SAME_VALUE = 1e-6
# The Conseil's kinds of advice whose points given away the coach counts: the exact
# solitaire strategy, and la vache's, exact for the turn played (every row's floor) and
# saying that it estimates the turns after it by the solitaire table. Several columns are
# advised by a policy valued as the sum of the columns' tables, which its own play beats by
# about 200 points in Triple: its "points given away" measure the policy, not the player.
COUNTED_QUALITIES = frozenset({EXACT, EXACT_THIS_TURN})


def counted_by_the_coach(rules: Rules, players: int) -> bool:
    """Whether the points given away in a game of these rules and this many players are the
    coach's to count (COUNTED_QUALITIES)."""
    return advice_quality(rules, players) in COUNTED_QUALITIES


def rule_set_counted(rules: Rules) -> bool:
    """Whether the coach counts the games of these rules, with some number of players (la
    vache's advice depends on it); each game is then checked with its own."""
    return any(counted_by_the_coach(rules, players) for players in (1, 2))


@dataclass(frozen=True)
class TurnReview:
    number: int  # the entry's position in the log, from 1
    player: int
    best_box: str
    best_column: str
    best_total: float
    chosen_total: float

    @property
    def given_away(self) -> float:
        return max(0.0, self.best_total - self.chosen_total)

    @property
    def was_best(self) -> bool:
        return self.given_away <= SAME_VALUE


@dataclass(frozen=True)
class PlayerReview:
    player: int
    turns: int
    best_turns: int
    given_away: float

    @property
    def precision(self) -> float:
        """The share of turns played on the best box, in percent."""
        return 100.0 * self.best_turns / self.turns if self.turns else 100.0


def review_game(
    strategy: Strategy, state: GameState
) -> tuple[list[TurnReview], list[PlayerReview]]:
    """Every entry of ``state`` judged against the optimal strategy, and each player's sum."""
    turns = []
    before = GameState.start(state.rules, state.players)
    for number, entry in enumerate(state.entries, start=1):
        # Only the final dice of a turn are known: those of the first throw in Sec, and in
        # Generala of an entry that says so (a servida, judged with the servida's points; its
        # dice were scored, not kept, so the boxes are what is compared).
        first = entry.column in ONE_THROW_COLUMNS or (
            state.rules.counts_throws and entry.throw == THROWS[0]
        )
        throw = THROWS[0] if first else LAST_THROW
        ranked = strategy.advise(before, entry.dice, throw)
        chosen = next(a for a in ranked if (a.column, a.box) == (entry.column, entry.box))
        best = ranked[0]
        turns.append(
            TurnReview(
                number,
                entry.player,
                best.box,
                best.column,
                best.expected_total,
                chosen.expected_total,
            )
        )
        before = before.play(entry)
    players = [
        PlayerReview(
            seat,
            sum(1 for turn in turns if turn.player == seat),
            sum(1 for turn in turns if turn.player == seat and turn.was_best),
            sum(turn.given_away for turn in turns if turn.player == seat),
        )
        for seat in range(len(state.players))
    ]
    return turns, players
