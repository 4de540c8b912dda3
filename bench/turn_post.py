"""A turn's POST as the sheet's script sends it, timed in the server, against a bare route.

    python -m bench.turn_post [--games 10] [--tablets 4]

The app of `scorekeeper serve` on SQLite in a fresh instance folder, driven in-process
through Flask's test client, so that Chromium and the network take no part: a turn is the
confirmed box posted with the header and a turn key, as static/js/sheet.js sends it,
answered with the next sheet to swap in (web/games.py `play`). Right after each turn, two
bare Flask routes of the app answer a page of the same size: a GET, and a POST that first
writes one row into a SQLite file (the least a turn could cost: a write and an answer), so
that all three meet the same machine.

Two runs: one tablet playing whole games alone, then ``--tablets`` tablets confirming at the
same moment, each on its own game, each in its own thread (as waitress's threads serve them),
which is the test of tests/browser/test_instant.py without the browser. Prints the wall time
(median, p95) and the CPU time (median) of each, and the ratios to the bare routes.
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import tempfile
import threading
import time
from pathlib import Path

from bench.server import BARE_PATH, BARE_WRITE_PATH, add_bare_page, add_bare_write, percentile
from scorekeeper.app import create_app
from scorekeeper.play import start_game
from scorekeeper.rules import Rules
from scorekeeper.store import HOME_HOUSEHOLD
from scorekeeper.store.quotas import NO_QUOTAS
from scorekeeper.web.games import SWAP_HEADER
from scorekeeper.web.store import STORE_EXTENSION

PLAYERS = ("Mag", "Alix")
_FIELD = r'name="{}"[^>]*value="([^"]*)"'


class Turns:
    """Times of turn POSTs and of bare pages: wall and CPU, in seconds."""

    def __init__(self) -> None:
        self.wall: list[float] = []
        self.cpu: list[float] = []
        self.bare_wall: list[float] = []
        self.bare_cpu: list[float] = []
        self.write_wall: list[float] = []
        self.write_cpu: list[float] = []

    def add(self, other: Turns) -> None:
        for name in vars(self):
            getattr(self, name).extend(getattr(other, name))

    def report(self, title: str) -> None:
        def ms(values: list[float], share: float) -> float:
            return percentile(values, share) * 1000

        print(f"  {title}: {len(self.wall)} turns")
        print(
            f"    turn POST: wall p50 {ms(self.wall, 0.5):.2f} ms, p95 "
            f"{ms(self.wall, 0.95):.2f} ms; CPU p50 {ms(self.cpu, 0.5):.2f} ms"
        )
        print(
            f"    bare page: wall p50 {ms(self.bare_wall, 0.5):.2f} ms, p95 "
            f"{ms(self.bare_wall, 0.95):.2f} ms; CPU p50 {ms(self.bare_cpu, 0.5):.2f} ms"
        )
        print(
            f"    bare POST writing a row: wall p50 {ms(self.write_wall, 0.5):.2f} ms, p95 "
            f"{ms(self.write_wall, 0.95):.2f} ms; CPU p50 {ms(self.write_cpu, 0.5):.2f} ms"
        )
        for name, wall, cpu in (
            ("bare page", self.bare_wall, self.bare_cpu),
            ("bare POST writing a row", self.write_wall, self.write_cpu),
        ):
            print(
                f"    ratio turn / {name}: wall p50 "
                f"{statistics.median(self.wall) / statistics.median(wall):.1f}x, p95 "
                f"{percentile(self.wall, 0.95) / percentile(wall, 0.95):.1f}x; CPU p50 "
                f"{statistics.median(self.cpu) / statistics.median(cpu):.1f}x"
            )


class Tablet:
    """A tablet playing one game after another, one confirmed turn at a time."""

    def __init__(self, app, index: int) -> None:
        self.app = app
        self.client = app.test_client()
        self.chance = random.Random(index)
        self.game_id = 0
        self.page = ""

    def new_game(self) -> None:
        store = self.app.extensions[STORE_EXTENSION]
        self.game_id = start_game(
            store, Rules(), PLAYERS, household=HOME_HOUSEHOLD, quotas=NO_QUOTAS
        )
        self.page = self.client.get(f"/games/{self.game_id}").get_data(as_text=True)

    @property
    def playing(self) -> bool:
        return 'name="target"' in self.page

    def play(self, turns: Turns) -> None:
        """Confirm a box of the sheet shown with dice of the table, and time the answer."""
        fields = {
            name: re.search(_FIELD.format(name), self.page).group(1)
            for name in ("csrf_token", "seq", "version")
        }
        fields["target"] = self.chance.choice(re.findall(_FIELD.format("target"), self.page))
        fields["dice"] = self.roll()
        fields["confirm"] = "1"  # the bar's hidden field when the dice bar the box
        fields["turn_key"] = self.chance.randbytes(16).hex()  # as sheet.js makes one a turn
        started, cpu = time.perf_counter(), time.thread_time()
        answer = self.client.post(
            f"/games/{self.game_id}/entries", data=fields, headers={SWAP_HEADER: "1"}
        )
        turns.cpu.append(time.thread_time() - cpu)
        turns.wall.append(time.perf_counter() - started)
        # The last turn redirects to the ranking.
        assert answer.status_code in (200, 303), answer.status_code
        self.page = answer.get_data(as_text=True) if answer.status_code == 200 else ""
        started, cpu = time.perf_counter(), time.thread_time()
        bare = self.client.get(f"{BARE_PATH}?size={len(answer.get_data())}")
        turns.bare_cpu.append(time.thread_time() - cpu)
        turns.bare_wall.append(time.perf_counter() - started)
        assert bare.status_code == 200
        started, cpu = time.perf_counter(), time.thread_time()
        written = self.client.post(
            f"{BARE_WRITE_PATH}?size={len(answer.get_data())}", data={"dice": fields["dice"]}
        )
        turns.write_cpu.append(time.thread_time() - cpu)
        turns.write_wall.append(time.perf_counter() - started)
        assert written.status_code == 200

    def roll(self) -> str:
        """Five dice, never a Yams: the joker would decide the box, not the tablet."""
        while True:
            dice = [self.chance.randint(1, 6) for _ in range(5)]
            if len(set(dice)) > 1:
                return "".join(map(str, dice))


def alone(app, games: int) -> Turns:
    turns = Turns()
    tablet = Tablet(app, 0)
    for _ in range(games):
        tablet.new_game()
        while tablet.playing:
            tablet.play(turns)
    return turns


def at_once(app, games: int, count: int) -> Turns:
    """``count`` tablets confirm at the same moment, turn after turn."""
    tablets = [Tablet(app, index + 1) for index in range(count)]
    each = [Turns() for _ in tablets]
    start = threading.Barrier(count)

    def play(tablet: Tablet, turns: Turns) -> None:
        for _ in range(games):
            tablet.new_game()
            while tablet.playing:
                start.wait()
                tablet.play(turns)

    threads = [threading.Thread(target=play, args=pair) for pair in zip(tablets, each, strict=True)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    turns = Turns()
    for one in each:
        turns.add(one)
    return turns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=10, help="games each tablet plays")
    parser.add_argument("--tablets", type=int, default=4)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-turn-") as folder:
        # The bare POST carries no CSRF token: the app's check is for its own forms.
        app = create_app({"WTF_CSRF_CHECK_DEFAULT": False}, instance_path=Path(folder))
        add_bare_page(app)
        add_bare_write(app, Path(folder) / "bare.sqlite3")
        alone(app, 1)  # templates compiled, catalogues read: as on a server already up
        print(
            f"turn POST (the next sheet swapped in) against a bare page of its size, "
            f"{len(PLAYERS)} players, Classique"
        )
        alone(app, args.games).report("one tablet")
        at_once(app, args.games, args.tablets).report(f"{args.tablets} tablets at once")
        app.extensions[STORE_EXTENSION].dispose()


if __name__ == "__main__":
    main()
