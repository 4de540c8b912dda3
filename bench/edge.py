"""The hosted server's edge under attack: plain gunicorn as it ran before the front, and the
stack of scripts/hosted_stack.py (nginx in front of gunicorn), in the same run.

    python -m bench.edge [--quick] [--seconds 30] [--connections 1600] [--workers 4]
        [--admin-url postgresql://postgres@127.0.0.1:54329/postgres]

Each server (4 gunicorn workers, PostgreSQL, a fresh database) goes through three phases of
--seconds each (10 with --quick), while another household, signed up beforehand, plays from
127.0.0.1: its sheet, then a turn, every 0.25 s (a brisk table), one keep-alive connection:
- idle: nothing else;
- slow headers: --connections connections from 127.0.0.2 to 127.0.0.5, no sign-in, each
  sending a request's header one byte every 5 s (a connection the server closes is opened
  again, as an attacker would);
- slow bodies: as many POSTs to /household/join announcing 500 kB and dripping them a byte
  every 5 s.
Printed for the household at play, each phase: its requests, how many failed (no answer
within 30 s, or an answer but a page or a 303), the longest wait, p95 and p95 against the
idle phase's of the same server.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from bench.hosted import fresh_database, gunicorn_command
from bench.server import percentile
from scorekeeper.play import start_game
from scorekeeper.rules import Rules
from scorekeeper.store import Store
from scorekeeper.store.households import find_household
from scorekeeper.store.quotas import NO_QUOTAS
from testing.live import REPO_ROOT, Client, LiveServer, free_port
from tests.support.forms import csrf_token_in

ATTACKERS = ("127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5")
DRIP_SECONDS = 5.0
PLAY_PAUSE_SECONDS = 0.25
BODY_BYTES = 500_000
PASSPHRASE = "correct horse battery"
PLAYERS = ("Mag", "Alix")
HEADER = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"
BODY_HEAD = (
    b"POST /household/join HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    b"Content-Type: application/x-www-form-urlencoded\r\n"
    b"Content-Length: %d\r\n\r\n" % BODY_BYTES
)


@dataclass
class Phase:
    name: str
    waits: list[float] = field(default_factory=list)
    failed: int = 0


class Attack:
    """`count` connections from the attackers' addresses, each sending `opening` and then a
    byte every DRIP_SECONDS; a connection the server closed is opened again."""

    def __init__(self, address: tuple[str, int], count: int, opening: bytes) -> None:
        self.address, self.count, self.opening = address, count, opening
        self.stop = threading.Event()
        self.threads = [
            threading.Thread(target=self._run, args=(source, count // len(ATTACKERS)), daemon=True)
            for source in ATTACKERS
        ]

    def _open(self, source: str) -> socket.socket | None:
        try:
            held = socket.create_connection(self.address, timeout=2, source_address=(source, 0))
            held.sendall(self.opening)
            held.setblocking(False)
            return held
        except OSError:
            return None

    def _run(self, source: str, count: int) -> None:
        held = [self._open(source) for _ in range(count)]
        while not self.stop.wait(DRIP_SECONDS):
            for number, connection in enumerate(held):
                if self.stop.is_set():
                    break
                try:
                    if connection is None:
                        raise OSError
                    with contextlib.suppress(BlockingIOError):
                        if connection.recv(65536) == b"":
                            raise OSError  # closed by the server (or answered, then closed)
                    connection.send(b"a")
                except OSError:
                    if connection is not None:
                        connection.close()
                    held[number] = self._open(source)
        for connection in held:
            if connection is not None:
                connection.close()

    def __enter__(self) -> Attack:
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *_exc) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=60)


def sign_up(
    address: tuple[str, int], database_url: str, name: str, games: int
) -> tuple[Client, list[int]]:
    """A household signed up through the server's own form on one device (its client), and
    `games` games of its own made in the database."""
    tablet = Client(address)
    page = tablet.get("/household/new")
    answer = tablet.post(
        "/household/new",
        {"csrf_token": csrf_token_in(page.text), "name": name, "passphrase": PASSPHRASE},
    )
    if answer.status != 303:
        raise RuntimeError(f"sign-up answered {answer.status}")
    store = Store(database_url)
    try:
        household = find_household(store, name).id
        made = [
            start_game(store, Rules(), PLAYERS, household=household, quotas=NO_QUOTAS)
            for _ in range(games)
        ]
    finally:
        store.dispose()
    return tablet, made


def _play(tablet: Client, games: list[int], seconds: float) -> Phase:
    """The household at play for `seconds`: each request's wait, and the failures."""
    phase = Phase("")
    end = time.monotonic() + seconds
    while time.monotonic() < end and games:
        began = time.monotonic()
        try:
            page, sheet = tablet.sheet(games[0])
            phase.waits.append(time.monotonic() - began)
            if not sheet.playable:
                games.pop(0)
                continue
            began = time.monotonic()
            answer = tablet.submit(games[0], sheet, "12346", sheet.targets[0])
            phase.waits.append(time.monotonic() - began)
            if answer.status != 303:
                phase.failed += 1
        except (OSError, http.client.HTTPException, AssertionError, ValueError):
            phase.waits.append(time.monotonic() - began)
            phase.failed += 1
            tablet.connection.close()
        time.sleep(PLAY_PAUSE_SECONDS)
    return phase


def _phases(address, database_url: str, seconds: float, connections: int) -> list[Phase]:
    tablet, games = sign_up(address, database_url, "Les Autres", games=60)
    results = []
    for name, opening in (("idle", None), ("slow headers", HEADER), ("slow bodies", BODY_HEAD)):
        attack = Attack(address, connections, opening) if opening else contextlib.nullcontext()
        with attack:
            if opening:
                time.sleep(2)  # the connections opened and holding
            phase = _play(tablet, games, seconds)
        phase.name = name
        results.append(phase)
        print(f"  {name}: {len(phase.waits)} requests", flush=True)
        time.sleep(2)  # the attack's connections closed, the server back at rest
    return results


@contextlib.contextmanager
def _plain_gunicorn(folder: Path, database_url: str, workers: int) -> Iterator[tuple[str, int]]:
    instance = folder / "plain"
    port_holder = LiveServer(instance, folder / "plain.log", gunicorn_command(workers, instance))
    instance.mkdir(exist_ok=True)
    (instance / "config.py").write_text(
        f"HOUSEHOLDS = True\nEXTERNAL_URL = 'http://127.0.0.1:{port_holder.port}'\n"
    )
    port_holder.database_url = database_url
    with port_holder as server:
        yield server.base


@contextlib.contextmanager
def _stack(folder: Path, database_url: str, workers: int) -> Iterator[tuple[str, int]]:
    instance, port = folder / "stack", free_port()
    instance.mkdir(exist_ok=True)
    (instance / "config.py").write_text(
        f"HOUSEHOLDS = True\nEXTERNAL_URL = 'http://127.0.0.1:{port}'\n"
    )
    command = [sys.executable, "-m", "scripts.hosted_stack", "--database-url", database_url]
    command += ["--port", str(port), "--instance", str(instance)]
    with (folder / "stack.log").open("wb") as log:
        process = subprocess.Popen(
            command,
            cwd=REPO_ROOT,
            env={**os.environ, "SCOREKEEPER_WORKERS": str(workers)},
            stdout=subprocess.PIPE,
            stderr=log,
        )
    try:
        line = process.stdout.readline().decode().strip()
        if line != f"ready http://127.0.0.1:{port}":
            raise RuntimeError(f"the stack did not start: {line!r}, see {folder / 'stack.log'}")
        yield "127.0.0.1", port
    finally:
        process.terminate()
        process.wait(timeout=60)


def _row(server: str, phase: Phase, idle_p95: float) -> str:
    p95 = percentile(phase.waits, 0.95) if phase.waits else float("nan")
    return (
        f"| {server} | {phase.name} | {len(phase.waits)} | {phase.failed} | "
        f"{max(phase.waits, default=float('nan')):.2f} s | {p95 * 1000:.0f} ms | "
        f"{p95 / idle_p95:.1f}x |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10 s phases (about 3 minutes)")
    parser.add_argument("--seconds", type=float, default=30.0, help="each phase")
    parser.add_argument("--connections", type=int, default=1600, help="each attack's")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn's, both servers")
    parser.add_argument(
        "--admin-url",
        default="postgresql://postgres@127.0.0.1:54329/postgres",
        help="a PostgreSQL server where the benchmark may create databases",
    )
    args = parser.parse_args()
    seconds = 10.0 if args.quick else args.seconds
    os.environ["SCOREKEEPER_SECRET_KEY"] = "bench-edge-" + "0" * 32
    rows = []
    with tempfile.TemporaryDirectory(prefix="yams-edge-") as folder:
        for server, start in (("plain gunicorn", _plain_gunicorn), ("nginx + gunicorn", _stack)):
            url = fresh_database(args.admin_url, f"scorekeeper_bench_edge_{len(rows)}")
            print(f"{server}:", flush=True)
            with start(Path(folder), url, args.workers) as address:
                phases = _phases(address, url, seconds, args.connections)
            idle_p95 = percentile(phases[0].waits, 0.95)
            rows += [_row(server, phase, idle_p95) for phase in phases]
    print(
        f"\n{args.connections} connections an attack from {len(ATTACKERS)} addresses, "
        f"{seconds:.0f} s phases, {args.workers} gunicorn workers; another household at play:\n"
    )
    print("| server | phase | requests | failed | longest wait | p95 | p95 / idle |")
    print("|---|---|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
