"""The first Conseil of each preset: the build of every table a new game of it needs, from an
empty instance folder, as the server's build worker does it; every other preset (Triple,
Yatzy, Yahtzee with both jokers, Kniffel, Generala) against classique, in turns, in one
run. Figures measured in one run; not a test.

    python -m bench.preset_builds [--repeats 3]

Each build runs in a fresh spawned process set up as the server's build worker (freed
memory kept in the heap), in a folder of its own, in the order classique, Yahtzee, ...,
then the reverse, so that the machine's other work weighs on all alike; the ratios are
taken of the medians, of the best times and of the median CPU times. Goal (issue 41): each
new preset's first build within 3x classique's.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile

from bench.advisor_rust import _in_fresh_process, _load, _timed
from scorekeeper.advisor.builds import reuse_freed_memory
from scorekeeper.advisor.strategy import load_or_build
from scorekeeper.rules import Rules

GOAL = 3.0
# (label, rules as a game document gives them); the first is the reference.
PRESETS = [
    ("classique", {"preset": "classique"}),
    ("Yahtzee (official joker)", {"preset": "yahtzee"}),
    ("Yahtzee (Verhoeff's joker)", {"preset": "yahtzee", "joker": "free_choice"}),
    ("Kniffel", {"preset": "kniffel"}),
    ("Generala", {"preset": "generala"}),
    ("Triple (three tables)", {"preset": "triple"}),
    ("Yatzy", {"preset": "yatzy"}),
]


def measure(options: dict) -> dict:
    """The first build of these rules' tables in this (fresh) process and a new folder."""
    reuse_freed_memory()
    rules = Rules.from_dict(options)
    with tempfile.TemporaryDirectory() as instance:
        return _timed(lambda: load_or_build(rules, instance).start_value)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="builds of each preset")
    arguments = parser.parse_args()
    print(
        f"First Conseil build of each preset: {os.cpu_count()} CPU(s), {arguments.repeats} "
        f"builds each, load average {_load()}"
    )
    runs: dict[str, list[dict]] = {label: [] for label, _ in PRESETS}
    for repeat in range(arguments.repeats):
        order = PRESETS if repeat % 2 == 0 else PRESETS[::-1]
        for label, options in order:
            runs[label].append(_in_fresh_process(measure, options))
            print(f"  {repeat + 1} {label:28} {runs[label][-1]['seconds']:6.2f} s", flush=True)
    reference = runs[PRESETS[0][0]]

    def ratio(label: str, key: str, pick) -> float:
        return pick(run[key] for run in runs[label]) / pick(run[key] for run in reference)

    print(
        f"\n{'preset':28} {'start value':>11} {'median s':>8} {'best s':>7} {'CPU s':>6} "
        f"{'ratio':>6} {'best':>6} {'CPU':>6}"
    )
    for label, _options in PRESETS:
        found = runs[label]
        print(
            f"{label:28} {found[0]['value']:11.4f} "
            f"{statistics.median(run['seconds'] for run in found):8.2f} "
            f"{min(run['seconds'] for run in found):7.2f} "
            f"{statistics.median(run['cpu'] for run in found):6.2f} "
            f"{ratio(label, 'seconds', statistics.median):6.2f} "
            f"{ratio(label, 'seconds', min):6.2f} {ratio(label, 'cpu', statistics.median):6.2f}"
        )
    print(f"(ratios against classique's; goal <= {GOAL:.0f}x)\nLoad average at the end: {_load()}")


if __name__ == "__main__":
    main()
