"""Load benchmark: 8 devices play whole games at once against a real server on loopback.

    python -m bench.load [--clients 8] [--games 2]

The server is the app of `scorekeeper serve` (waitress, its threads) in a child process, with
one extra route: a bare Flask page that returns N bytes of HTML and does nothing else. After
each turn (POST of the entry, then the sheet it redirects to) a device fetches the bare page
at the size of the sheet it just got, so both are measured under the same load. Prints
entries per second, p50/p95 of both, and the ratio of a turn to the bare page (goal <= 2x).

A turn is two requests, a bare page one: so each device also times two bare pages in a row
(the redirect's size, then the sheet's), the least any POST + redirect + sheet could take
on this server, and the benchmark prints that floor as a ratio too.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench.server import BARE_PATH, add_bare_page, percentile
from testing.live import Client, LiveServer, Sheet
from testing.samples import new_game_form

PLAYERS = ("Mag", "Alix")
NEW_GAME = new_game_form(PLAYERS)


def serve(port: int, instance: Path) -> None:
    """The benchmark's server: the app as `scorekeeper serve` runs it, plus the bare page."""
    import waitress

    from scorekeeper.app import create_app

    app = create_app(instance_path=instance)
    add_bare_page(app)
    waitress.serve(app, host="127.0.0.1", port=port, threads=app.config["SERVER_THREADS"])


class Device(threading.Thread):
    """A tablet that starts games and plays every turn, timing each turn and a bare page."""

    def __init__(self, index: int, address: tuple[str, int], games: int) -> None:
        super().__init__()
        self.address = address
        self.games = games
        self.chance = random.Random(index)
        self.turns: list[float] = []
        self.posts: list[float] = []
        self.pairs: list[float] = []
        self.bare: list[float] = []
        self.sizes: list[int] = []
        self.failure: BaseException | None = None

    def run(self) -> None:
        client = Client(self.address)
        try:
            for _ in range(self.games):
                self.play_a_game(client)
        except Exception as failure:  # reported by the main thread
            self.failure = failure
        finally:
            client.close()

    def play_a_game(self, client: Client) -> None:
        form = client.get("/games/new")
        token = Sheet.read(form.text).csrf_token
        created = client.post("/games/new", {**NEW_GAME, "csrf_token": token})
        assert created.status == 303, created.status
        path = created.location
        sheet = Sheet.read(client.get(path).text)
        while sheet.playable:
            fields = Client.entry_form(sheet, self.roll(), self.chance.choice(sheet.targets))
            started = time.perf_counter()
            answer = client.post(f"{path}/entries", fields)
            self.posts.append(time.perf_counter() - started)
            assert answer.status == 303, answer.status
            page = client.get(answer.location)
            self.turns.append(time.perf_counter() - started)
            assert page.status == 200, page.status
            size = len(page.text.encode())
            started = time.perf_counter()
            bare = client.get(f"{BARE_PATH}?size={size}")
            self.bare.append(time.perf_counter() - started)
            assert bare.status == 200 and len(bare.text.encode()) == size
            self.sizes.append(size)
            started = time.perf_counter()
            client.get(f"{BARE_PATH}?size={len(answer.text.encode())}")
            client.get(f"{BARE_PATH}?size={size}")
            self.pairs.append(time.perf_counter() - started)
            # After the last turn the redirect leads to the ranking, which has no turn to play.
            sheet = Sheet.read(page.text)

    def roll(self) -> str:
        """Five dice, never a Yams: the joker would decide the box, not the device."""
        while True:
            dice = [self.chance.randint(1, 6) for _ in range(5)]
            if len(set(dice)) > 1:
                return "".join(map(str, dice))


def run(clients: int, games: int) -> str:
    with tempfile.TemporaryDirectory(prefix="yams-load-") as folder:
        workdir = Path(folder)
        instance = workdir / "instance"
        command = [sys.executable, "-m", "bench.load", "--serve", "{port}", str(instance)]
        with LiveServer(instance, workdir / "server.log", command) as server:
            devices = [Device(i, server.base, games) for i in range(clients)]
            started = time.perf_counter()
            for device in devices:
                device.start()
            for device in devices:
                device.join()
            seconds = time.perf_counter() - started
    for device in devices:
        if device.failure is not None:
            raise device.failure
    turns = [t for device in devices for t in device.turns]
    posts = [t for device in devices for t in device.posts]
    bare = [t for device in devices for t in device.bare]
    pairs = [t for device in devices for t in device.pairs]
    sizes = [s for device in devices for s in device.sizes]
    entries = len(turns)
    lines = [
        f"load: {clients} clients x {games} games of {len(PLAYERS)} players "
        f"({entries} entries) in {seconds:.1f} s",
        f"  entries per second: {entries / seconds:.1f} (with one bare page per entry)",
        f"  entry round trip (POST + redirect + sheet): p50 {percentile(turns, 0.5) * 1000:.1f} ms"
        f", p95 {percentile(turns, 0.95) * 1000:.1f} ms",
        f"    of which the POST and its redirect: p50 {percentile(posts, 0.5) * 1000:.1f} ms"
        f", p95 {percentile(posts, 0.95) * 1000:.1f} ms",
        f"  bare Flask page of the same size ({statistics.median(sizes) / 1024:.1f} kB median):"
        f" p50 {percentile(bare, 0.5) * 1000:.1f} ms, p95 {percentile(bare, 0.95) * 1000:.1f} ms",
        f"  two bare pages in a row (the redirect's size, then the sheet's):"
        f" p50 {percentile(pairs, 0.5) * 1000:.1f} ms, p95 {percentile(pairs, 0.95) * 1000:.1f} ms",
        f"  ratio round trip / bare page: p50 {percentile(turns, 0.5) / percentile(bare, 0.5):.1f}x"
        f", p95 {percentile(turns, 0.95) / percentile(bare, 0.95):.1f}x (goal <= 2x)",
        f"  floor of that ratio, two bare pages / one: p50"
        f" {percentile(pairs, 0.5) / percentile(bare, 0.5):.1f}x"
        f", p95 {percentile(pairs, 0.95) / percentile(bare, 0.95):.1f}x",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--games", type=int, default=2, help="games each client plays")
    parser.add_argument("--serve", nargs=2, metavar=("PORT", "INSTANCE"), help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.serve:
        serve(int(options.serve[0]), Path(options.serve[1]))
    else:
        print(run(options.clients, options.games), flush=True)


if __name__ == "__main__":
    main()
