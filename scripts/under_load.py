"""Run the browser tests, and the whole suite, again and again beside two CPU burners.

    python -m scripts.under_load                # 20 browser runs, 3 whole suites, on SQLite
    python -m scripts.under_load --browser 20 --suite 3 --suite-postgresql 1 \\
        --database-url postgresql://postgres@127.0.0.1:5432/postgres --browser-postgresql 5

A test that fails by chance fails here: the machine is kept busy by burners (bounded loops
that end by themselves, at the latest when the time given is up), as a shared CI machine is.
The runs of each kind are interleaved, so that a run stopped by --minutes still has some of
each. Each run prints its result and its time as it ends; a failed run's output is kept in
the log folder, and the script exits non-zero if any run failed. Stopped by Ctrl-C or SIGTERM,
it ends the run under way and the burners with it.
"""

import argparse
import multiprocessing
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
# A run that takes longer than this is stuck: it is killed and counted as failed.
RUN_TIMEOUT_SECONDS = 45 * 60
# pytest's last line: "1 failed, 94 passed in 699.13s (0:11:39)", with or without "=" around.
SUMMARY = re.compile(r"^=* ?(\d+ \w+.* in [\d.]+s(?: \([\d:]+\))?) ?=*$", re.MULTILINE)
FAILED = re.compile(r"^(?:FAILED|ERROR) (\S+)", re.MULTILINE)


def burn(stop, until: float) -> None:
    """Keep one core busy until told to stop, or until ``until`` (time.monotonic) at the latest."""
    while not stop.is_set() and time.monotonic() < until:
        sum(range(100_000))


@dataclass
class Kind:
    name: str
    paths: list[str]
    database_url: str | None
    count: int


def interleaved(kinds: list[Kind]) -> list[Kind]:
    """Each kind's runs spread evenly over the whole sequence."""
    slots = [
        (number / kind.count, order, kind)
        for order, kind in enumerate(kinds)
        for number in range(kind.count)
    ]
    return [kind for _share, _order, kind in sorted(slots, key=lambda slot: slot[:2])]


def run_once(kind: Kind, number: int, logs: Path) -> bool:
    env = {**os.environ, "SCOREKEEPER_REQUIRE_BROWSER": "1", "SCOREKEEPER_REQUIRE_FONTS": "1"}
    env.pop("SCOREKEEPER_TEST_DATABASE_URL", None)
    if kind.database_url:
        env["SCOREKEEPER_TEST_DATABASE_URL"] = kind.database_url
    command = [sys.executable, "-m", "pytest", *kind.paths, "-q", "-rfE", "-p", "no:cacheprovider"]
    log = logs / f"{kind.name}-{number}.log"
    started = time.monotonic()
    # A session of its own: a stuck run is killed with its workers and browsers.
    process = subprocess.Popen(
        command,
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        output, _ = process.communicate(timeout=RUN_TIMEOUT_SECONDS)
        passed = process.returncode == 0
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        output += f"\nkilled after {RUN_TIMEOUT_SECONDS} s"
        passed = False
    except BaseException:
        # The script is stopped (Ctrl-C, SIGTERM): the run in its session of its own would
        # outlive it, so it is killed too.
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        raise
    seconds = time.monotonic() - started
    log.write_text(output)
    summary = SUMMARY.findall(output)
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print(
        f"{kind.name} {number}/{kind.count}: {'passed' if passed else 'FAILED'} in "
        f"{seconds / 60:.1f} min ({summary[-1] if summary else 'no summary'}; load {load})",
        flush=True,
    )
    for test in FAILED.findall(output):
        print(f"    failed: {test} (see {log})", flush=True)
    return passed


def stopped(_signum, _frame) -> None:
    raise KeyboardInterrupt


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--browser", type=int, default=20, help="browser runs on SQLite")
    parser.add_argument(
        "--browser-postgresql", type=int, help="browser runs on PostgreSQL (5 with a URL)"
    )
    parser.add_argument("--suite", type=int, default=3, help="whole-suite runs on SQLite")
    parser.add_argument(
        "--suite-postgresql", type=int, default=0, help="whole-suite runs on PostgreSQL"
    )
    parser.add_argument("--database-url", help="a PostgreSQL server the tests may use")
    parser.add_argument("--burners", type=int, default=2)
    parser.add_argument(
        "--minutes", type=float, default=24 * 60, help="start no run after this many minutes"
    )
    parser.add_argument("--logs", type=Path, default=REPO_ROOT / "test-artifacts" / "under-load")
    options = parser.parse_args()
    if options.browser_postgresql is None:
        options.browser_postgresql = 5 if options.database_url else 0
    if not options.database_url and (options.browser_postgresql or options.suite_postgresql):
        parser.error("PostgreSQL runs need --database-url")
    options.logs.mkdir(parents=True, exist_ok=True)
    # SIGTERM stops the script as Ctrl-C does: the run under way and the burners end with it.
    signal.signal(signal.SIGTERM, stopped)

    kinds = [
        Kind("browser-sqlite", ["tests/browser"], None, options.browser),
        Kind(
            "browser-postgresql",
            ["tests/browser"],
            options.database_url,
            options.browser_postgresql,
        ),
        Kind("suite-sqlite", [], None, options.suite),
        Kind("suite-postgresql", [], options.database_url, options.suite_postgresql),
    ]
    runs = interleaved([kind for kind in kinds if kind.count > 0])
    deadline = time.monotonic() + options.minutes * 60
    stop = multiprocessing.Event()
    burners = [
        multiprocessing.Process(target=burn, args=(stop, deadline + RUN_TIMEOUT_SECONDS))
        for _ in range(options.burners)
    ]
    for burner in burners:
        burner.start()
    print(f"{options.burners} CPU burners; {len(runs)} runs planned", flush=True)
    results: dict[str, list[bool]] = {kind.name: [] for kind in kinds}
    try:
        for kind in runs:
            if time.monotonic() > deadline:
                print("time is up: no more runs started", flush=True)
                break
            number = len(results[kind.name]) + 1
            results[kind.name].append(run_once(kind, number, options.logs))
    finally:
        stop.set()
        for burner in burners:
            burner.join(timeout=10)
            if burner.is_alive():
                burner.kill()
    for name, passed in results.items():
        if passed:
            streak = next((i for i, ok in enumerate(reversed(passed)) if not ok), len(passed))
            print(
                f"{name}: {sum(passed)} of {len(passed)} runs passed, the last {streak} in a row",
                flush=True,
            )
    sys.exit(0 if all(all(passed) for passed in results.values()) else 1)


if __name__ == "__main__":
    main()
