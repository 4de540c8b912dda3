"""« Chance de gagner »: each option's chance to finish first, from every player's real sheet.

    chances = WinChances(rules, values, spreads)      # the solitaire table and its spreads
    chances.advise(state, "66653", throw=3)            # every box, ranked by the chance to win
    chances.advise(state, "52551", throw=1)            # every keep, likewise
    chances.standings(state)                           # each player's chance now
    chances.review(finished_state)                     # each player's chance after each turn

A chance is ``Chance(win, tie, share)``: finishing strictly first, first with others, and the
share of first place (a tie between k players counts 1/k). The share is the chance shown and
the one « Pour gagner » maximises; win and tie are told beside it.

How it is computed (docs/advisor-winning.md has the method and its measured error):

- **Exact** when every player has at most two boxes left and the end game fits the budget
  (``endgame``): every player plays to win, knowing every sheet, the last one the totals to
  beat.
- **Estimated** elsewhere: after the option, everyone keeps to the solitaire strategy, each
  player's final total has its own distribution (exact over the states reachable from their
  sheet when they have at most ``EXACT_BOXES`` boxes left, else a law with the table's mean
  and the spreads' central moments: ``_law``), and the players' dice are independent.

The turn at hand is always played to win: after each throw the keep with the best chance,
after the last the box with the best chance, the rest of the game valued as above.
"""

from dataclasses import dataclass
from math import sqrt

import numpy as np

from scorekeeper.advisor.choices import WON_AT_ONCE, Chance, Turn, WinOption
from scorekeeper.advisor.endgame import EndGame, TooLarge, fits
from scorekeeper.advisor.futures import Futures, Seat, SheetModel, seats, sheet_index
from scorekeeper.advisor.tables import (
    LAST_THROW,
    check_request,
    check_throw,
    has_win_chances,
    table_options,
)
from scorekeeper.lru import LruCache
from scorekeeper.rules.errors import RuleError
from scorekeeper.rules.game import GameState
from scorekeeper.rules.labels import N_
from scorekeeper.rules.rule_set import Rules

# The most boxes left for which a player's whole distribution is computed; beyond, a
# law of four moments (docs/advisor-winning.md says why this many, and what it costs).
EXACT_BOXES = 6
# Sheets whose distributions are kept between requests (a turn asks three times).
KEPT_FUTURES = 64
# Reviews of finished games kept (a finished game never changes: its entries are the key).
KEPT_REVIEWS = 16


@dataclass(frozen=True)
class WinAdvice:
    """Every option, best chance first, and how the chances were obtained."""

    options: list[WinOption]
    exact: bool

    @property
    def for_best_score(self) -> WinOption:
        """The option « Pour le meilleur score » ranks first."""
        return max(self.options, key=lambda option: option.expected_total)


class WinChances:
    """The chances to win of every game of one rule set, from its solitaire table
    (``values``, as ``strategy.load`` gives it) and its spreads (``spreads.build_spreads``:
    the central moments of the points to come)."""

    def __init__(self, rules: Rules, values: np.ndarray, spreads: np.ndarray) -> None:
        self.rules = rules
        self.values = values
        self.spreads = spreads
        # A server's request threads share one WinChances.
        self._futures: LruCache[tuple, Futures] = LruCache(KEPT_FUTURES)
        self._reviews: LruCache[tuple, list[list[Chance]]] = LruCache(KEPT_REVIEWS)

    # -- the page and the command line ------------------------------------------------------

    def advise(
        self, state: GameState, dice: object, throw: int = LAST_THROW, boxes: bool = False
    ) -> WinAdvice:
        """Every option of the active player with these dice, ranked by the chance to win:
        the keeps after the 1st or 2nd throw, the boxes after the last (with ``boxes``, after
        any throw: the dice scored now, at Generala's first throw as a servida)."""
        dice, throw = self._check(state, dice, throw)
        every = seats(state)
        end_game = self._end_game(state, every)
        if end_game is not None:
            turn, exact = end_game.root_turn(), True
        else:
            turn, exact = self._estimated_turn(every, state.active_player), False
        options = turn.options(dice, throw, boxes)
        options.sort(key=lambda option: (-option.chance.share, -option.expected_total))
        return WinAdvice(options, exact)

    def standings(self, state: GameState) -> list[Chance]:
        """Each player's chance to win, before the active player's next throw (at the end
        of a game, the result itself)."""
        if len(state.players) == 1:
            return [Chance(1.0, 0.0, 1.0)]
        every = seats(state)
        if state.is_over:
            return _final_chances([seat.total for seat in every], state.winner)
        end_game = self._end_game(state, every)
        if end_game is not None:
            return end_game.root_chances()
        # In the order of their next turns, the active player first.
        order = [(state.active_player + step) % len(every) for step in range(len(every))]
        finals = [self._final_distribution(every[player]) for player in order]
        chances = [None] * len(every)
        for place, (offset, distribution, hazards) in enumerate(finals):
            others = finals[:place] + finals[place + 1 :]
            functions = _against([final[:2] for final in others], offset + len(distribution))
            window = functions[:, offset : offset + len(distribution)]
            win, tie, share = window @ distribution
            # Winning at once comes first: before any total counts.
            first = _at_once(hazards, [final[2] for final in finals], place)
            chances[order[place]] = Chance(float(win + first), float(tie), float(share + first))
        return chances

    def review(self, state: GameState, start: GameState | None = None) -> list[list[Chance]]:
        """Each player's chance to win at the start of the game (or at ``start``, a
        position of it) and after each turn since: one line per player for the chart.
        Kept for the next asks (a second or two for four players)."""
        position = start or GameState.start(state.rules, state.players)
        key = (tuple(state.players), state.entries, len(position.entries))
        kept = self._reviews.get(key)
        if kept is not None:
            return kept
        series = [self.standings(position)]
        for entry in state.entries[len(position.entries) :]:
            position = position.play(entry)
            series.append(self.standings(position))
        self._reviews.put(key, series)
        return series

    def _end_game(self, state: GameState, every: list[Seat]) -> EndGame | None:
        """The exact end game of this position, or None where it is estimated."""
        if not fits(every):
            return None
        try:
            return EndGame(self.rules, self.values, state)
        except TooLarge:
            return None

    # -- the estimate -----------------------------------------------------------------------

    def _estimated_turn(self, every: list[Seat], player: int) -> "Turn":
        """The active player's turn, each outcome valued by the estimate."""
        seat = every[player]
        # The others in the order of their next turns, all before the active player's.
        others = [
            self._final_distribution(every[(player + step) % len(every)])
            for step in range(1, len(every))
        ]
        model = self.model(seat)
        outcomes = model.outcomes(*(np.array([part]) for part in seat.state))
        # The states the turn can end in, and each one's distribution of points to come (a
        # Generala servida that wins at once ends in none).
        going_on = outcomes.allowed & ~outcomes.wins
        children = np.unique(outcomes.after[going_on])
        rests = [self._rest(seat, model, int(child)) for child in children]
        width = max(len(rest) for rest, _ in rests)
        top = int(outcomes.gain[outcomes.allowed].max())
        functions = _against([other[:2] for other in others], seat.total + top + width)
        hazards = [other[2] for other in others]
        # valued[f, child, gain]: chance f (win, tie, share) with this child and gain.
        valued = np.zeros((3, len(children), top + 1))
        means = np.zeros(len(children))
        for row, (rest, own) in enumerate(rests):
            windows = np.lib.stride_tricks.sliding_window_view(
                functions[:, seat.total : seat.total + top + len(rest)], len(rest), axis=1
            )
            valued[:, row] = windows @ rest
            # Winning at once at a later turn, the others having played before each.
            valued[[0, 2], row] += _at_once(own, hazards + [own], len(hazards))
            means[row] = rest @ np.arange(len(rest)) / rest.sum()
        # Boxes not allowed look up anything: their chances are masked below.
        row = np.minimum(np.searchsorted(children, outcomes.after), len(children) - 1)
        gain = np.minimum(outcomes.gain.astype(np.int64), top)
        chances = np.where(outcomes.allowed, valued[:, row, gain], -np.inf)
        chances = np.where(outcomes.wins, np.array(WON_AT_ONCE)[:, None, None, None], chances)
        totals = np.where(going_on, seat.total + gain + means[row], -np.inf)
        totals = np.where(outcomes.wins, seat.total + outcomes.gain, totals)
        return Turn(
            self.rules,
            outcomes.boxes,
            chances,
            totals,
            outcomes.allowed,
            seat.total + outcomes.solitaire,
        )

    def _final_distribution(self, seat: Seat) -> tuple[int, np.ndarray, np.ndarray]:
        """A player's final total: (the least it can be, the chance of each total from it
        and no instant win, the chance of an instant win at each of their turns)."""
        return seat.total, *self._rest(seat, self.model(seat), None)

    def _rest(
        self, seat: Seat, model: SheetModel, child: int | None
    ) -> tuple[np.ndarray, np.ndarray]:
        """The distribution of the points to come from the seat's state (``child`` None) or
        from a state its turn may end in (a place of the table), and the hazards of winning
        at once (``Futures.hazards``; none but at Generala)."""
        boxes_left = seat.boxes_left - (child is not None)
        if boxes_left == 0:
            return np.ones(1), np.zeros(0)
        # Generala's whole sheet has 3,072 states: its distributions are always computed.
        if boxes_left > EXACT_BOXES and not self.rules.is_generala:
            if child is not None:
                return self._law(child), np.zeros(0)
            return self._next_turn_then_law(model, seat.state), np.zeros(0)
        state = seat.state if child is None else model.state_at(child)
        futures = self._futures_of(seat, model)
        return futures.distribution(state), futures.hazards(state)

    def _law(self, place: int) -> np.ndarray:
        return _law(
            float(self.values[place]), *(float(self.spreads[moment, place]) for moment in range(3))
        )

    def _next_turn_then_law(self, model: SheetModel, state: tuple[int, int, int]) -> np.ndarray:
        """The points to come far from the end of a sheet: the next turn played exactly
        (solitaire strategy), each state it ends in followed by its law of four moments.
        The mixture keeps what the next turn decides (a Yams or not, the bonus...)."""
        outcomes = model.outcomes(*(np.array([part]) for part in state))
        turn = outcomes.solitaire_turn()
        gain, after = turn.picked(outcomes.gain)[:, 0], turn.picked(outcomes.after)[:, 0]
        pairs, chance = np.unique(
            np.stack([after.astype(np.int64), gain.astype(np.int64)]), axis=1, return_inverse=True
        )
        weights = np.bincount(chance.reshape(-1), weights=turn.final_rolls[:, 0])
        laws = [self._law(int(child)) for child in pairs[0]]
        rest = np.zeros(int(pairs[1].max()) + max(len(law) for law in laws))
        for law, points, weight in zip(laws, pairs[1], weights, strict=True):
            rest[points : points + len(law)] += weight * law
        return rest

    def _futures_of(self, seat: Seat, model: SheetModel) -> Futures:
        """The distributions from a seat and every state its turn may end in, kept for the
        next requests (the other players' sheets do not change during a turn)."""
        # Generala's whole sheet has 3,072 states (and no floors): one Futures of them all,
        # built once, serves every seat of every game of these rules.
        whole = self.rules.is_generala
        key = ("every state",) if whole else (seat.state, seat.floors)
        kept = self._futures.get(key)
        if kept is not None:
            return kept
        if whole:
            every = sheet_index(self.rules).solved_states()
            roots = [tuple(map(int, state)) for state in zip(*every[:3], strict=True)]
        else:
            outcomes = model.outcomes(*(np.array([part]) for part in seat.state))
            after = np.unique(outcomes.after[outcomes.allowed & ~outcomes.wins])
            roots = [seat.state] + [model.state_at(int(child)) for child in after]
        futures = Futures(model, roots)
        self._futures.put(key, futures)
        return futures

    def model(self, seat: Seat) -> SheetModel:
        return SheetModel(self.rules, self.values, seat.floors)

    def _check(self, state: GameState, dice: object, throw: object) -> tuple[tuple[int, ...], int]:
        """The dice and the throw read, once the game is known to have chances (else
        RuleError, in the Conseil's words)."""
        # One table serves Generala with and without its instant win; the chances do not.
        if (
            not has_win_chances(state.rules)
            or table_options(state.rules) != table_options(self.rules)
            or state.rules.servida_wins != self.rules.servida_wins
        ):
            raise RuleError(
                N_("Ce conseil a été calculé pour d'autres règles que celles de la partie.")
            )
        return check_request(state, dice), check_throw(throw)


def _against(others: list[tuple[int, np.ndarray]], end: int) -> np.ndarray:
    """``[f, x]``: for a final total x of one player, the chance f (win, tie, share)
    against the others' final totals (each an offset and a distribution), x below
    ``end`` (at least every total the others can reach)."""
    end = max([end] + [offset + len(distribution) + 1 for offset, distribution in others])
    # coefficients[k, x]: the chance that exactly k others end on x and none above it.
    coefficients = np.zeros((len(others) + 1, end))
    coefficients[0] = 1.0
    for offset, distribution in others:
        equal = np.zeros(end)
        equal[offset : offset + len(distribution)] = distribution
        below = np.concatenate([[0.0], np.cumsum(equal)[:-1]])
        shifted = np.vstack([np.zeros((1, end)), coefficients[:-1]])
        coefficients = coefficients * below + shifted * equal
    win = coefficients[0]
    tie = coefficients[1:].sum(axis=0)
    share = (coefficients / np.arange(1, len(others) + 2)[:, None]).sum(axis=0)
    return np.array([win, tie, share])


def _at_once(hazards: np.ndarray, every: list[np.ndarray], place: int) -> float:
    """The chance that the player at ``place`` (in the order of the next turns) wins at
    once before anyone else does: at their ``j``-th turn with ``hazards[j]``, every other
    player having played ``j`` turns (``j + 1`` for those before them) without it. The
    players' dice are independent, so are their instant wins."""
    chance = 0.0
    for turn, hazard in enumerate(hazards):
        if hazard:
            for other, theirs in enumerate(every):
                if other != place:
                    hazard *= 1.0 - theirs[: turn + (other < place)].sum()
            chance += hazard
    return chance


def _final_chances(totals: list[int], winner: int | None = None) -> list[Chance]:
    if winner is not None:  # a Generala servida won at once: first alone
        return [
            Chance(*WON_AT_ONCE if seat == winner else (0, 0, 0)) for seat in range(len(totals))
        ]
    best = max(totals)
    first = totals.count(best)
    return [
        Chance(
            float(total == best and first == 1),
            float(total == best and first > 1),
            (total == best) / first,
        )
        for total in totals
    ]


def _law(mean: float, second: float, third: float, fourth: float) -> np.ndarray:
    """A law on the whole points from 0 with these four moments (mean, then central): two
    normal laws of one width, most of the weight on the one near the mean and a little on
    one far to the right (games with a Yams and its +100); one normal law when the moments
    do not allow it. Each point weighed by its density."""
    deviation = sqrt(max(second, 1e-9))
    points = np.arange(int(mean + 12 * deviation) + 2)
    mixture = _two_normals(second, third, fourth)
    if mixture is None:
        density = np.exp(-0.5 * ((points - mean) / deviation) ** 2)
    else:
        weight, distance, width = mixture
        low = mean - weight * distance  # the mixture's mean is the table's
        density = (1 - weight) * np.exp(-0.5 * ((points - low) / width) ** 2) + weight * np.exp(
            -0.5 * ((points - low - distance) / width) ** 2
        )
    return density / density.sum()


def _two_normals(second: float, third: float, fourth: float) -> tuple[float, float, float] | None:
    """(weight, distance, width) of the mixture (1 - w) N(m, s^2) + w N(m + d, s^2) with
    these central moments, or None. With a = w (1 - w): the third cumulant is
    a (1 - 2w) d^3, the fourth a (1 - 6a) d^4 and the variance s^2 + a d^2, so
    third^2 / fourth^1.5 depends on a alone (increasing on ]0, 1/6[): found by bisection."""
    cumulant = fourth - 3 * second**2
    if third <= 0 or cumulant <= 0:
        return None
    target = third**2 / cumulant**1.5
    low, high = 0.0, 1 / 6
    for _ in range(60):
        middle = (low + high) / 2
        ratio = sqrt(middle) * (1 - 4 * middle) / (1 - 6 * middle) ** 1.5
        low, high = (middle, high) if ratio < target else (low, middle)
    a = (low + high) / 2
    if not 0 < a < 1 / 6:
        return None
    distance = (cumulant / (a * (1 - 6 * a))) ** 0.25
    width_squared = second - a * distance**2
    if width_squared <= 0:
        return None
    weight = (1 - sqrt(1 - 4 * a)) / 2
    return weight, distance, sqrt(width_squared)
