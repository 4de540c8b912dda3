"""The server's CPU for a turn and for the updates it sends to the other tablets, in-process.

    python -m bench.turn_updates [--tablets 4] [--turns 60] [--before DIR]

A game is open on --tablets tablets (Flask's test client, one session each). One tablet
plays the turn as static/js/sheet.js does (one POST, answered with the next sheet); the other
tablets learn of it as the design says, and their share is counted with the turn:
- poll (live.js before the push): a version poll that sees the change, then the page loaded
  again;
- push (live.js now): the stream of each tablet sends the new version with the new sheet,
  drawn once for all of them (before it carried the sheet, the tablet fetched it).
The polls that see nothing (2.5 a second per open tablet, while nobody plays) are not counted
here: python -m bench.hosted counts them.

--before DIR runs the poll design on the code in DIR (a checkout from before the push, say
`git worktree add /tmp/before 9c71c35`) in a process of its own, beside both designs on this
checkout, and prints the ratios. Each design has its process; they take turns, a game each,
so that the machine's other work weighs on all of them alike. Time is the process's CPU
(time.process_time), the test client's own included (about the same in every design).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TOKEN = re.compile(r'name="csrf_token"[^>]*value="([^"]+)"')
VERSION = re.compile(r'name="version" value="([^"]*)"')
SWAP = {"X-Sheet-Swap": "1"}


def games(design: str, tablets: int, scoring_turns: list):
    """Play games one after the other, each time asked (next()); yield the CPU ms of each
    turn of a game with its updates, in this process's copy of scorekeeper."""
    from scorekeeper.app import create_app

    with tempfile.TemporaryDirectory(prefix="yams-turn-updates-") as folder:
        app = create_app({"LIVE_STREAM_SECONDS": 3600}, instance_path=folder)
        clients = [app.test_client() for _ in range(tablets)]
        player, others = clients[0], clients[1:]
        # Games of one player: each tablet plays the turn, the game ends after 13.
        while True:
            spent = []
            token = TOKEN.search(player.get("/games/new").text).group(1)
            answer = player.post(
                "/games/new",
                data={"csrf_token": token, "names-0": "Mag", "preset": "classique"},
            )
            game = answer.headers["Location"].rsplit("/", 1)[1]
            page = player.get(f"/games/{game}").text
            streams = []
            for other in others:
                other.get(f"/games/{game}")
                if design == "push":
                    response = other.get(f"/games/{game}/events", buffered=False)
                    chunks = iter(response.response)
                    next(chunks)  # the version now
                    streams.append((response, chunks))
            # The last turn leads to the ranking.
            for seq, (dice, box) in enumerate(scoring_turns[:-1]):
                form = {
                    "csrf_token": TOKEN.search(page).group(1),
                    "seq": str(seq),
                    "version": VERSION.search(page).group(1),
                    "dice": dice,
                    "target": f"free:{box}",
                }
                started = time.process_time()
                answer = player.post(f"/games/{game}/entries", data=form, headers=SWAP)
                page = answer.text
                for number, other in enumerate(others):
                    if design == "push":
                        event = json.loads(next(streams[number][1]).decode().partition("data: ")[2])
                        version = event["version"]
                        seen = event["sheet"]  # with the version: no request
                    else:
                        version = other.get(f"/games/{game}/version").get_json()["version"]
                        seen = other.get(f"/games/{game}").text
                    if f'value="{version}"' not in seen:
                        raise AssertionError("a tablet was shown another version")
                spent.append((time.process_time() - started) * 1000)
                if answer.status_code != 200:
                    raise AssertionError(f"the turn answered {answer.status_code}")
            for response, _chunks in streams:
                response.close()
            yield spent


def report(label: str, spent: list[float]) -> str:
    p95 = statistics.quantiles(spent, n=20)[-1]
    return (
        f"{label}: median {statistics.median(spent):.2f} ms of CPU, "
        f"mean {statistics.fmean(spent):.2f} ms, p95 {p95:.2f} ms, "
        f"worst {max(spent):.2f} ms ({len(spent)} turns)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tablets", type=int, default=4)
    parser.add_argument("--turns", type=int, default=60)
    parser.add_argument("--design", choices=["poll", "push"])
    parser.add_argument("--before", type=Path, help="a checkout from before the push")
    args = parser.parse_args()
    if args.design:  # one design in this process: a game each time the parent asks
        scoring_turns = json.loads(sys.stdin.readline())
        played = games(args.design, args.tablets, scoring_turns)
        for _request in sys.stdin:
            print(json.dumps(next(played)), flush=True)
        return
    # The turns go to each design's process on its standard input: with --before, that
    # process imports the older checkout's code, which may not have testing.samples' list.
    from testing.samples import SCORING_TURNS

    here = Path(__file__).resolve().parents[1]
    plan = [("poll", here, "poll, this checkout"), ("push", here, "push, this checkout")]
    if args.before:
        plan.insert(0, ("poll", args.before.resolve(), "poll, before the push"))
    processes = {}
    for design, code, label in plan:
        command = [sys.executable, __file__, "--design", design, "--tablets", str(args.tablets)]
        processes[label] = subprocess.Popen(
            command,
            env={**os.environ, "PYTHONPATH": str(code)},
            cwd=code,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        processes[label].stdin.write(json.dumps(SCORING_TURNS) + "\n")
    # The designs take turns, a game each: a change in the machine's other work weighs on
    # all of them alike rather than on whichever ran at that moment.
    results = {label: [] for label in processes}
    try:
        while min(map(len, results.values())) < args.turns:
            for label, process in processes.items():
                process.stdin.write("next\n")
                process.stdin.flush()
                line = process.stdout.readline()
                if not line:
                    raise SystemExit(f"{label}: the process ended (its error is above)")
                results[label] += json.loads(line)
    finally:
        for process in processes.values():
            process.stdin.close()
            process.wait()
    for label, spent in results.items():
        results[label] = spent[: args.turns]
        print(report(label, results[label]), flush=True)
    now = statistics.median(results["push, this checkout"])
    for label, spent in results.items():
        print(f"push now / {label}: {now / statistics.median(spent):.2f}")


if __name__ == "__main__":
    main()
