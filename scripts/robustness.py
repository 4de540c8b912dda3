"""The issue's full-size robustness checks against real servers, on loopback only.

    python -m scripts.robustness            # both
    python -m scripts.robustness races      # 8 devices x 200 submissions
    python -m scripts.robustness crashes    # 10 kill -9 while 8 devices write

The same checks run smaller in the test suite (tests/robustness/). Each prints what it found
and exits non-zero if a check fails.
"""

import argparse
import tempfile
from pathlib import Path

from tests.robustness.crashes import run_crashes
from tests.robustness.races import run_races


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("check", nargs="?", choices=("races", "crashes", "all"), default="all")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--submissions", type=int, default=200)
    parser.add_argument("--kills", type=int, default=10)
    options = parser.parse_args()
    if options.check in ("races", "all"):
        with tempfile.TemporaryDirectory(prefix="yams-races-") as workdir:
            print(run_races(Path(workdir), options.clients, options.submissions), flush=True)
    if options.check in ("crashes", "all"):
        with tempfile.TemporaryDirectory(prefix="yams-crashes-") as workdir:
            print(run_crashes(Path(workdir), options.kills, options.clients), flush=True)


if __name__ == "__main__":
    main()
