"""Benchmark of the advisor, for every rule set: the builds of its tables (time, peak memory,
system time, the start value of each column played alone, the published ones), what the
advice is worth (exact, or simulated against its reference), the time of the box and keep
advice, and a turn played while a table is built. Figures measured in one run; not a test.
``bench.advisor_rust`` times the classique build against the Rust solver ``yatzy-solver``.

    python -m bench.advisor [--games 20000] [--quick]

Each build runs in a fresh process set up as the server's build worker (freed memory kept
in the heap), so that its peak memory (ru_maxrss: the whole process, interpreter and numpy
included) and its CPU times are its own; one build at a time, in one process (the machine's
other work shares its cores). ``--quick`` leaves out the builds of Plus et Moins with six
dice (minutes each) and the rule sets that need them.

Several columns (Triple, Triple with Sec): the advice is a policy, measured over ``--games``
simulated solitaire games against the turn-about reference (the sum of the columns' exact
values). La vache: 3-player games, the advised player against two players of the same tables
who ignore the floors, each seat advised in a third of the games.

Budgets (issues 8, 15, 19, 27): peak memory <= 300 MB, system time <= 5 % of the build's
CPU, keep and box advice p99 <= 20 ms once the tables are loaded, a turn during a build
p95 <= 2x idle.
"""

import argparse
import os
import random
import resource
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from multiprocessing import get_context

import numpy as np

from scorekeeper.advisor.builds import Strategies, reuse_freed_memory
from scorekeeper.advisor.simulation import mean_interval, play_games
from scorekeeper.advisor.strategy import load, load_or_build
from scorekeeper.advisor.tables import advice_quality, cache_path, turn_throws
from scorekeeper.app import STORE_EXTENSION, create_app
from scorekeeper.rules import Entry, GameState, Rules
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.games import game_version
from scorekeeper.web.conseil import ADVISOR_EXTENSION
from testing.samples import new_game_form

MEMORY_BUDGET_MB = 300
SYSTEM_SHARE_BUDGET = 0.05
ADVICE_P99_BUDGET_MS = 20
TURN_DURING_BUILD_BUDGET = 2.0

SIX = {"dice": 6}
PM = {"plus_minus": True}
# (label, rules, column kind, published value or None)
TABLES = [
    ("free, official joker, +100 (classique, Yahtzee)", {}, "free", 254.5877),
    ("free, free joker, +100", {"joker": "free"}, "free", None),
    ("free, official joker, no +100", {"yams_bonus": False}, "free", None),
    ("free, Verhoeff's free-choice joker, +100", {"joker": "free_choice"}, "free", 254.5896),
    ("free, Kniffel", {"preset": "kniffel"}, "free", None),
    ("free, Yatzy", {"preset": "yatzy"}, "free", 248.44),
    ("free, Plus et Moins", PM, "free", None),
    ("free, Yams 6", SIX, "free", None),
    ("free, Yams 6, Plus et Moins", SIX | PM, "free", None),
    ("sec", {}, "sec", None),
    ("sec, Yatzy", {"preset": "yatzy"}, "sec", None),
    ("sec, Plus et Moins", PM, "sec", None),
    ("sec, Yams 6", SIX, "sec", None),
    ("sec, Yams 6, Plus et Moins", SIX | PM, "sec", None),
    ("down", {}, "down", None),
    ("down, Yatzy", {"preset": "yatzy"}, "down", None),
    ("down, Plus et Moins", PM, "down", None),
    ("down, Yams 6, Plus et Moins", SIX | PM, "down", None),
    ("up", {}, "up", None),
    ("up, Yatzy", {"preset": "yatzy"}, "up", None),
    ("up, Plus et Moins", PM, "up", None),
    ("up, Yams 6, Plus et Moins", SIX | PM, "up", None),
]
TRIPLE_SEC = ["down", "up", "free", "sec"]
# (label, rules, players): the rule sets measured; their tables are built above.
RULE_SETS = [
    ("classique", {}, 1),
    ("Yatzy", {"preset": "yatzy"}, 1),
    ("Plus et Moins", PM, 1),
    ("Yams 6", SIX, 1),
    ("Yams 6, Plus et Moins", SIX | PM, 1),
    ("Sec", {"columns": ["sec"]}, 1),
    ("Descendante", {"columns": ["down"]}, 1),
    ("Montante", {"columns": ["up"]}, 1),
    ("la vache, 3 players", {"vache": True}, 3),
    ("Triple", {"preset": "triple"}, 1),
    ("Triple with Sec", {"preset": "triple", "columns": TRIPLE_SEC}, 1),
    ("Triple Yatzy with Sec", {"preset": "yatzy", "columns": TRIPLE_SEC}, 1),
    (
        "Triple with Sec, Yams 6, Plus et Moins, la vache, 3 players",
        {"preset": "triple", "columns": TRIPLE_SEC, "vache": True} | SIX | PM,
        3,
    ),
]
SLOW = SIX | PM  # the builds --quick leaves out


def measure_build(options: dict, kind: str, instance: str) -> dict:
    """One build in this (fresh) process: time, CPU times, peak memory, start value."""
    reuse_freed_memory()  # as the server's build worker does
    rules = Rules.from_dict(options)
    baseline_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    before = resource.getrusage(resource.RUSAGE_SELF)
    start = time.perf_counter()
    value = load_or_build(replace(rules, columns=(kind,)), instance).start_value
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_SELF)
    user, system = after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime
    return {
        "seconds": seconds,
        "peak_mb": after.ru_maxrss / 1024,
        "baseline_mb": baseline_mb,
        "value": value,
        "system_share": system / (user + system),
        "file_mb": os.path.getsize(cache_path(rules, instance, kind)) / 2**20,
    }


def advice_times(strategy, players: int, games: int) -> dict[str, list[float]]:
    """Seconds of each box advice and each keep advice (1st and 2nd throw) along random games
    (random dice, the best box played), wall time and the thread's CPU time ("... cpu": on a
    loaded machine the wall time also counts the waits for a core)."""
    rules = strategy.rules
    chooser = random.Random(1)
    times = {"box": [], "keep": [], "box cpu": [], "keep cpu": []}

    def timed(kind, ask):
        wall, cpu = time.perf_counter(), time.thread_time()
        answer = ask()
        times[f"{kind} cpu"].append(time.thread_time() - cpu)
        times[kind].append(time.perf_counter() - wall)
        return answer

    for _ in range(games):
        state = GameState.start(rules, [f"P{seat}" for seat in range(players)])
        while not state.is_over:
            throws = turn_throws(state)
            for throw in range(1, throws):
                dice = tuple(chooser.randint(1, 6) for _ in range(rules.dice))
                timed("keep", lambda: strategy.advise_keeps(state, dice, throw))  # noqa: B023
            dice = tuple(chooser.randint(1, 6) for _ in range(rules.dice))
            advice = timed("box", lambda: strategy.advise(state, dice, throws))  # noqa: B023
            state = state.play(Entry(state.active_player, advice[0].column, advice[0].box, dice))
    return times


def turn_times(client, turns: int) -> list[float]:
    """Seconds of each turn through the web app (the entry posted, the sheet it redirects
    to), on fresh one-player games."""
    store = client.application.extensions[STORE_EXTENSION]
    chooser = random.Random(2)
    times = []
    boxes = Rules().boxes
    game_id, played = None, len(boxes)
    for _ in range(turns):
        if played == len(boxes):
            response = client.post(
                "/games/new",
                data=new_game_form(["Mag"]),
            )
            game_id, played = int(response.headers["Location"].rsplit("/", 1)[1]), 0
        dice = "".join(str(chooser.randint(1, 6)) for _ in range(5))
        version = game_version(
            store, game_id, household=HOME_HOUSEHOLD
        ).token  # the sheet's hidden field
        start = time.perf_counter()
        response = client.post(
            f"/games/{game_id}/entries",
            data={
                "seq": played,
                "version": version,
                "dice": dice,
                "target": f"free:{boxes[played]}",
                "confirm": "1",
            },
            follow_redirects=True,
        )
        times.append(time.perf_counter() - start)
        assert response.status_code == 200, response.status_code
        played += 1
    return times


def during_a_build(instance: str, turns: int = 80) -> dict:
    """Turns and keep advice while the server's worker builds a table, against idle."""
    app = create_app(
        {"TESTING": True, "WTF_CSRF_ENABLED": False}, instance_path=os.path.join(instance, "server")
    )
    client = app.test_client()
    turn_times(client, 10)  # warm up the templates
    idle = turn_times(client, turns // 2)
    strategies = app.extensions[ADVISOR_EXTENSION]
    assert isinstance(strategies, Strategies)
    rules = Rules.from_dict({"preset": "yatzy"})  # one of the longer builds
    strategies.build(rules, household=HOME_HOUSEHOLD)
    while strategies.progress(rules) == 0.0:  # the worker starting
        time.sleep(0.05)
    start = time.perf_counter()
    busy = turn_times(client, turns)
    keeps = advice_times(load(Rules(), instance), 1, games=10)["keep"]
    progress = strategies.progress(rules)
    while strategies.progress(rules) is not None:
        time.sleep(0.1)
    built = strategies.get(rules) is not None
    build_seconds = time.perf_counter() - start
    # Idle turns before and after the build: the machine's other work weighs on both sides.
    idle += turn_times(client, turns - turns // 2)
    return {
        "idle": idle,
        "busy": busy,
        "keeps": keeps,
        "progress_at_end": progress,
        "build_seconds": build_seconds,
        "built": built,
    }


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[int(share * (len(ordered) - 1))]


def measured_value(strategy, players: int, games: int) -> str:
    """What the advice is worth: exact, or simulated against its reference."""
    rules = strategy.rules
    quality = advice_quality(rules, players)
    if players == 1 and len(rules.columns) == 1:
        return f"{quality}: {strategy.start_value:.4f}"
    if players == 1:
        totals = play_games(strategy, games, seed=11).totals[:, 0]
        mean, half = mean_interval(totals)
        reference = strategy.start_value
        return (
            f"{quality}: simulated {mean:.2f} ± {half:.2f} over {games} games; "
            f"turn about {reference:.2f}; margin {mean - reference:+.2f} "
            f"(95 % interval {mean - half - reference:+.2f} to "
            f"{mean + half - reference:+.2f})"
        )
    advised, others, wins = [], [], []
    for seat in range(players):
        totals = play_games(
            strategy, games // players, players, advised_seat=seat, seed=12 + seat
        ).totals
        mine = totals[:, seat]
        rest = np.delete(totals, seat, axis=1)
        advised.append(mine)
        others.append(rest.ravel())
        best = totals.max(axis=1)
        # A shared first place counts as a share of a win.
        wins.append(np.where(mine == best, 1 / (totals == best[:, None]).sum(axis=1), 0))
    advised, others, wins = (np.concatenate(part) for part in (advised, others, wins))
    (mean, half), (other, other_half), (share, share_half) = (
        mean_interval(part) for part in (advised, others, wins)
    )
    return (
        f"{quality}: over {len(advised)} games, the advised player {mean:.2f} ± "
        f"{half:.2f}, the players ignoring the floors {other:.2f} ± {other_half:.2f}; "
        f"the advised player wins {100 * share:.1f} % ± {100 * share_half:.1f} "
        f"(a third: {100 / players:.1f} %)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=20_000, help="simulated games per rule set")
    parser.add_argument(
        "--quick", action="store_true", help="leave out Plus et Moins with six dice"
    )
    arguments = parser.parse_args()
    print(
        f"Advisor benchmark: {os.cpu_count()} CPU(s), numpy {np.__version__}, "
        f"Python {sys.version.split()[0]}, load average {_load()} at the start"
    )
    spawn = get_context("spawn")
    with tempfile.TemporaryDirectory() as instance:
        print(
            f"\n{'table (one column played alone)':48} {'start value':>11} {'published':>9} "
            f"{'time s':>7} {'peak MB':>8} {'/300 MB':>8} {'file MB':>8} {'sys/CPU':>8}"
        )
        for label, options, kind, published in TABLES:
            if arguments.quick and _slow(options):
                continue
            # A fresh process per build: its peak memory and CPU times are its own.
            with ProcessPoolExecutor(1, mp_context=spawn) as pool:
                result = pool.submit(measure_build, options, kind, instance).result()
            shown = f"{published:9.4f}" if published is not None else f"{'-':>9}"
            print(
                f"{label:48} {result['value']:11.4f} {shown} {result['seconds']:7.1f} "
                f"{result['peak_mb']:8.0f} {result['peak_mb'] / MEMORY_BUDGET_MB:8.2f} "
                f"{result['file_mb']:8.1f} {result['system_share']:8.3f}",
                flush=True,
            )
        print(
            f"(peak MB is the whole process; {result['baseline_mb']:.0f} MB of it is the "
            "interpreter, numpy and the rules before the build starts; sys/CPU is the "
            f"build's system time over its CPU time, budget {SYSTEM_SHARE_BUDGET})"
        )

        print(
            f"\nRule sets: what the advice is worth, and its time along random games "
            f"(budget p99 {ADVICE_P99_BUDGET_MS} ms)"
        )
        for label, options, players in RULE_SETS:
            if arguments.quick and _slow(options):
                continue
            rules = Rules.from_dict(options)
            started = time.perf_counter()
            strategy = load(rules, instance)
            loading = time.perf_counter() - started
            games = 4 if len(rules.columns) > 1 else 10
            times = advice_times(strategy, players, games)
            print(
                f"\n{label} ({', '.join(rules.columns)}; tables loaded in {1000 * loading:.0f} ms)",
                flush=True,
            )
            for kind in ("box", "keep"):
                _print_times(f"{kind} advice", times[kind], times[f"{kind} cpu"])
            print(f"  {measured_value(strategy, players, arguments.games)}", flush=True)

        busy = during_a_build(instance)
        idle_p95 = percentile(busy["idle"], 0.95)
        busy_p95 = percentile(busy["busy"], 0.95)
        print(
            f"\nA turn (entry posted, sheet shown) idle: p95 {1000 * idle_p95:.1f} ms; "
            f"while the server's worker builds a table: p95 {1000 * busy_p95:.1f} ms; "
            f"ratio {busy_p95 / idle_p95:.2f} (budget {TURN_DURING_BUILD_BUDGET})"
        )
        _print_times("keep advice, classique, while the worker builds", busy["keeps"])
        print(
            f"(the build was {100 * (busy['progress_at_end'] or 1):.0f} % done at the end "
            f"of these measures; the worker, niced, {'built' if busy['built'] else 'FAILED'} "
            f"its table in {busy['build_seconds']:.1f} s)"
        )
    # Other work on the machine shows in the times (the builds are single-threaded numpy).
    print(f"Load average at the end: {_load()}")


def _slow(options: dict) -> bool:
    return SLOW.items() <= options.items()


def _print_times(label: str, seconds: list[float], cpu: list[float] | None = None) -> None:
    if not seconds:
        print(f"  {label}: none (one throw a turn)")
        return
    times_ms = [1000 * value for value in seconds]
    p99 = percentile(times_ms, 0.99)
    print(
        f"  {label} over {len(times_ms)}: median {statistics.median(times_ms):.2f} ms, "
        f"p99 {p99:.2f} ms, max {max(times_ms):.2f} ms; p99 / {ADVICE_P99_BUDGET_MS} ms "
        f"budget = {p99 / ADVICE_P99_BUDGET_MS:.2f}"
    )
    if cpu:
        cpu_ms = [1000 * value for value in cpu]
        print(
            f"    its CPU time: median {statistics.median(cpu_ms):.2f} ms, p99 "
            f"{percentile(cpu_ms, 0.99):.2f} ms, max {max(cpu_ms):.2f} ms"
        )


def _load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


if __name__ == "__main__":
    main()
