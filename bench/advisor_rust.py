"""The advisor's build against the exact Rust solver ``yatzy-solver`` (PyPI), both on one
thread, built in turns in one run (issue 15: build time <= the Rust solver's, system time
<= 5 % of the build's CPU). Figures measured in one run; not a test.

    python -m bench.advisor_rust [--repeats 5]     (pip install -e '.[bench]' installs it)

Every build runs in a fresh spawned process, set up as the server's build worker, in the
order ours, Rust, Rust, ours, ours, Rust... so that the machine's other work weighs on both
alike, and the ratios are taken of the medians and of the best times. Both keep to one
thread: the BLAS and OpenMP pools through their environment variables, rayon's through
RAYON_NUM_THREADS; each build's CPU time over its wall time (at most 1 on one core) and the
threads of its process show it.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

from scorekeeper.advisor.builds import reuse_freed_memory
from scorekeeper.advisor.solver import SheetIndex, build_table
from scorekeeper.rules import Rules

TIME_BUDGET = 1.0  # our build over the Rust solver's
SYSTEM_SHARE_BUDGET = 0.05
ONE_THREAD = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "RAYON_NUM_THREADS": "1",
}

# (label, our rules, yatzy-solver's variant, published value). yatzy-solver's ``american``
# plays Verhoeff's free-choice joker, Yahtzee's ``free_choice`` (docs/rules.md §4, §12).
PAIRS = [
    (
        "Yahtzee, Verhoeff's free-choice joker",
        {"preset": "yahtzee", "joker": "free_choice"},
        "american",
        254.5896,
    ),
    ("Scandinavian Yatzy", {"preset": "yatzy"}, "yatzy-scandinavian", 248.44),
]


def start_value(rules: Rules) -> float:
    """Our build of a free column of ``rules``, and the value of a fresh sheet."""
    sheet = SheetIndex(rules)
    values = build_table(rules, sheet=sheet)
    return float(sheet.value(values, sheet.state({}))[0])


def measure_ours(options: dict) -> dict:
    """Our build in this (fresh) process, as the server's build worker runs it."""
    reuse_freed_memory()
    rules = Rules.from_dict(options)
    return _timed(lambda: start_value(rules))


def measure_rust(variant: str) -> dict | None:
    """yatzy-solver's build of ``variant`` in this (fresh) process; None when it is not
    installed."""
    try:
        import yatzy_solver
    except ImportError:
        return None
    return _timed(
        lambda: yatzy_solver.Solver.build(yatzy_solver.Variant(variant)).state_value(
            "upper 0 | filled -"
        )
    )


def _timed(build) -> dict:
    before = resource.getrusage(resource.RUSAGE_SELF)
    start = time.perf_counter()
    value = build()
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_SELF)
    user, system = after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime
    threads = len(os.listdir("/proc/self/task")) if os.path.isdir("/proc/self/task") else None
    return {
        "seconds": seconds,
        "cpu": user + system,
        "system": system,
        "value": value,
        "threads": threads,
    }


def _in_fresh_process(function, *args):
    with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as pool:
        return pool.submit(function, *args).result()


def compare(label: str, options: dict, variant: str, published: float, repeats: int) -> None:
    print(f"\n{label} (yatzy-solver {variant})")
    print(
        f"  {'':4} {'ours s':>7} {'CPU/wall':>8} {'sys/CPU':>7} {'threads':>7}   "
        f"{'Rust s':>7} {'CPU/wall':>8} {'threads':>7}"
    )
    ours, rust = [], []
    for repeat in range(repeats):
        order = ("ours", "rust") if repeat % 2 == 0 else ("rust", "ours")
        for side in order:
            if side == "ours":
                ours.append(_in_fresh_process(measure_ours, options))
            else:
                rust.append(_in_fresh_process(measure_rust, variant))
        if rust[-1] is None:
            print("  yatzy-solver is not installed: pip install -e '.[bench]'")
            return
        mine, theirs = ours[-1], rust[-1]
        print(
            f"  {repeat + 1:4} {mine['seconds']:7.2f} {mine['cpu'] / mine['seconds']:8.2f} "
            f"{mine['system'] / mine['cpu']:7.3f} {mine['threads']:>7}   "
            f"{theirs['seconds']:7.2f} {theirs['cpu'] / theirs['seconds']:8.2f} "
            f"{theirs['threads']:>7}"
        )
    median = {
        name: statistics.median(run["seconds"] for run in runs)
        for name, runs in (("ours", ours), ("rust", rust))
    }
    best = {
        name: min(run["seconds"] for run in runs) for name, runs in (("ours", ours), ("rust", rust))
    }
    cpu = {
        name: statistics.median(run["cpu"] for run in runs)
        for name, runs in (("ours", ours), ("rust", rust))
    }
    shares = [run["system"] / run["cpu"] for run in ours]
    print(
        f"  median: ours {median['ours']:.2f} s, Rust {median['rust']:.2f} s: ratio "
        f"{median['ours'] / median['rust']:.2f}; best: ours {best['ours']:.2f} s, Rust "
        f"{best['rust']:.2f} s: ratio {best['ours'] / best['rust']:.2f}; median CPU: ratio "
        f"{cpu['ours'] / cpu['rust']:.2f} (budget {TIME_BUDGET})"
    )
    print(
        f"  our system time over our CPU: median {statistics.median(shares):.3f}, "
        f"max {max(shares):.3f} (budget {SYSTEM_SHARE_BUDGET})"
    )
    print(
        f"  start values: ours {ours[0]['value']:.4f}, Rust {rust[0]['value']:.4f}, "
        f"published {published:.4f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="builds of each side")
    arguments = parser.parse_args()
    os.environ.update(ONE_THREAD)  # inherited by every build process, read at its start
    print(
        f"Advisor build against yatzy-solver: {os.cpu_count()} CPU(s), "
        f"{arguments.repeats} builds each, one thread each; load average {_load()}"
    )
    for pair in PAIRS:
        compare(*pair, repeats=arguments.repeats)
    print(f"\nLoad average at the end: {_load()}")


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


if __name__ == "__main__":
    main()
