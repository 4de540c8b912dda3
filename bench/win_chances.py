"""Benchmark of the chances to win (« Chance de gagner »): how far the estimate is from a
Monte Carlo reference, whether « Pour gagner » wins more than the solitaire strategy, and
how long the chances take. Figures measured in one run; not a test.

    python -m bench.win_chances error [--positions 50] [--games 20000]
    python -m bench.win_chances duel [--players 2] [--deals 400] [--boxes 4] [--minutes 30]
    python -m bench.win_chances latency [--positions 40]

``error``: positions drawn from simulated 2- to 4-player classique games (every player on
the solitaire strategy, stopped at a random turn where the chances are estimated, not
exact), each player's chance to win estimated, and played out ``--games`` times by every
player on the solitaire strategy (the estimate's own model): the error of each player's
share, by the active player's number of boxes left.

``duel``: deals of dice (each seat's throws drawn in advance: a throw of n dice takes the
first n of its five), each played twice from the same position, « Pour gagner » in one
seat then in the other, the other seats on the solitaire strategy: its share of first
place with a 95 % interval over deals (paired: both games of a deal see the same dice).
``--boxes 13`` plays whole games; fewer starts from positions of solitaire games with that
many boxes left to every player.

``latency``: every option's chances after each throw for the active player of 4-player
games in mid-game (6 or 7 boxes left), the games asked about at every throw as the page does
(a server keeps the distributions of the sheets that did not change), and the first request
of a turn with nothing kept; and of end games played exactly.

Budgets (issue 30): estimate within 2 percentage points; « Pour gagner » above 1/2 (two
players) or 1/3 (three) with the interval excluding it; every option's chances <= 1 s p95
for 4 players mid-game, exact end games <= 200 ms.
"""

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from math import sqrt

import numpy as np

from scorekeeper.advisor.builds import reuse_freed_memory
from scorekeeper.advisor.endgame import fits
from scorekeeper.advisor.futures import SheetModel, seats
from scorekeeper.advisor.policy import Keeps
from scorekeeper.advisor.spreads import load_or_build_spreads
from scorekeeper.advisor.strategy import load_or_build
from scorekeeper.advisor.turn import ROLLS
from scorekeeper.advisor.winning import WinChances
from scorekeeper.rules import Entry, GameState, Rules

ERROR_BUDGET = 0.02
LATENCY_BUDGET_S = 1.0
END_GAME_BUDGET_S = 0.2

# The faces of each keep (flat index), left-aligned, and how many dice it keeps.
_KEEPS = Keeps.of(5)
KEEP_FACES = np.zeros((_KEEPS.count, 5), dtype=np.int64)
KEEP_SIZE = np.zeros(_KEEPS.count, dtype=np.int64)
for _size, _level in enumerate(_KEEPS.throws.keeps):
    for _index, _keep in enumerate(_level):
        KEEP_FACES[_KEEPS.offsets[_size] + _index, :_size] = _keep
        KEEP_SIZE[_KEEPS.offsets[_size] + _index] = _size
# A roll's index from its count of each face.
_POWERS = 6 ** np.arange(6)
ROLL_OF_COUNTS = np.full(6**6, -1, dtype=np.int64)
for _index, _roll in enumerate(ROLLS):
    ROLL_OF_COUNTS[sum(_roll.count(face) * _POWERS[face - 1] for face in range(1, 7))] = _index


def roll_index(dice: np.ndarray) -> np.ndarray:
    counts = np.stack([(dice == face).sum(axis=1) for face in range(1, 7)], axis=1)
    return ROLL_OF_COUNTS[counts @ _POWERS]


def simulate_rest(
    model: SheetModel, state: tuple, games: int, rng: np.random.Generator
) -> np.ndarray:
    """The points still to come in ``games`` solitaire play-outs from one sheet state, the
    dice thrown for real: the first roll, each keep's missing dice, then the box."""
    masks = np.full(games, state[0], dtype=np.int64)
    yams50 = np.full(games, state[1], dtype=np.int64)
    uppers = np.full(games, state[2], dtype=np.int64)
    points = np.zeros(games, dtype=np.int64)
    while masks[0] != model.index.full:
        key = (masks * 2 + yams50) * 64 + uppers
        unique, first, inverse = np.unique(key, return_index=True, return_inverse=True)
        inverse = inverse.reshape(-1)
        columns = [[] for _ in range(6)]
        for start in range(0, len(unique), 256):
            part = first[start : start + 256]
            outcomes = model.outcomes(masks[part], yams50[part], uppers[part])
            turn = outcomes.solitaire_turn()
            picked = [
                turn.picked(array)
                for array in (outcomes.gain, outcomes.masks, outcomes.yams50, outcomes.uppers)
            ]
            for column, array in zip(
                columns, [turn.policy.first_choice, turn.policy.second_choice] + picked, strict=True
            ):
                column.append(array)
        first_keep, second_keep, gain, after_mask, after_yams, after_upper = (
            np.concatenate(column, axis=1) for column in columns
        )
        dice = rng.integers(1, 7, (games, 5))
        roll = roll_index(dice)
        for keeps in (first_keep, second_keep):
            keep = keeps[roll, inverse]
            thrown = rng.integers(1, 7, (games, 5))
            dice = np.where(np.arange(5) < KEEP_SIZE[keep][:, None], KEEP_FACES[keep], thrown)
            roll = roll_index(dice)
        points += gain[roll, inverse].astype(np.int64)
        masks = after_mask[roll, inverse]
        yams50 = after_yams[roll, inverse]
        uppers = after_upper[roll, inverse]
    return points


def reference_shares(
    chances: WinChances, state: GameState, games: int, rng: np.random.Generator
) -> np.ndarray:
    """Each player's share of first place in ``games`` play-outs on the solitaire strategy
    (the players' dice are independent: each player's play-outs are drawn on their own and
    the n-th of each make the n-th game)."""
    finals = np.stack(
        [
            seat.total + simulate_rest(chances.model(seat), seat.state, games, rng)
            for seat in seats(state)
        ]
    )
    best = finals.max(axis=0)
    first = finals == best
    return (first / first.sum(axis=0)).mean(axis=1)


def solitaire_game(
    strategy, rules: Rules, players: int, turns: int, chooser: random.Random
) -> GameState:
    """A game played ``turns`` turns by every player on the solitaire strategy."""
    state = GameState.start(rules, [f"J{seat + 1}" for seat in range(players)])
    for _ in range(turns):
        stream = [[chooser.randint(1, 6) for _ in range(5)] for _ in range(3)]
        state = state.play(play_turn(state, stream, lambda *ask: solitaire_choice(strategy, *ask)))
    return state


def solitaire_choice(strategy, state: GameState, dice: tuple, throw: int):
    if throw == 3:
        return strategy.advise(state, dice)[0].box
    return strategy.advise_keeps(state, dice, throw)[0].keep


def to_win_choice(chances: WinChances, state: GameState, dice: tuple, throw: int):
    best = chances.advise(state, dice, throw).options[0]
    return best.box if throw == 3 else best.keep


def play_turn(state: GameState, stream: list[list[int]], choose) -> Entry:
    """One turn with the dice of ``stream`` (five faces per throw, n dice take the first n)
    and ``choose(state, dice, throw)``: a keep after the 1st and 2nd throws, then a box."""
    dice = tuple(stream[0])
    for throw in (1, 2):
        keep = tuple(choose(state, dice, throw))
        if len(keep) == 5:
            break
        dice = keep + tuple(stream[throw][: 5 - len(keep)])
    return Entry(state.active_player, "free", choose(state, dice, 3), dice)


def tables(instance: str, rules: Rules):
    strategy = load_or_build(rules, instance)
    values = strategy.tables["free"]
    return strategy, WinChances(rules, values, load_or_build_spreads(rules, values, instance))


# -- the estimate's error ---------------------------------------------------------------------


def measure_error(instance: str, positions: int, games: int) -> None:
    rules = Rules()
    strategy, chances = tables(instance, rules)
    chooser = random.Random(30)
    rng = np.random.default_rng(30)
    rows = []
    print(
        f"{'#':>3} {'players':>7} {'left':>4} {'estimate (shares)':<30} "
        f"{'reference':<30} {'worst pp':>8} {'s':>5}"
    )
    while len(rows) < positions:
        players = chooser.randint(2, 4)
        turns = chooser.randrange(players * len(rules.boxes))
        state = solitaire_game(strategy, rules, players, turns, chooser)
        if fits(seats(state)):
            continue  # exact there: the estimate is not used
        start = time.perf_counter()
        estimate = np.array([chance.share for chance in chances.standings(state)])
        seconds = time.perf_counter() - start
        reference = reference_shares(chances, state, games, rng)
        error = np.abs(estimate - reference).max()
        left = seats(state)[state.active_player].boxes_left
        rows.append((left, error))
        print(
            f"{len(rows):3} {players:7} {left:4} {_shares(estimate):<30} "
            f"{_shares(reference):<30} {100 * error:8.2f} {seconds:5.2f}",
            flush=True,
        )
    print(
        f"\nEstimate against {games:,} play-outs per position (Monte Carlo standard "
        f"error of a share <= {100 * 0.5 / sqrt(games):.2f} pp), by the active player's "
        "boxes left:"
    )
    print(f"{'boxes left':>10} {'positions':>9} {'mean pp':>8} {'worst pp':>8}")
    for left in sorted({left for left, _ in rows}):
        errors = [error for row_left, error in rows if row_left == left]
        print(
            f"{left:10} {len(errors):9} {100 * statistics.mean(errors):8.2f} "
            f"{100 * max(errors):8.2f}"
        )
    errors = [error for _, error in rows]
    print(
        f"{'all':>10} {len(errors):9} {100 * statistics.mean(errors):8.2f} "
        f"{100 * max(errors):8.2f}   worst / {100 * ERROR_BUDGET:.0f} pp budget = "
        f"{max(errors) / ERROR_BUDGET:.2f}"
    )


def _shares(values: np.ndarray) -> str:
    return " ".join(f"{100 * value:5.1f}" for value in values)


# -- « Pour gagner » against the solitaire strategy ---------------------------------------------


def duel(instance: str, players: int, deals: int, boxes: int, minutes: float) -> None:
    rules = Rules()
    strategy, chances = tables(instance, rules)
    chooser = random.Random(1000 + 10 * players + boxes)
    deadline = time.monotonic() + 60 * minutes
    shares, differing = [], 0
    start = time.perf_counter()
    while len(shares) < deals and time.monotonic() < deadline:
        position = solitaire_game(
            strategy, rules, players, players * (len(rules.boxes) - boxes), chooser
        )
        # Each seat's dice for every turn left, five faces per throw.
        streams = {
            (seat, turn): [[chooser.randint(1, 6) for _ in range(5)] for _ in range(3)]
            for seat in range(players)
            for turn in range(boxes)
        }
        baseline = _play_out(strategy, chances, position, streams, boxes, None)
        results = [
            _play_out(strategy, chances, position, streams, boxes, seat)[seat]
            for seat in range(players)
        ]
        # Shares sum to 1 in a game: the solitaire baseline's mean over seats is 1/players,
        # and a deal counts when « Pour gagner » changed a result.
        differing += results != baseline
        shares.append(statistics.mean(results))
        if len(shares) % 50 == 0:
            _print_duel(players, boxes, shares, differing, time.perf_counter() - start)
    _print_duel(players, boxes, shares, differing, time.perf_counter() - start)


def _play_out(
    strategy,
    chances: WinChances,
    position: GameState,
    streams: dict,
    boxes: int,
    to_win_seat: int | None,
) -> list[float]:
    """Each seat's share of first place once ``position`` is played out with ``streams``,
    ``to_win_seat`` on « Pour gagner » and the others on the solitaire strategy."""
    state = position
    while not state.is_over:
        seat = state.active_player
        turn = boxes - seats(state)[seat].boxes_left
        if seat == to_win_seat:
            choose = lambda *ask: to_win_choice(chances, *ask)  # noqa: E731
        else:
            choose = lambda *ask: solitaire_choice(strategy, *ask)  # noqa: E731
        state = state.play(play_turn(state, streams[seat, turn], choose))
    totals = [sheet.total for sheet in state.sheets]
    best = max(totals)
    return [(total == best) / totals.count(best) for total in totals]


def _print_duel(
    players: int, boxes: int, shares: list[float], differing: int, seconds: float
) -> None:
    mean = statistics.mean(shares)
    half = 1.96 * statistics.stdev(shares) / sqrt(len(shares)) if len(shares) > 1 else 1
    fair = 1 / players
    verdict = "excludes" if mean - half > fair else "does NOT exclude"
    print(
        f"{players} players, {boxes} boxes left each: « Pour gagner » share "
        f"{100 * mean:.2f} % over {len(shares)} deals ({players * len(shares)} games with it, "
        f"{len(shares)} solitaire baselines; it changed a result in {differing}), 95 % interval "
        f"[{100 * (mean - half):.2f}, {100 * (mean + half):.2f}] {verdict} "
        f"{100 * fair:.2f} % ({seconds:.0f} s)",
        flush=True,
    )


# -- how long the chances take ----------------------------------------------------------------


def latency(instance: str, positions: int, end_games_only: bool = False) -> None:
    rules = Rules()
    strategy, chances = tables(instance, rules)
    chooser = random.Random(7)
    kept, fresh, exact = [], [], []
    while len(kept) < 3 * positions and not end_games_only:
        # A 4-player game asked about at every throw, as the page does: a server keeps the
        # distributions of the sheets that did not change.
        state = GameState.start(rules, [f"J{seat + 1}" for seat in range(4)])
        while not state.is_over:
            mid_game = seats(state)[state.active_player].boxes_left in (6, 7)
            if mid_game and len(fresh) < len(kept) // 3 + 1:
                dice = tuple(chooser.randint(1, 6) for _ in range(5))
                saved = dict(chances._futures)
                chances._futures.clear()
                start = time.perf_counter()
                chances.advise(state, dice, 1)
                fresh.append(time.perf_counter() - start)
                chances._futures.update(saved)
            stream = [[chooser.randint(1, 6) for _ in range(5)] for _ in range(3)]

            def asked(state, dice, throw, mid_game=mid_game):
                start = time.perf_counter()
                best = to_win_choice(chances, state, dice, throw)
                if mid_game:
                    kept.append(time.perf_counter() - start)
                return best

            state = state.play(play_turn(state, stream, asked))
    estimated = []
    while len(exact) + len(estimated) < 3 * positions:
        players = chooser.randint(2, 6)
        left = chooser.choice((1, 2))
        position = solitaire_game(
            strategy,
            rules,
            players,
            players * (len(rules.boxes) - left) + chooser.randrange(players),
            chooser,
        )
        if not fits(seats(position)):
            continue
        for throw in (1, 2, 3):
            dice = tuple(chooser.randint(1, 6) for _ in range(5))
            start = time.perf_counter()
            advice = chances.advise(position, dice, throw)
            seconds = time.perf_counter() - start
            if advice.exact:  # else over the budget of positions: estimated
                exact.append(seconds)
            else:
                estimated.append(seconds)
    if not end_games_only:
        _print_latency(
            "4 players mid-game (6 or 7 boxes left), as the page asks, the "
            "unchanged sheets' distributions kept",
            kept,
            LATENCY_BUDGET_S,
        )
        _print_latency(
            "4 players mid-game, the turn's first request with nothing kept",
            fresh,
            LATENCY_BUDGET_S,
        )
    _print_latency("exact end games, 2 to 6 players", exact, END_GAME_BUDGET_S)
    if estimated:
        _print_latency(
            "end games over the budget of positions, estimated", estimated, LATENCY_BUDGET_S
        )


def p95_of(seconds: list[float]) -> float:
    ordered = sorted(seconds)
    return ordered[int(0.95 * (len(ordered) - 1))]


def latency_summary(seconds: list[float]) -> str:
    """How many requests, their median, p95 and slowest, in milliseconds."""
    return (
        f"{len(seconds)} requests, median {1000 * statistics.median(seconds):.0f} ms, "
        f"p95 {1000 * p95_of(seconds):.0f} ms, max {1000 * max(seconds):.0f} ms"
    )


def _print_latency(label: str, seconds: list[float], budget: float) -> None:
    p95 = p95_of(seconds)
    print(
        f"{label}: {latency_summary(seconds)}; "
        f"p95 / {1000 * budget:.0f} ms budget = {p95 / budget:.2f}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=("error", "duel", "latency"))
    parser.add_argument(
        "--instance", help="folder of the cached tables (default: a temporary one, built first)"
    )
    parser.add_argument("--positions", type=int, default=50)
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--deals", type=int, default=400)
    parser.add_argument("--boxes", type=int, default=4)
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument(
        "--end-games-only", action="store_true", help="latency: time the exact end games only"
    )
    arguments = parser.parse_args()
    reuse_freed_memory()
    print(
        f"bench.win_chances {arguments.what}: {os.cpu_count()} CPU(s), numpy "
        f"{np.__version__}, Python {sys.version.split()[0]}, load average "
        f"{_load()} at the start",
        flush=True,
    )
    with tempfile.TemporaryDirectory() as temporary:
        instance = arguments.instance or temporary
        if arguments.what == "error":
            measure_error(instance, arguments.positions, arguments.games)
        elif arguments.what == "duel":
            duel(instance, arguments.players, arguments.deals, arguments.boxes, arguments.minutes)
        else:
            latency(instance, arguments.positions, arguments.end_games_only)
    print(f"Load average at the end: {_load()}")


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


if __name__ == "__main__":
    main()
