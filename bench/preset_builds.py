"""The first Conseil of each preset: the build of the tables its game needs, against the
classique one's, interleaved in one run. Figures measured in one run; not a test.

    python -m bench.preset_builds [--rounds 5]

Each build runs as the server's build worker runs it: in a fresh spawned process (freed
memory kept in the heap), in an empty instance folder, ``load_or_build`` of the rule set
(every table its columns need, saved); one build at a time. The rounds alternate the
presets, so that the machine's other work weighs on each alike; the ratio is of medians,
wall and CPU (user + system) apart.

Goal (issue 41): every new preset's first Conseil within 3x the classique one's.
"""

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import numpy as np

from scorekeeper.advisor.builds import reuse_freed_memory
from scorekeeper.advisor.strategy import load_or_build
from scorekeeper.rules import Rules
from scorekeeper.rules.options import PRESETS

GOAL = 3.0
REFERENCE = "classique"


def measure(preset: str) -> dict:
    """One first build in this (fresh) process: wall and CPU seconds, start value."""
    reuse_freed_memory()  # as the server's build worker does
    rules = Rules.from_dict({"preset": preset})
    before = resource.getrusage(resource.RUSAGE_SELF)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as instance:
        value = load_or_build(rules, instance).start_value
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return {"wall": wall, "cpu": cpu, "value": value}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="builds of each preset")
    arguments = parser.parse_args()
    print(
        f"First Conseil builds: {os.cpu_count()} CPU(s), numpy {np.__version__}, "
        f"Python {sys.version.split()[0]}, load average {_load()} at the start"
    )
    spawn = get_context("spawn")
    results: dict[str, list[dict]] = {preset: [] for preset in PRESETS}
    for _round in range(arguments.rounds):
        for preset in PRESETS:
            with ProcessPoolExecutor(1, mp_context=spawn) as pool:
                results[preset].append(pool.submit(measure, preset).result())
    reference = results[REFERENCE]
    wall_ref = statistics.median(item["wall"] for item in reference)
    cpu_ref = statistics.median(item["cpu"] for item in reference)
    print(
        f"\n{'preset':12} {'start value':>11} {'wall s':>8} {'CPU s':>8} "
        f"{'wall ratio':>10} {'CPU ratio':>10}  (medians of {arguments.rounds}, goal <= {GOAL})"
    )
    for preset, items in results.items():
        wall = statistics.median(item["wall"] for item in items)
        cpu = statistics.median(item["cpu"] for item in items)
        print(
            f"{preset:12} {items[0]['value']:11.4f} {wall:8.3f} {cpu:8.3f} "
            f"{wall / wall_ref:10.3f} {cpu / cpu_ref:10.3f}"
        )
    print(f"Load average at the end: {_load()}")


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


if __name__ == "__main__":
    main()
