"""Home server benchmark: a tablet that wakes up while connections are held open.

    python -m bench.home_connections [--idle 300] [--slow 300] [--samples 30]

Starts a real `scorekeeper serve` (its own command, the one a family runs) on loopback, with
a game in progress. A *new tablet* opens a new connection, with no cookie, and asks for the
sheet (the page), then plays a turn on it (the POST and the sheet it redirects to); a tiny
answer of the same server, the game's version, is the floor of any request. Each is timed
with nothing else open (idle) and while `--idle` connections are held that send nothing and
`--slow` more that send their request's headers one byte every 2 s, as a stranger on the
network would, in rounds of each (the machine's noise falls on both). Prints p50 and p95 of
each beside idle, their ratio (goal <= 2x), the samples that got no answer within 5 s, and
the server's memory: what each held connection costs (measured once they are all accepted,
before the new tablet plays among them), and apart what the new tablet's first round adds
(a game of its own and its turns, which a connection held does not cost).
"""

from __future__ import annotations

import argparse
import http.client
import sys
import tempfile
import time
from pathlib import Path

from bench.server import Server, percentile, rss_mib
from testing.live import Client, HeldConnections, Sheet, open_sockets
from testing.samples import new_game_form

# A tablet that gets no answer within this long has failed to connect.
ANSWER_SECONDS = 5.0
# Samples given up after this many failures in a row: the server is not answering.
FAILURES_IN_A_ROW = 3
# The longest the held connections are waited for, accepted by the server.
ACCEPT_SECONDS = 10.0
# How often each slow connection sends one more byte of its headers.
DRIP_SECONDS = 2.0
PLAYERS = ("Mag", "Alix")


class Tablet:
    """A new tablet at each sample: a connection of its own, no cookie, and one turn."""

    def __init__(self, address: tuple[str, int]) -> None:
        self.address = address
        self.game: str | None = None
        self.pages: list[float] = []
        self.turns: list[float] = []
        self.floors: list[float] = []
        self.failures = 0

    def sample(self, dice: str) -> None:
        client = None
        try:
            if self.game is None:
                self.game = self.new_game()
            client = self.connect()
            started = time.perf_counter()
            sheet = Sheet.read(client.get(self.game).text)
            page_done = time.perf_counter()
            answer = client.post(
                f"{self.game}/entries", Client.entry_form(sheet, dice, sheet.targets[0])
            )
            assert answer.status == 303, answer.status
            after = client.get(answer.location)
            assert after.status == 200, after.status
            turn_done = time.perf_counter()
            assert client.get(f"{self.game}/version").status == 200
            floor_done = time.perf_counter()
        except (OSError, http.client.HTTPException):
            self.failures += 1
            return
        finally:
            if client is not None:
                client.close()
        if not Sheet.read(after.text).playable:
            self.game = None  # the game is over: the next sample starts another
        self.pages.append(page_done - started)
        self.turns.append(turn_done - page_done)
        self.floors.append(floor_done - turn_done)

    def connect(self) -> Client:
        client = Client(self.address)
        client.connection.timeout = ANSWER_SECONDS
        return client

    def new_game(self) -> str:
        client = self.connect()
        try:
            token = Sheet.read(client.get("/games/new").text).csrf_token
            created = client.post("/games/new", {**new_game_form(PLAYERS), "csrf_token": token})
        finally:
            client.close()
        assert created.status == 303, created.status
        return created.location

    def run(self, samples: int) -> None:
        """`samples` turns, given up after FAILURES_IN_A_ROW samples in a row unanswered."""
        dice = ("12346", "11235", "22456", "13356", "12445")
        in_a_row = 0
        for number in range(samples):
            failures = self.failures
            self.sample(dice[number % len(dice)])
            in_a_row = in_a_row + 1 if self.failures > failures else 0
            if in_a_row == FAILURES_IN_A_ROW:
                return


def accepted(pid: int, connections: int) -> float:
    """How long the server took to accept `connections` (or queue them, once it no longer
    accepts any: then ACCEPT_SECONDS)."""
    started = time.perf_counter()
    while open_sockets(pid) < connections and time.perf_counter() - started < ACCEPT_SECONDS:
        time.sleep(0.05)
    return time.perf_counter() - started


def _line(name: str, held: list[float], idle: list[float]) -> str:
    if not held:
        return f"    {name:<32} no answer (idle p50 {percentile(idle, 0.5) * 1000:.1f} ms)"
    ratio_50 = percentile(held, 0.5) / percentile(idle, 0.5)
    ratio_95 = percentile(held, 0.95) / percentile(idle, 0.95)
    return (
        f"    {name:<32} p50 {percentile(held, 0.5) * 1000:6.1f} ms"
        f" (idle {percentile(idle, 0.5) * 1000:6.1f}, {ratio_50:.2f}x),"
        f" p95 {percentile(held, 0.95) * 1000:6.1f} ms"
        f" (idle {percentile(idle, 0.95) * 1000:6.1f}, {ratio_95:.2f}x)"
    )


def run(idle: int, slow: int, samples: int, rounds: int) -> str:
    """Rounds of idle samples then held ones, so that the machine's noise falls on both."""
    with tempfile.TemporaryDirectory(prefix="yams-home-") as folder:
        workdir = Path(folder)
        with Server.scorekeeper(workdir / "instance", workdir / "serve.log") as server:
            address = ("127.0.0.1", server.port)
            resting = connected = holding = accepting = 0.0
            quiet, held = Tablet(address), Tablet(address)
            played = 0
            for _ in range(rounds):
                played += 1
                quiet.run(samples // rounds)
                resting = resting or rss_mib(server.process.pid)
                with HeldConnections(address, idle, slow, DRIP_SECONDS):
                    accepting = max(accepting, accepted(server.process.pid, idle + slow))
                    connected = connected or rss_mib(server.process.pid)
                    held.run(samples // rounds)
                    holding = holding or rss_mib(server.process.pid)
                if held.failures >= FAILURES_IN_A_ROW and not held.turns:
                    break  # the server does not answer while they are held
            log = (workdir / "serve.log").read_text(errors="replace")
    lines = [
        f"home server: a new tablet while {idle} idle and {slow} slow-header connections "
        f"are held (headers one byte every {DRIP_SECONDS:.0f} s), {played} rounds of"
        f" {samples // rounds} samples each way, {ANSWER_SECONDS:.0f} s to answer",
        _line("sheet page (new connection)", held.pages, quiet.pages),
        _line("turn (POST + redirected sheet)", held.turns, quiet.turns),
        _line("floor (the game's version)", held.floors, quiet.floors),
        f"    the server took {accepting:.1f} s to accept them all"
        f"{' (or gave up waiting)' if accepting >= ACCEPT_SECONDS else ''}",
        f"    samples without an answer: {held.failures} of"
        f" {held.failures + len(held.turns)} while held, {quiet.failures} idle",
        f"    server memory: {resting:.1f} MiB, {connected:.1f} MiB once they are accepted"
        f" ({(connected - resting) * 1024 / (idle + slow):.2f} KiB a connection),"
        f" {holding:.1f} MiB after the new tablet's first round among them"
        f" ({(holding - connected) * 1024:.0f} KiB more: its game and turns)",
    ]
    if "connection limit" in log:
        lines.append(
            "    the server's log: "
            + next(line.strip() for line in log.splitlines() if "connection limit" in line)
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--idle", type=int, default=300, help="connections that send nothing")
    parser.add_argument("--slow", type=int, default=300, help="connections that drip headers")
    parser.add_argument("--samples", type=int, default=100, help="pages and turns each way")
    parser.add_argument("--rounds", type=int, default=5, help="idle, then held, this often")
    options = parser.parse_args()
    print(run(options.idle, options.slow, options.samples, options.rounds), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
