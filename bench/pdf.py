"""Benchmark of the PDF sheets. Figures measured in one run, as ratios; not a test.

    python bench/pdf.py [--runs N]       (with scorekeeper installed, e.g. pip install -e .)

- A filled sheet (a finished four-player game) through ``game_pdf``, its cache emptied first:
  load, replay, template, a PDF worker (locked fetcher, WeasyPrint); against a raw WeasyPrint
  render of the same HTML in this process with WeasyPrint's own fetcher. Goal: at most 1.2
  times the raw render.
- A blank grid served from the cache (memory, then the instance folder) against a fresh
  render. Goal: at least 50 times faster.
- Pages per second for a fresh 20-page blank print, and what the same print costs when
  WeasyPrint paints every page instead of sharing one.

The two renders of each comparison alternate, so that other work on the machine slows both.
"""

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import weasyprint
from weasyprint.urls import path2url

from scorekeeper.app import STORE_EXTENSION, create_app
from scorekeeper.rules import Rules
from scorekeeper.sheets import PAPERS, BlankGrid
from scorekeeper.sheets.pdf import (
    blank_html,
    blank_pdf,
    game_html,
    game_pdf,
    games_cache,
    sheets_cache,
)
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.play import load, play_turn, start_game

FILLED_GOAL = 1.2
CACHE_GOAL = 50
PRINT_PAGES = 20
PLAYERS = ["Mag", "Alix", "Jo", "Lou"]


def play_a_game(store) -> int:
    """A finished four-player classique game: seeded dice, the first box the rules allow."""
    dice_of = random.Random(4)
    game_id = start_game(store, Rules(), PLAYERS, household=HOME_HOUSEHOLD)
    for seq in range(len(PLAYERS) * Rules().turns_per_player):
        _record, state = load(store, game_id, household=HOME_HOUSEHOLD)
        dice = tuple(dice_of.randint(1, 6) for _ in range(5))
        box = state.placement(state.active_player, "free", dice).boxes[0]
        play_turn(store, game_id, seq, "free", box, dice, household=HOME_HOUSEHOLD)
    return game_id


def timed(action) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def alternate(first, second, runs: int) -> tuple[list[float], list[float]]:
    """Times of ``first`` and ``second``, run in turns, each going first half of the time."""
    times_first, times_second = [], []
    for run in range(runs):
        if run % 2:
            times_second.append(timed(second))
            times_first.append(timed(first))
        else:
            times_first.append(timed(first))
            times_second.append(timed(second))
    return times_first, times_second


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds >= 0.001 else f"{seconds * 1e6:.0f} µs"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="renders of each kind (15)")
    runs = parser.parse_args().runs

    instance = Path(tempfile.mkdtemp(prefix="bench-pdf-"))
    app = create_app({"TESTING": True}, instance_path=instance)
    store = app.extensions[STORE_EXTENSION]
    static = app.static_folder
    game_id = play_a_game(store)
    paper = PAPERS["a4"]
    ok = True

    with app.test_request_context("/"):
        print(f"WeasyPrint {weasyprint.__version__}, {runs} runs of each, medians\n")

        record, state = load(store, game_id, household=HOME_HOUSEHOLD)
        html = game_html(record, state, paper)
        raw_base = path2url(static) + "/"

        def filled():
            games_cache().clear_memory()
            game_pdf(store, game_id, paper, household=HOME_HOUSEHOLD)

        filled()  # workers started, fonts and templates loaded before timing
        ours, raw = alternate(
            filled, lambda: weasyprint.HTML(string=html, base_url=raw_base).write_pdf(), runs
        )
        ratio = statistics.median(ours) / statistics.median(raw)
        ok &= ratio <= FILLED_GOAL
        print(f"Filled sheet, {len(PLAYERS)} players, finished game, A4:")
        print(
            f"  game_pdf (load, replay, template, worker: locked fetcher, render): "
            f"{ms(statistics.median(ours))}"
        )
        print(
            f"  raw WeasyPrint of the same HTML:                          "
            f"{ms(statistics.median(raw))}"
        )
        print(f"  ratio {ratio:.2f} (goal <= {FILLED_GOAL})\n")

        grid = BlankGrid(Rules.from_dict({"preset": "triple"}), paper)
        cache = sheets_cache()

        def fresh():
            cache.clear_memory()
            for path in cache.folder.glob("*.pdf"):
                path.unlink()
            blank_pdf(grid, store, household=HOME_HOUSEHOLD)

        def from_disk():
            cache.clear_memory()
            blank_pdf(grid, store, household=HOME_HOUSEHOLD)

        fresh_times = [timed(fresh) for _ in range(runs)]
        disk_times = [timed(from_disk) for _ in range(runs)]
        blank_pdf(grid, store, household=HOME_HOUSEHOLD)
        memory_times = [
            timed(lambda: blank_pdf(grid, store, household=HOME_HOUSEHOLD))
            for _ in range(runs * 100)
        ]
        fresh_median = statistics.median(fresh_times)
        memory_ratio = fresh_median / statistics.median(memory_times)
        disk_ratio = fresh_median / statistics.median(disk_times)
        ok &= min(memory_ratio, disk_ratio) >= CACHE_GOAL
        print("Blank grid, Triple, A4, one page:")
        print(f"  fresh render:            {ms(fresh_median)}")
        print(
            f"  from the instance folder: {ms(statistics.median(disk_times))}"
            f"  ({disk_ratio:.0f}x faster)"
        )
        print(
            f"  from memory:             {ms(statistics.median(memory_times))}"
            f"  ({memory_ratio:.0f}x faster, goal >= {CACHE_GOAL}x)\n"
        )

        long_print = BlankGrid(Rules(), paper, PRINT_PAGES)
        long_html = blank_html(long_print)
        document = weasyprint.HTML(string=long_html, base_url=raw_base).render()

        def painted_each():
            document.copy(document.pages * PRINT_PAGES).write_pdf()

        def shared():
            cache.clear_memory()
            for path in cache.folder.glob("*.pdf"):
                path.unlink()
            blank_pdf(long_print, store, household=HOME_HOUSEHOLD)

        shared_times, painted_times = alternate(shared, painted_each, max(3, runs // 3))
        shared_median = statistics.median(shared_times)
        print(f"Blank print, Classique, A4, {PRINT_PAGES} pages, fresh:")
        print(
            f"  blank_pdf (one page laid out and painted, shared): {ms(shared_median)}, "
            f"{PRINT_PAGES / shared_median:.0f} pages/s"
        )
        print(
            f"  every page painted (layout not even counted):      "
            f"{ms(statistics.median(painted_times))}, "
            f"{PRINT_PAGES / statistics.median(painted_times):.0f} pages/s"
        )

    # The same through HTTP, as the tablet asks: Flask's routing and response on top.
    client = app.test_client()
    url = "/sheets/blank.pdf?preset=triple&paper=a4"

    def fresh_request():
        cache.clear_memory()
        for path in cache.folder.glob("*.pdf"):
            path.unlink()
        assert client.get(url).status_code == 200

    http_fresh = statistics.median(timed(fresh_request) for _ in range(runs))
    http_cached = statistics.median(timed(lambda: client.get(url)) for _ in range(runs * 10))
    print(f"\nGET {url}:")
    print(
        f"  fresh {ms(http_fresh)}, cached {ms(http_cached)} "
        f"({http_fresh / http_cached:.0f}x faster)"
    )

    store.dispose()
    print("\nall goals met" if ok else "\nSOME GOALS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
