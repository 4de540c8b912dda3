"""Start-up of the score keeper against a bare Flask app, as ratios measured in one run.

    python -m bench.startup [--runs 5] [--pages 10]

- `scorekeeper --help` against the `--help` of a bare Flask app's command line.
- From the start of `scorekeeper serve` (an instance started once before, as every day) to
  the first 200 on `/`, against a bare Flask app served by waitress from its start to its
  first 200.
- The memory of each once idle: RSS of the server process after that 200 and `--pages`
  more, which for the score keeper are its home page, a game's sheet and the hall of fame
  in turn (the pages a household opens every evening), and for the bare app its one page;
  and the PSS of every process of each (the score keeper's PDF workers' fork server, started
  with it, included), once every one of them is asleep.

Goals: `--help` and the first 200 within 3x the bare app's, idle RSS within 2.5x: a guard
against an everyday page importing something heavy (WeasyPrint, numpy), which
tests/test_cli.py keeps out at every run. Runs of the two alternate, so that other work on
the machine slows both.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.server import REPO_ROOT, Server, pss_mib
from scorekeeper.store.quotas import NO_QUOTAS
from testing.live import no_tables_ahead

CLI_CODE = "from scorekeeper.__main__ import main; main()"
BARE_CLI_CODE = "from flask import Flask; Flask('bare').cli.main(['--help'])"
BARE_SERVE_CODE = (
    "import sys, waitress; from flask import Flask; app = Flask('bare'); "
    "app.get('/')(lambda: '<!doctype html><p>bare'); "
    "waitress.serve(app, host='127.0.0.1', port=int(sys.argv[1]), threads=4)"
)


def timed_run(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(
        command,
        cwd=REPO_ROOT,
        check=True,
        stdout=subprocess.DEVNULL,
        env={"PYTHONPATH": str(REPO_ROOT), "PATH": "/usr/bin:/bin"},
    )
    return time.perf_counter() - started


# The longest a server's processes may take to fall asleep after the pages (a fork server
# importing WeasyPrint at a low priority, on a busy machine).
IDLE_WITHIN_SECONDS = 120.0


def serve_once(
    server: Server, pages: list[str], count: int = 10
) -> tuple[float, float, float, float]:
    """(seconds from start to the first 200, then after `count` of `pages` in turn, once
    idle: RSS of the server process, PSS of all its processes and of the server process
    alone, in MiB)."""
    with server:
        for number in range(count):
            status, _body, _response = server.get(pages[number % len(pages)])
            if status != 200:
                raise RuntimeError(f"{pages[number % len(pages)]} answered {status}")
        time.sleep(0.5)
        wait_until_asleep(server)
        return server.started_in, *server.memory_mib(), pss_mib(server.process.pid)


def wait_until_asleep(server: Server) -> None:
    """Until every process of the server has been asleep twice in a row, 0.2 s apart."""
    deadline = time.monotonic() + IDLE_WITHIN_SECONDS
    asleep_before = False
    while time.monotonic() < deadline:
        asleep = all(state == "S" for state in map(process_state, server.processes()))
        if asleep and asleep_before:
            return
        asleep_before = asleep
        time.sleep(0.2)
    raise RuntimeError(f"the server's processes still busy after {IDLE_WITHIN_SECONDS} s")


def process_state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return "S"  # gone: nothing left to wait for


# The boxes of a Classique sheet, which two players fill in turn: 26 turns end the game.
BOXES = (
    "ones", "twos", "threes", "fours", "fives", "sixes", "three_kind", "four_kind",
    "full_house", "small_straight", "large_straight", "yams", "chance",
)  # fmt: skip


def finished_game(instance: Path) -> int:
    """A finished game of two players in the instance, for its sheet and the hall of fame."""
    from scorekeeper.play import play_turn, start_game
    from scorekeeper.rules import Rules
    from scorekeeper.store import HOME_HOUSEHOLD, Store

    store = Store(f"sqlite:///{instance / 'scorekeeper.sqlite3'}")
    try:
        game_id = start_game(
            store, Rules(), ["Mag", "Alix"], household=HOME_HOUSEHOLD, quotas=NO_QUOTAS
        )
        for seq in range(2 * len(BOXES)):
            box = BOXES[seq // 2]
            play_turn(store, game_id, seq, "free", box, "12345", household=HOME_HOUSEHOLD)
        return game_id
    finally:
        store.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--pages", type=int, default=10, help="pages before idle memory")
    args = parser.parse_args()
    ours_help, bare_help = [], []
    for _ in range(args.runs):
        ours_help.append(timed_run([sys.executable, "-c", CLI_CODE, "--help"]))
        bare_help.append(timed_run([sys.executable, "-c", BARE_CLI_CODE]))
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as folder:
        instance, log = Path(folder, "instance"), Path(folder, "server.log")
        # An instance started once before has classique's and Yatzy's tables saved, and no
        # start builds them again; here that first start is cut short at its first page, so
        # the Conseil's tables built ahead are turned off rather than measured as a start's.
        no_tables_ahead(instance)
        serve_once(Server.scorekeeper(instance, log), ["/"])  # the instance's first start
        game_id = finished_game(instance)
        pages = ["/", f"/games/{game_id}", "/hall-of-fame"]
        ours, bare = [], []
        for _ in range(args.runs):
            ours.append(serve_once(Server.scorekeeper(instance, log), pages, args.pages))
            bare_server = Server([sys.executable, "-c", BARE_SERVE_CODE, "{port}"], log)
            bare.append(serve_once(bare_server, ["/"], args.pages))
    help_ours, help_bare = statistics.median(ours_help), statistics.median(bare_help)
    start_ours = statistics.median(run[0] for run in ours)
    start_bare = statistics.median(run[0] for run in bare)
    rss_ours = statistics.median(run[1] for run in ours)
    rss_bare = statistics.median(run[1] for run in bare)
    pss_ours = statistics.median(run[2] for run in ours)
    pss_bare = statistics.median(run[2] for run in bare)
    others_ours = statistics.median(run[2] - run[3] for run in ours)
    print(f"startup: medians of {args.runs} runs, each alternating with the bare Flask app")
    print(
        f"  --help: scorekeeper {help_ours * 1000:.0f} ms, bare Flask app "
        f"{help_bare * 1000:.0f} ms: {help_ours / help_bare:.2f}x (goal <= 3x)"
    )
    print(
        f"  start to the first 200 on /: scorekeeper serve {start_ours * 1000:.0f} ms, "
        f"bare Flask + waitress {start_bare * 1000:.0f} ms: {start_ours / start_bare:.2f}x "
        f"(goal <= 3x)"
    )
    # The worst case beside the usual one: the slowest run of each.
    slowest = [max(ours_help), max(bare_help), max(r[0] for r in ours), max(r[0] for r in bare)]
    print(
        f"  slowest of the {args.runs} runs: --help {slowest[0] * 1000:.0f} against "
        f"{slowest[1] * 1000:.0f} ms ({slowest[0] / slowest[1]:.2f}x), start to the first 200 "
        f"{slowest[2] * 1000:.0f} against {slowest[3] * 1000:.0f} ms "
        f"({slowest[2] / slowest[3]:.2f}x)"
    )
    print(
        f"  idle RSS after {args.pages} pages of {', '.join(pages)}: scorekeeper "
        f"{rss_ours:.1f} MiB, bare Flask + waitress {rss_bare:.1f} MiB: "
        f"{rss_ours / rss_bare:.2f}x (goal <= 2.5x)"
    )
    print(
        f"  idle PSS of all the server's processes: scorekeeper {pss_ours:.1f} MiB (its "
        f"other processes, the PDF workers' fork server first, {others_ours:.1f} MiB), "
        f"bare Flask + waitress {pss_bare:.1f} MiB: {pss_ours / pss_bare:.2f}x"
    )


if __name__ == "__main__":
    main()
