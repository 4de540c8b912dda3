"""Benchmark of the PDF sheets. Figures measured in one run, as ratios; not a test.

    python -m bench.pdf [--runs N] [--starts N]   (with scorekeeper installed, pip install -e .)

- A filled sheet (a finished four-player game) through ``game_pdf``, its cache emptied first:
  load, replay, template, a PDF worker (locked fetcher, WeasyPrint); against a raw WeasyPrint
  render of the same HTML in this process with WeasyPrint's own fetcher. Goal: at most 1.2
  times the raw render.
- A blank grid served from the cache (memory, then the instance folder) against a fresh
  render. Goal: at least 50 times faster.
- Pages per second for a fresh 20-page blank print, and what the same print costs when
  WeasyPrint paints every page instead of sharing one.
- The first print after `scorekeeper serve` starts against the next ones of the same
  server, filled sheets never drawn before: with the workers' fork server started with the
  server (FORK_SERVER_AT_START) and at the first print (the default), starts
  of the two alternating. The first print is asked as soon as the first page has been
  served (the worst case), and again 2 s after it (a person's first tap on « Imprimer »).

The two renders of each comparison alternate, so that other work on the machine slows both.
"""

import argparse
import random
import statistics
import sys
import tempfile
import time
from contextlib import nullcontext
from pathlib import Path

import weasyprint
from weasyprint.urls import path2url

from bench.server import Server, seed_games
from scorekeeper.app import STORE_EXTENSION, create_app
from scorekeeper.play import load, play_turn, start_game
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
from scorekeeper.store.quotas import NO_QUOTAS

FILLED_GOAL = 1.2
CACHE_GOAL = 50
PRINT_PAGES = 20
PLAYERS = ["Mag", "Alix", "Jo", "Lou"]
# Seconds between the first page and the first print, for a person's first tap.
FIRST_TAP_SECONDS = 2.0
# Prints after the first, each a filled sheet that server has not drawn yet.
NEXT_PRINTS = 3


def play_a_game(store) -> int:
    """A finished four-player classique game: seeded dice, the first box the rules allow."""
    dice_of = random.Random(4)
    game_id = start_game(store, Rules(), PLAYERS, household=HOME_HOUSEHOLD, quotas=NO_QUOTAS)
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


def get_timed(server: Server, path: str) -> float:
    start = time.perf_counter()
    status, body, _response = server.get(path)
    elapsed = time.perf_counter() - start
    if status != 200 or not body.startswith(b"%PDF-"):
        raise RuntimeError(f"{path} answered {status}")
    return elapsed


def first_prints(starts: int) -> None:
    """The first print after a start against the next ones, fork server started with the
    server or at the first print, starts of the two alternating (see the docstring)."""
    with tempfile.TemporaryDirectory(prefix="bench-first-print-") as folder:
        instance, log = Path(folder, "instance"), Path(folder, "server.log")
        games = seed_games(instance, 1 + NEXT_PRINTS)
        with Server.scorekeeper(instance, log):
            pass  # the instance's first start: templates compiled once, as every day after
        # (fork server at start, pause before the first print) -> [(start, first, next)]
        found: dict[tuple[bool, float], list[tuple[float, float, float]]] = {}
        cases = [
            (at_start, pause) for pause in (0.0, FIRST_TAP_SECONDS) for at_start in (False, True)
        ]
        for run in range(starts):
            for at_start, pause in cases if run % 2 == 0 else cases[::-1]:
                (instance / "config.py").write_text(f"FORK_SERVER_AT_START = {at_start}\n")
                with Server.scorekeeper(instance, log) as server:
                    time.sleep(pause)
                    paths = [f"/games/{game}/sheet.pdf?paper=a4" for game in games]
                    first = get_timed(server, paths[0])
                    following = statistics.median(get_timed(server, path) for path in paths[1:])
                    found.setdefault((at_start, pause), []).append(
                        (server.started_in, first, following)
                    )
    print(f"\nFirst print after a start, filled sheet, A4 (medians of {starts} starts each):")
    for pause in (0.0, FIRST_TAP_SECONDS):
        when = "at once after the first page" if not pause else f"{pause:.0f} s after it"
        for at_start in (False, True):
            rows = found[at_start, pause]
            start, first, following = (statistics.median(row[i] for row in rows) for i in range(3))
            how = "fork server with the server" if at_start else "fork server at the first print"
            print(
                f"  {how}, first print {when}: start to the first page {ms(start)}, first "
                f"print {ms(first)}, next ones {ms(following)}: {first / following:.2f}x"
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="renders of each kind (15)")
    parser.add_argument(
        "--starts", type=int, default=3, help="server starts for each first print (3)"
    )
    arguments = parser.parse_args()
    runs = arguments.runs

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
            game_pdf(
                *load(store, game_id, household=HOME_HOUSEHOLD),
                paper,
                household=HOME_HOUSEHOLD,
                paying=nullcontext,
            )

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
            blank_pdf(grid, household=HOME_HOUSEHOLD, paying=nullcontext)

        def from_disk():
            cache.clear_memory()
            blank_pdf(grid, household=HOME_HOUSEHOLD, paying=nullcontext)

        fresh_times = [timed(fresh) for _ in range(runs)]
        disk_times = [timed(from_disk) for _ in range(runs)]
        blank_pdf(grid, household=HOME_HOUSEHOLD, paying=nullcontext)
        memory_times = [
            timed(lambda: blank_pdf(grid, household=HOME_HOUSEHOLD, paying=nullcontext))
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
            blank_pdf(long_print, household=HOME_HOUSEHOLD, paying=nullcontext)

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
    first_prints(arguments.starts)
    print("\nall goals met" if ok else "\nSOME GOALS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
