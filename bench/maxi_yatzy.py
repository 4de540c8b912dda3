"""Benchmark of Maxi Yatzy's Conseil: the policy against a greedy player over the same
number of simulated solitaire games (the same seed), the bound it is measured against, and
the time of one advice. Figures measured in one run; not a test.

    python -m bench.maxi_yatzy [--games 20000] [--seed 41] [--fit]

Prints each player's mean with its 95 % interval, the difference with its own (the games
are independent: the dice follow each player's keeps), the proven bound on the best
possible mean and the policy's gap to it, and the time of one advice: a fresh sheet's
(usual) and, at worst, the last turn of a player who saved every throw he could (38 saved,
41 at hand), each the median of repeated calls, after the policy's one-time set-up.

``--fit`` first refits the policy's constants (``maxi_simulation.fit``) and prints them,
for advisor/maxi.py's CONSTANTS; the bench then plays those.

Goal (issue 41): the policy beats the greedy player by a margin whose 95 % interval stays
above 0, over at least 20,000 games each.
"""

import argparse
import statistics
import time
from dataclasses import replace

import numpy as np

from scorekeeper.advisor.maxi import CONSTANTS, MaxiStrategy, roll_scores
from scorekeeper.advisor.maxi_bound import relaxed_bound, tracked_bound
from scorekeeper.advisor.maxi_simulation import GREEDY, POLICY, fit, play
from scorekeeper.advisor.simulation import Z95, mean_interval
from scorekeeper.rules import Entry, GameState, Rules

RULES = Rules.from_dict({"preset": "maxi_yatzy"})
REPEATS = 30


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=41)
    parser.add_argument("--fit", action="store_true")
    args = parser.parse_args()

    constants = CONSTANTS
    if args.fit:
        scores, faces = roll_scores(RULES)
        constants = fit(scores, faces, replace(CONSTANTS, saved_scale=1.0))
        constants = replace(constants, saved_scale=CONSTANTS.saved_scale)
        print(f"Fitted constants: {constants!r}")

    start = time.perf_counter()
    strategy = MaxiStrategy(RULES, constants)
    setup = time.perf_counter() - start
    model = strategy.model

    results = {}
    for player in (POLICY, GREEDY):
        start = time.perf_counter()
        games = play(model, args.games, player, seed=args.seed)
        elapsed = time.perf_counter() - start
        results[player] = games.totals.astype(float)
        mean, half = mean_interval(results[player])
        print(
            f"{player:>6}: {mean:7.2f} ± {half:4.2f} over {args.games:,} games "
            f"(sd {results[player].std(ddof=1):5.1f}, {games.saved.mean():4.1f} throws saved "
            f"at a turn's start on average; {elapsed:5.1f} s)"
        )
    policy, greedy = results[POLICY], results[GREEDY]
    difference = policy.mean() - greedy.mean()
    half = Z95 * np.sqrt(policy.var(ddof=1) / len(policy) + greedy.var(ddof=1) / len(greedy))
    print(
        f"policy - greedy: {difference:+7.2f} ± {half:4.2f} "
        f"(95 %: {difference - half:.2f} to {difference + half:.2f})"
    )
    mean, half = mean_interval(policy)
    scores, faces = model.scores, model.faces
    looser = relaxed_bound(scores, faces, constants.relaxed_prices, constants.relaxed_slope)
    start = time.perf_counter()
    tracked = [RULES.boxes.index(box) for box in constants.bound_tracked]
    bound = tracked_bound(scores, faces, constants.bound_prices, tracked)
    print(
        f"proven bounds on the best mean: {looser:.2f} (the estimate's relaxed game), "
        f"{bound:.2f} (upper total exact, {', '.join(constants.bound_tracked)} once; "
        f"{time.perf_counter() - start:.1f} s); the policy's gap to the tighter: "
        f"at most {bound - mean:.2f} ± {half:.2f}"
    )

    print(f"policy set-up (once per process): {1000 * setup:.0f} ms")
    fresh = GameState.start(RULES, ["Solo"])
    timed("usual: keeps after the 1st throw, fresh sheet", strategy.advise_keeps, fresh, 1)
    timed("usual: boxes after the 3rd throw, fresh sheet", strategy.advise, fresh, 3)
    saver = fresh
    for box in RULES.boxes[:-1]:
        saver = saver.play(Entry(0, "free", box, (1, 2, 3, 4, 5, 6), None, 1))
    timed(
        f"worst: keeps after the 1st throw, {saver.throws_at_hand(0)} throws at hand",
        strategy.advise_keeps,
        saver,
        1,
    )


def timed(label: str, advise, state: GameState, throw: int) -> None:
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        advise(state, "1 2 3 3 5 6", throw)
        times.append(time.perf_counter() - start)
    print(
        f"{label}: median {1000 * statistics.median(times):.1f} ms, max {1000 * max(times):.1f} ms"
    )


if __name__ == "__main__":
    main()
