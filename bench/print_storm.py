"""A print storm against the tablets: version polls while 16 clients ask for PDFs.

    python -m bench.print_storm [--printers 16] [--polls 300]

A real `scorekeeper serve`; one client polls a game's version (what every open sheet does
each second) every 20 ms, first alone, then while 16 clients each ask for filled sheets
(never the same twice, so that no cache answers) one after the other. A printer that gets
503 waits as its Retry-After says, as the family would tap again a few seconds later.
Prints the poll's p50 and p95 alone and during the storm; the goal is p95 within 5x.
"""

from __future__ import annotations

import argparse
import itertools
import tempfile
import threading
import time
from pathlib import Path

from bench.server import Server, percentile, seed_games, sheet_pdf_requests

POLL_EVERY_SECONDS = 0.02


def poll(server: Server, game_id: int, count: int) -> list[float]:
    connection = server.connection()
    times = []
    for _ in range(count):
        started = time.perf_counter()
        status, _body, _response = server.get(f"/games/{game_id}/version", connection)
        times.append(time.perf_counter() - started)
        assert status == 200, status
        time.sleep(POLL_EVERY_SECONDS)
    connection.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--printers", type=int, default=16)
    parser.add_argument("--polls", type=int, default=300)
    parser.add_argument("--games", type=int, default=100)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-print-storm-") as folder:
        instance = Path(folder, "instance")
        ids = seed_games(instance, args.games)
        asks = itertools.cycle(sheet_pdf_requests(ids))
        lock = threading.Lock()
        counts = {200: 0, 503: 0}
        stop = threading.Event()

        def printer() -> None:
            connection = server.connection()
            while not stop.is_set():
                with lock:
                    game_id, paper, lang = next(asks)
                status, _body, response = server.get(
                    f"/games/{game_id}/sheet.pdf?paper={paper}",
                    connection,
                    {"Cookie": f"lang={lang}"},
                )
                assert status in counts, status
                with lock:
                    counts[status] += 1
                if status == 503:
                    stop.wait(float(response.headers["Retry-After"]))
            connection.close()

        with Server.scorekeeper(instance, Path(folder, "server.log")) as server:
            poll(server, ids[0], 20)  # connections and the kept replay made
            idle = poll(server, ids[0], args.polls)
            printers = [threading.Thread(target=printer) for _ in range(args.printers)]
            for thread in printers:
                thread.start()
            time.sleep(1.0)  # the storm under way
            started = time.perf_counter()
            storm = poll(server, ids[0], args.polls)
            elapsed = time.perf_counter() - started
            stop.set()
            for thread in printers:
                thread.join()
    print(
        f"print storm: {args.printers} printers, {args.polls} version polls alone, "
        f"then {args.polls} during the storm ({elapsed:.1f} s)"
    )
    print(
        f"  PDFs served {counts[200]} ({counts[200] / elapsed:.1f}/s), "
        f"refused with 503 {counts[503]}"
    )
    print(
        f"  poll alone:  p50 {percentile(idle, 0.5) * 1000:.1f} ms, "
        f"p95 {percentile(idle, 0.95) * 1000:.1f} ms"
    )
    print(
        f"  poll during: p50 {percentile(storm, 0.5) * 1000:.1f} ms, "
        f"p95 {percentile(storm, 0.95) * 1000:.1f} ms"
    )
    print(
        f"  ratio p95 during / alone: {percentile(storm, 0.95) / percentile(idle, 0.95):.1f}x "
        f"(goal <= 5x)"
    )


if __name__ == "__main__":
    main()
