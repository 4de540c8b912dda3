"""Benchmark of the advisor: full builds, their memory, the published start values, and the
time of one advice from the cached table. Figures measured in one run; not a test.

    python bench/advisor.py          (with scorekeeper installed, e.g. pip install -e .)

Each build runs in a fresh process, so that its peak memory (ru_maxrss: the whole process,
interpreter and numpy included) is its own. Budgets (issue 8): build <= 60 s on two cores,
peak memory <= 300 MB, one advice <= 5 ms.
"""

import os
import random
import resource
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import numpy as np

from scorekeeper.advisor import load, load_or_build
from scorekeeper.advisor.solver import build_table
from scorekeeper.rules import Entry, GameState, Rules
from scorekeeper.rules.options import BOX_OF_FACE
from scorekeeper.rules.scoring import score

BUILD_BUDGET_S = 60
MEMORY_BUDGET_MB = 300
ADVICE_BUDGET_MS = 5

# (label, rules, published value or None, whether it is Verhoeff's joker)
BUILDS = [
    ("official joker, +100", {"preset": "classique"}, 254.5877, False),
    ("free joker, +100", {"joker": "free"}, None, False),
    ("official joker, no +100", {"yams_bonus": False}, None, False),
    # Verhoeff's "free choice" joker: any free box, but Full and the straights score their
    # full value only once the face's upper box is filled. Not one of our rules (RULES.md's
    # free joker always gives the full value): solved only to check the solver against the
    # second published figure.
    ("Verhoeff free-choice joker (reference only)", {"preset": "classique"}, 254.5896, True),
]


def verhoeff_free_choice(rules: Rules, filled: frozenset[str], face: int) -> dict[str, int]:
    dice = (face,) * 5
    full_value = BOX_OF_FACE[face] in filled
    return {box: score(rules, box, dice, joker=full_value)
            for box in rules.boxes if box not in filled}


def measure_build(options: dict, instance: str, verhoeff: bool) -> dict:
    """One build in this (fresh) process: time, peak memory, start value."""
    rules = Rules.from_dict(options)
    baseline_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    start = time.perf_counter()
    if verhoeff:
        value = float(build_table(rules, joker_rule=verhoeff_free_choice)[0, 0, 0])
    else:
        value = load_or_build(rules, instance).start_value
    seconds = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"seconds": seconds, "peak_mb": peak_mb, "baseline_mb": baseline_mb, "value": value}


def advice_times(instance: str, games: int = 150) -> tuple[float, list[float]]:
    """Seconds to load the cached table, and of each advice along random games (1 to 4
    players, random dice, the best advice played)."""
    rules = Rules()
    start = time.perf_counter()
    strategy = load(rules, instance)
    load_seconds = time.perf_counter() - start
    chooser = random.Random(1)
    times = []
    for number in range(games):
        players = [f"P{seat}" for seat in range(1 + number % 4)]
        state = GameState.start(rules, players)
        while not state.is_over:
            dice = tuple(chooser.randint(1, 6) for _ in range(5))
            start = time.perf_counter()
            advice = strategy.advise(state, dice)
            times.append(time.perf_counter() - start)
            state = state.play(Entry(state.active_player, "free", advice[0].box, dice))
    return load_seconds, times


def main() -> None:
    print(f"Advisor benchmark: {os.cpu_count()} CPU(s), numpy {np.__version__}, "
          f"Python {sys.version.split()[0]}, load average {_load()} at the start")
    spawn = get_context("spawn")
    with tempfile.TemporaryDirectory() as instance:
        print(f"\n{'build':42} {'start value':>11} {'published':>9} {'time s':>7} "
              f"{'/60 s':>6} {'peak MB':>8} {'/300 MB':>8}")
        for label, options, published, verhoeff in BUILDS:
            # A fresh process per build: its peak memory is its own.
            with ProcessPoolExecutor(1, mp_context=spawn) as pool:
                result = pool.submit(measure_build, options, instance, verhoeff).result()
            shown = f"{published:9.4f}" if published is not None else f"{'-':>9}"
            print(f"{label:42} {result['value']:11.4f} {shown} {result['seconds']:7.1f} "
                  f"{result['seconds'] / BUILD_BUDGET_S:6.2f} {result['peak_mb']:8.0f} "
                  f"{result['peak_mb'] / MEMORY_BUDGET_MB:8.2f}")
        print(f"(peak MB is the whole process; {result['baseline_mb']:.0f} MB of it is the "
              "interpreter, numpy and the rules before the build starts)")

        load_seconds, times = advice_times(instance)
        print(f"\nLoading the cached table: {1000 * load_seconds:.1f} ms; "
              f"first advice after it: {1000 * times[0]:.3f} ms")
        times_ms = sorted(1000 * seconds for seconds in times)
        p99 = times_ms[int(0.99 * (len(times_ms) - 1))]
        print(f"One advice over {len(times_ms)} turns of random games: "
              f"median {statistics.median(times_ms):.3f} ms, p99 {p99:.3f} ms, "
              f"max {times_ms[-1]:.3f} ms; max / {ADVICE_BUDGET_MS} ms budget = "
              f"{times_ms[-1] / ADVICE_BUDGET_MS:.3f}")
    # Other work on the machine shows in the times (the build is single-threaded numpy).
    print(f"Load average at the end: {_load()}")


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


if __name__ == "__main__":
    main()
