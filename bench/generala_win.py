"""Benchmark of « Pour gagner » at Generala (docs/advisor-winning.md, « Generala »): how long
its table and spreads take to build, how long the page's requests take early, mid and late
in a game, and how far the estimate is from play-outs that win at once. Figures measured in
one run; not a test.

    python -m bench.generala_win build
    python -m bench.generala_win latency [--games 6]
    python -m bench.generala_win error [--positions 12] [--plays 20000]

``latency``: 2- and 4-player games played to win, every option's chances asked after each
throw as the page asks them (and the boxes of keeping all after the first); by the active
player's boxes left; and the first request of a game with nothing kept (a server just
started).

``error``: positions of those games where the chances are estimated; each player's share
against ``--plays`` play-outs of every player on the solitaire strategy (the estimate's own
model), a Generala servida in a free Generala box winning at once, the first in seat order.
"""

import argparse
import os
import random
import statistics
import sys
import time

import numpy as np

from bench.win_chances import KEEP_FACES, KEEP_SIZE, latency_summary, roll_index
from scorekeeper.advisor.endgame import fits
from scorekeeper.advisor.futures import SheetModel, seats
from scorekeeper.advisor.solver import build_table
from scorekeeper.advisor.spreads import build_spreads
from scorekeeper.advisor.winning import WinChances
from scorekeeper.rules import Entry, GameState, Rules

RULES = Rules.from_dict({"preset": "generala"})
NEVER = 1 << 20


def build(repeats: int = 3) -> None:
    for _ in range(repeats):
        start = time.perf_counter()
        values = build_table(RULES)
        table = time.perf_counter() - start
        start = time.perf_counter()
        build_spreads(RULES, values)
        print(f"table {table:.2f} s, spreads {time.perf_counter() - start:.2f} s", flush=True)


def _chances() -> WinChances:
    values = build_table(RULES)
    return WinChances(RULES, values, build_spreads(RULES, values))


def _timed(chances: WinChances, state, dice, throw, boxes=False):
    start = time.perf_counter()
    advice = chances.advise(state, dice, throw, boxes)
    return advice, time.perf_counter() - start


def play_games(games: int, chooser: random.Random, on_request=None, on_position=None) -> None:
    """Games of 2 and 4 players played to win, each request's time and each position given to
    the callbacks: ``on_request(players, boxes_left, exact, seconds)``, ``on_position``."""
    for number in range(games):
        players = 2 if number % 2 == 0 else 4
        chances = _chances()
        state = GameState.start(RULES, [f"J{seat + 1}" for seat in range(players)])
        first = True
        while not state.is_over:
            if on_position is not None:
                on_position(state)
            left = seats(state)[state.active_player].boxes_left
            dice = tuple(chooser.randint(1, 6) for _ in range(5))
            entry = None
            for throw in (1, 2, 3):
                advice, seconds = _timed(chances, state, dice, throw)
                if on_request is not None:
                    on_request(players, left, advice.exact, seconds, first)
                first = False
                best = advice.options[0]
                if throw == 3:
                    entry = Entry(state.active_player, "free", best.box, dice)
                    break
                if len(best.keep) == 5:
                    said = 1 if throw == 1 else None
                    now, seconds = _timed(chances, state, dice, throw, boxes=True)
                    if on_request is not None:
                        on_request(players, left, now.exact, seconds, False)
                    entry = Entry(state.active_player, "free", now.options[0].box, dice, said)
                    break
                dice = best.keep + tuple(chooser.randint(1, 6) for _ in range(5 - len(best.keep)))
            state = state.play(entry)


def latency(games: int) -> None:
    times: dict[tuple, list[float]] = {}

    def record(players, left, exact, seconds, first):
        stage = "first request" if first else "exact" if exact else stage_of(left)
        times.setdefault((players, stage), []).append(seconds)

    play_games(games, random.Random(5), on_request=record)
    for (players, stage), seconds in sorted(times.items()):
        print(f"{players} players, {stage}: {latency_summary(seconds)}", flush=True)


def stage_of(left: int) -> str:
    return "early (9 to 11 boxes left)" if left >= 9 else "mid and late (3 to 8 boxes left)"


def simulate(model: SheetModel, state: tuple, plays: int, rng: np.random.Generator):
    """``plays`` solitaire play-outs of one sheet: the points to come, and the turn (from 0)
    where a Generala servida won at once (NEVER if none)."""
    masks = np.full(plays, state[0], dtype=np.int64)
    yams50 = np.full(plays, state[1], dtype=np.int64)
    uppers = np.full(plays, state[2], dtype=np.int64)
    points = np.zeros(plays, dtype=np.int64)
    won = np.full(plays, NEVER)
    rolls = model.keeps.rolls
    turn_number = 0
    while masks[0] != model.index.full:
        key = masks * 2 + yams50  # no upper bonus: the upper total changes nothing
        _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
        inverse = inverse.reshape(-1)
        outcomes = model.outcomes(masks[first], yams50[first], uppers[first])
        turn = outcomes.solitaire_turn()
        policy = turn.policy
        gain, after_mask, after_yams = (
            turn.picked(array) for array in (outcomes.gain, outcomes.masks, outcomes.yams50)
        )
        dice = rng.integers(1, 7, (plays, 5))
        roll = roll_index(dice)
        now = policy.score_first[roll, inverse]
        for keeps in (policy.first_choice, policy.second_choice):
            keep = keeps[roll, inverse]
            thrown = rng.integers(1, 7, (plays, 5))
            kept = np.where(np.arange(5) < KEEP_SIZE[keep][:, None], KEEP_FACES[keep], thrown)
            roll = np.where(now, roll, roll_index(kept))
        row = np.where(now, rolls + roll, roll)
        won = np.where((won == NEVER) & turn.won[row, inverse], turn_number, won)
        points += gain[row, inverse].astype(np.int64)
        masks = after_mask[row, inverse]
        yams50 = after_yams[row, inverse]
        turn_number += 1
    return points, won


def error(positions: int, plays: int) -> None:
    chooser = random.Random(11)
    rng = np.random.default_rng(3)
    drawn = []

    def keep(state):
        if not fits(seats(state)) and chooser.random() < 0.12:
            drawn.append(state)

    play_games(max(2, positions // 5), chooser, on_position=keep)
    chooser.shuffle(drawn)
    chances = _chances()
    worst = []
    for state in drawn[:positions]:
        every = seats(state)
        order = [(state.active_player + step) % len(every) for step in range(len(every))]
        outcomes = [
            simulate(chances.model(every[player]), every[player].state, plays, rng)
            for player in order
        ]
        finals = np.stack(
            [
                every[player].total + points
                for player, (points, _) in zip(order, outcomes, strict=True)
            ]
        )
        # The first instant win in turn order: each player's turn j comes at j * n + place.
        at = np.stack(
            [
                np.where(won < NEVER, won * len(order) + place, NEVER)
                for place, (_, won) in enumerate(outcomes)
            ]
        )
        first_win = at.min(axis=0)
        by_total = finals == finals.max(axis=0)
        shares = np.where(first_win < NEVER, at == first_win, by_total / by_total.sum(axis=0)).mean(
            axis=1
        )
        estimated = chances.standings(state)
        gaps = [abs(estimated[player].share - shares[place]) for place, player in enumerate(order)]
        left = every[state.active_player].boxes_left
        worst.append(max(gaps))
        print(
            f"{len(every)} players, {left} boxes left: worst gap {100 * max(gaps):.2f} points "
            f"(instant wins in {100 * (first_win < NEVER).mean():.2f} % of play-outs)",
            flush=True,
        )
    print(
        f"mean of the worst gaps {100 * statistics.mean(worst):.2f} points, "
        f"worst {100 * max(worst):.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=("build", "latency", "error"))
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--positions", type=int, default=12)
    parser.add_argument("--plays", type=int, default=20_000)
    arguments = parser.parse_args()
    print(
        f"bench.generala_win {arguments.what}: {os.cpu_count()} CPU(s), numpy "
        f"{np.__version__}, Python {sys.version.split()[0]}, load average {_load()} at the "
        "start",
        flush=True,
    )
    if arguments.what == "build":
        build()
    elif arguments.what == "latency":
        latency(arguments.games)
    else:
        error(arguments.positions, arguments.plays)
    print(f"Load average at the end: {_load()}")


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


if __name__ == "__main__":
    main()
