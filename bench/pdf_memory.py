"""Memory of the server over 1,000 PDFs: does it level off?

    python -m bench.pdf_memory [--pdfs 1000] [--games 250]

A real `scorekeeper serve` prints the filled sheets of finished four-player games, each
game on both papers in both languages, so that every request is a PDF never made before (no
cache can answer it). The memory of the server and of every process it started (PSS, so
shared pages count once) is taken after a warm-up of 50 PDFs and after the last; the goal
is less than 10 % of growth between the two.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from bench.server import Server, seed_games, sheet_pdf_requests

WARM_UP = 50


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pdfs", type=int, default=1000)
    parser.add_argument("--games", type=int, default=250)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-pdf-memory-") as folder:
        instance = Path(folder, "instance")
        ids = seed_games(instance, args.games)
        asks = sheet_pdf_requests(ids)[: args.pdfs]
        with Server.scorekeeper(instance, Path(folder, "server.log")) as server:
            idle_rss, idle_pss = server.memory_mib()
            connection = server.connection()
            started = time.perf_counter()
            for number, (game_id, paper, lang) in enumerate(asks, start=1):
                status, body, _response = server.get(
                    f"/games/{game_id}/sheet.pdf?paper={paper}",
                    connection,
                    {"Cookie": f"lang={lang}"},
                )
                assert status == 200 and body.startswith(b"%PDF-"), (status, body[:200])
                if number == WARM_UP:
                    warm_rss, warm_pss = server.memory_mib()
                    warm_at = time.perf_counter()
            elapsed = time.perf_counter() - started
            end_rss, end_pss = server.memory_mib()
            processes = len(server.processes())
    rate = (len(asks) - WARM_UP) / (elapsed - (warm_at - started))
    print(
        f"pdf memory: {len(asks)} filled sheets (never the same twice) in {elapsed:.1f} s, "
        f"{rate:.1f} PDF/s after the warm-up"
    )
    print(f"  idle: server RSS {idle_rss:.0f} MiB, all processes PSS {idle_pss:.0f} MiB")
    print(
        f"  after {WARM_UP} PDFs: server RSS {warm_rss:.0f} MiB, "
        f"all processes PSS {warm_pss:.0f} MiB"
    )
    print(
        f"  after {len(asks)} PDFs: server RSS {end_rss:.0f} MiB, "
        f"all processes PSS {end_pss:.0f} MiB ({processes} processes)"
    )
    print(
        f"  growth after the warm-up (all processes): {end_pss / warm_pss:.3f}x "
        f"(goal < 1.10x); server process alone {end_rss / warm_rss:.3f}x"
    )


if __name__ == "__main__":
    main()
